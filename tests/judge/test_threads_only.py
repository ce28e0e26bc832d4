"""The child's threads-only filter (judge/run/threads_only.py): under a CPU rule no process can
start, by any of the ways Python starts one, while threads go on (issue 20, section 4)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from judge.run import threads_only

pytestmark = pytest.mark.skipif(
    not threads_only.available(), reason="refusing processes needs Linux on x86_64 or aarch64"
)

AFTER_THE_FILTER = textwrap.dedent(
    """
    import json, os, subprocess, threading
    from judge.run.threads_only import refuse_processes
    refuse_processes()
    tried = {}
    def attempt(name, start):
        try:
            start()
            tried[name] = "started"
        except OSError as exc:
            tried[name] = exc.errno
    attempt("fork", os.fork)
    attempt("subprocess", lambda: subprocess.run(["true"]))
    attempt("posix_spawn", lambda: os.posix_spawn("/bin/true", ["true"], {}))
    out = []
    worker = threading.Thread(target=lambda: out.append(sum(range(1000))))
    worker.start()
    worker.join()
    tried["thread"] = out
    print(json.dumps(tried))
    """
)


def test_no_process_starts_and_a_thread_does() -> None:
    done = subprocess.run(
        [sys.executable, "-c", AFTER_THE_FILTER],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    tried = json.loads(done.stdout)
    assert tried == {"fork": 1, "subprocess": 1, "posix_spawn": 1, "thread": [499500]}, tried


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_the_program_ends_every_path_in_a_return(machine: str) -> None:
    """Every jump lands inside the program and the last instruction returns: the kernel
    refuses a filter that could run off its end."""
    program = threads_only.program(machine)
    assert len(program) < 64
    for index, (code, jt, jf, _k) in enumerate(program):
        if code & 0x07 == 0x05:  # a jump
            assert index + 1 + max(jt, jf) < len(program)
    assert program[-1][0] == 0x06
