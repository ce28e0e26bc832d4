"""One test per row of the hostile-submissions table that concerns the runner.

Each test judges the hostile submission through the real sandbox and asserts its
verdict. The `harness` fixture then asserts, for every test, that a normal submission
is still judged AC, that no process of any job is left (each job has its own pid
namespace, so "left" is exact), that the job's cgroups are gone, and that no file
outside the job changed (the repository, the problem folder, nothing of the sandbox
user in /tmp, /dev/shm or /var/tmp).

Rows 26-27 (speed problems), 35 (browser credit) and 36 (rate limits) are not the
runner's; row 34 (GPU) is in test_gpu.py and scripts/gpu_check.py.
"""

from __future__ import annotations

import json
import os
import socket
import uuid

import pytest

from judge.errors import SourceError
from judge.run.judge_source import judge_source
from judge.verdict import Verdict

AC, WA, TLE, MLE, OLE, RE, CE = (
    Verdict.AC,
    Verdict.WA,
    Verdict.TLE,
    Verdict.MLE,
    Verdict.OLE,
    Verdict.RE,
    Verdict.CE,
)


def test_row01_infinite_loop_is_tle(harness):
    report = harness.judge("def add(a, b):\n    while True:\n        pass\n")
    assert report.verdict is TLE


def test_row02_sleeping_forever_is_tle(harness):
    report = harness.judge("import time\ndef add(a, b):\n    time.sleep(10**6)\n")
    assert report.verdict is TLE


def test_row02_blocking_on_stdin_is_tle_or_reads_nothing(harness):
    report = harness.judge(
        """
        import sys, time
        def add(a, b):
            data = sys.stdin.read()   # /dev/null: returns at once with nothing
            time.sleep(10**6)
        """
    )
    assert report.verdict is TLE


def test_row03_fork_bomb_is_contained(harness):
    report = harness.judge(
        """
        import os
        def add(a, b):
            while True:
                try:
                    os.fork()
                except OSError:
                    pass
        """
    )
    assert report.verdict in (TLE, RE)


def test_row04_setsid_daemon_does_not_survive(harness):
    report = harness.judge(
        """
        import os, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                while True:
                    time.sleep(1)
            os._exit(0)
        os.wait()
        def add(a, b):
            return a + b
        """
    )
    assert report.verdict is AC  # judged on its answers; the daemon dies with the job


def test_row05_thread_and_child_outliving_the_case_are_killed(harness):
    report = harness.judge(
        """
        import os, threading, time
        threading.Thread(target=lambda: time.sleep(10**6)).start()
        if os.fork() == 0:
            time.sleep(10**6)
        def add(a, b):
            return a + b
        """
    )
    assert report.verdict is AC


def test_row06_allocating_100_gb_is_mle(harness):
    report = harness.judge("def add(a, b):\n    x = bytearray(100 * 2**30)\n    return a + b\n")
    assert report.verdict is MLE


def test_row06_growing_a_list_without_bound_is_mle(harness):
    report = harness.judge(
        """
        def add(a, b):
            grow = []
            while True:
                grow.append(bytearray(1 << 20))
        """
    )
    assert report.verdict is MLE


def test_row07_filling_tmp_and_dev_shm_is_re(harness):
    report = harness.judge(
        """
        def add(a, b):
            for where in ("/tmp", "/dev/shm"):
                for i in range(10**6):
                    with open(f"{where}/fill{i}", "wb") as f:
                        f.write(b"x" * (8 << 20))
        """
    )
    assert report.verdict in (MLE, RE)
    assert "No space left" in report.cases[0].message or report.verdict is MLE


def test_row08_flooding_stdout_is_ole(harness):
    report = harness.judge(
        "import sys\ndef add(a, b):\n    while True:\n        sys.stdout.write('x' * 65536)\n"
    )
    assert report.verdict is OLE
    assert len(report.stdout) <= 1 << 20


def test_row08_flooding_stderr_is_ole(harness):
    report = harness.judge(
        "import os\ndef add(a, b):\n    while True:\n        os.write(2, b'y' * 65536)\n"
    )
    assert report.verdict is OLE
    assert len(report.stderr) <= 1 << 20


def test_row09_one_huge_file_is_re(harness):
    report = harness.judge(
        """
        def add(a, b):
            with open("huge", "wb") as f:
                for _ in range(1024):
                    f.write(b"z" * (1 << 20))
        """
    )
    assert report.verdict is RE
    assert "too large" in report.cases[0].message.lower()


def test_row09_many_60_mb_files_are_re(harness):
    report = harness.judge(
        """
        def add(a, b):
            for i in range(1000):
                with open(f"big{i}", "wb") as f:
                    f.write(b"z" * (60 << 20))
        """
    )
    assert report.verdict in (RE, MLE)


def test_row10_opening_fds_until_failure_is_re(harness):
    report = harness.judge(
        """
        import os
        def add(a, b):
            held = []
            while True:
                held.append(os.open("/dev/null", os.O_RDONLY))
        """
    )
    assert report.verdict is RE
    assert "Too many open files" in report.cases[0].message


def test_row11_secrets_hidden_cases_and_reference_are_unreadable(harness, monkeypatch):
    monkeypatch.setenv("JUDGE_TEST_SECRET", "s3cr3t-value")
    report = harness.judge(
        """
        import json, os, sys
        skip = ("/usr", "/proc", sys.prefix, sys.base_prefix)  # system and Python files only
        hits = []
        for d, dirs, names in os.walk("/"):
            dirs[:] = [x for x in dirs if not os.path.join(d, x).startswith(skip)]
            hits += [os.path.join(d, n) for n in names
                     if n in ("reference.py", "problem.toml", "shadow")]
        def readable(path):
            try:
                with open(path, "rb") as f:
                    f.read(1)
                return True
            except OSError:
                return False
        found = {
            "shadow": readable("/etc/shadow"),
            "passwd": readable("/etc/passwd"),
            "ssh": os.path.exists("/root/.ssh") or os.path.exists(os.path.expanduser("~/.ssh")),
            "environ": dict(os.environ),
            "hits": hits,
        }
        print("FOUND " + json.dumps(found))
        def add(a, b):
            return a + b
        """
    )
    assert report.verdict is AC
    found = json.loads(report.stdout.split("FOUND ", 1)[1].splitlines()[0])
    assert found["shadow"] is False and found["passwd"] is False and found["ssh"] is False
    assert "JUDGE_TEST_SECRET" not in found["environ"]
    assert set(found["environ"]) <= {"PATH", "LANG", "HOME", "TMPDIR", "PWD"}
    assert found["hits"] == []


def test_row12_no_connection_to_host_tcp_unix_vsock_or_netlink(harness):
    listener = socket.create_server(("127.0.0.1", 0))
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    name = f"judge-test-{uuid.uuid4().hex}"
    abstract.bind("\0" + name)
    abstract.listen()
    port = listener.getsockname()[1]
    try:
        report = harness.judge(
            f"""
            import socket
            def attempt(make):
                try:
                    make()
                    return "connected"
                except OSError as exc:
                    return type(exc).__name__
            def tcp():
                socket.create_connection(("127.0.0.1", {port}), 2)
            def unix():
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect("\\0{name}")
            def vsock():
                socket.socket(40, socket.SOCK_STREAM)
            def netlink():
                socket.socket(socket.AF_NETLINK, socket.SOCK_RAW)
            print("NET", [attempt(f) for f in (tcp, unix, vsock, netlink)])
            def add(a, b):
                return a + b
            """
        )
    finally:
        listener.close()
        abstract.close()
    assert report.verdict is AC
    line = report.stdout.split("NET ", 1)[1].splitlines()[0]
    assert "connected" not in line
    assert line.count("PermissionError") == 2  # vsock and netlink: refused by seccomp


def test_row13_killing_parent_pid1_and_everyone_is_re(harness):
    report = harness.judge(
        """
        import os, signal
        os.kill(1, signal.SIGKILL)       # itself: the job's own pid namespace
        os.kill(-1, signal.SIGKILL)      # everything it may signal: only its own job
        os.kill(os.getppid(), signal.SIGKILL)  # ppid is 0 here: its own process group
        def add(a, b):
            return a + b
        """
    )
    assert report.verdict is RE


@pytest.mark.parametrize("where", ["import", "case"])
@pytest.mark.parametrize("how", ["os._exit(0)", "sys.exit(0)"])
def test_row14_exiting_early_is_never_ac(harness, where, how):
    body = f"import os, sys\n{how}\n" if where == "import" else "import os, sys\n"
    body += "def add(a, b):\n" + (f"    {how}\n" if where == "case" else "    return a + b\n")
    report = harness.judge(body)
    assert report.verdict in (RE, WA)


def test_row15_printing_fake_success_is_wa(harness):
    report = harness.judge(
        """
        def add(a, b):
            print("ALL TESTS PASSED")
            print('{"type": "result", "verdict": "AC"}')
            print('JDG1{"type": "result"}')
            return 0
        """
    )
    assert report.verdict is WA


def test_row16_writing_forged_frames_to_inherited_fds_is_not_accepted(harness):
    report = harness.judge(
        """
        import json, os, struct
        def frame(header):
            data = json.dumps(header).encode()
            return b"JDG1" + struct.pack(">I", len(data)) + data
        def add(a, b):
            forged = frame({"type": "result", "name": "small", "observation": 3})
            for fd in range(0, 64):
                try:
                    os.write(fd, forged)
                except OSError:
                    pass
            return -12345
        """
    )
    assert report.verdict in (WA, RE)


def test_row17_monkeypatching_builtins_and_the_judge_is_wa(harness):
    report = harness.judge(
        """
        import builtins, math, sys
        builtins.isinstance = lambda *a: True
        math.isclose = lambda *a, **k: True
        for name, module in list(sys.modules.items()):
            if name.startswith("judge"):
                for attr in dir(module):
                    if attr.startswith("check"):
                        setattr(module, attr, lambda *a, **k: None)
        def add(a, b):
            return a - b
        """
    )
    assert report.verdict is WA


@pytest.mark.parametrize("exc", ["SystemExit(0)", "KeyboardInterrupt()", "BaseException('x')"])
def test_row18_base_exceptions_inside_a_case_are_re(harness, exc):
    report = harness.judge(f"def add(a, b):\n    raise {exc}\n")
    assert report.verdict is RE


def test_row19_ignoring_sigterm_and_sigxcpu_is_tle(harness):
    report = harness.judge(
        """
        import signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        def add(a, b):
            while True:
                pass
        """
    )
    assert report.verdict is TLE


def test_row20_recursion_bomb_is_re(harness):
    report = harness.judge("def add(a, b):\n    return add(a, b) + 1\n")
    assert report.verdict is RE
    assert "RecursionError" in report.cases[0].message


def test_row20_recursion_through_c_past_the_limit_crashes_as_re(harness):
    report = harness.judge(
        """
        import sys
        sys.setrecursionlimit(10**8)
        def down(n):
            return list(map(down, [n]))   # each level goes through C: the C stack overflows
        def add(a, b):
            return down(0)
        """
    )
    assert report.verdict is RE


def test_row21_always_equal_objects_and_proxies_are_wa(harness):
    report = harness.judge(
        """
        class Liar(int):
            def __eq__(self, other):
                return True
            __hash__ = int.__hash__
        class Proxy:
            def __eq__(self, other):
                return True
            def __getattr__(self, name):
                return lambda *a, **k: True
        def add(a, b):
            return Liar(0) if a > 0 else Proxy()
        """
    )
    assert report.verdict is WA


@pytest.mark.parametrize("value", ["float('nan')", "float('inf')"])
def test_row22_nan_and_inf_are_wa(harness, value):
    report = harness.judge(f"def add(a, b):\n    return {value}\n")
    assert report.verdict is WA


def test_row23_mutations_do_not_reach_the_next_job(harness):
    poisoned = harness.judge(
        """
        import builtins, judge.run.child, sys
        builtins.int = float
        judge.run.child.serve = None
        sys.modules["cases"] = None
        def add(a, b):
            a.clear() if hasattr(a, "clear") else None
            return a + b
        """
    )
    assert poisoned.verdict is AC  # it answered correctly; only later jobs matter here
    # The harness judges the reference next on the same warm worker and requires AC.


def test_row24_replaying_the_first_answer_is_wa(harness):
    report = harness.judge(
        """
        memo = []
        def add(a, b):
            if not memo:
                memo.append(a + b)
            return memo[0]
        """
    )
    assert report.verdict is WA


def test_row25_expected_values_are_nowhere_in_the_child(harness):
    report = harness.judge(
        """
        import gc, sys
        def add(a, b):
            for obj in gc.get_objects():
                if isinstance(obj, dict) and "expected" in obj:
                    return obj["expected"]
            frame = sys._getframe()
            while frame is not None:
                if "expected" in frame.f_locals:
                    return frame.f_locals["expected"]
                frame = frame.f_back
            try:
                with open("/proc/1/mem", "rb") as f:
                    f.read(1)
            except OSError:
                pass
            return None
        """
    )
    assert report.verdict is WA


def test_row28_planted_symlinks_and_fifos_are_not_followed(harness):
    report = harness.judge(
        """
        import os
        os.symlink("/etc/shadow", "result.json")
        os.symlink("/", "escape")
        os.mkfifo("observation")
        os.mkfifo("/tmp/fifo")
        def add(a, b):
            return a + b
        """
    )
    assert report.verdict is AC


def test_row29_a_pickle_observation_is_never_unpickled(harness, tmp_path):
    marker = tmp_path / "unpickled"
    report = harness.judge(
        f"""
        import os, pickle
        class Boom:
            def __reduce__(self):
                return (os.system, ("touch {marker}",))
        def add(a, b):
            return pickle.dumps(Boom())
        """
    )
    assert report.verdict in (RE, WA)
    assert not marker.exists()


@pytest.mark.parametrize(
    "source, reason",
    [
        (b"x = 1\n" * 20000, "limit"),
        (b"def add(a, b):\n    return a + b  # \xff\xfe\n", "UTF-8"),
        (b"def add(a, b):\n    return a + b\x00\n", "NUL"),
    ],
)
def test_row30_bad_source_is_rejected_before_running(harness, source, reason):
    with pytest.raises(SourceError, match=reason):
        judge_source(harness.problem, source, launcher=harness.launcher)
    assert harness.launcher.jobs == []  # rejected before any sandbox was asked for


def test_row31_invalid_utf8_and_ansi_output_is_kept_as_text(harness):
    report = harness.judge(
        """
        import os
        os.write(1, b"\\xff\\xfe\\x1b[31mred\\x1b[0m\\x1b]0;title\\x07")
        def add(a, b):
            return a + b
        """
    )
    assert report.verdict is AC
    assert isinstance(report.stdout, str) and "\ufffd" in report.stdout


def test_row32_shadow_modules_next_to_the_submission_are_not_imported(harness):
    report = harness.judge(
        """
        import os
        for name in ("json.py", "torch.py", "sitecustomize.py", "usercustomize.py"):
            with open(name, "w") as f:
                f.write("raise SystemExit('shadow module imported')\\n")
        with open("evil.pth", "w") as f:
            f.write("import os; os._exit(7)\\n")
        import json, importlib
        importlib.invalidate_caches()
        def add(a, b):
            import json
            return json.loads(json.dumps(a + b))
        """
    )
    assert report.verdict is AC


def test_row33_files_and_shared_memory_do_not_reach_the_next_job(harness):
    marker = uuid.uuid4().hex
    first = harness.judge(
        f"""
        from multiprocessing import shared_memory
        for path in ("/tmp/{marker}", "/dev/shm/{marker}", "{marker}"):
            with open(path, "w") as f:
                f.write("left behind")
        shm = shared_memory.SharedMemory(name="m{marker[:8]}", create=True, size=4096)
        def add(a, b):
            return a + b
        """
    )
    assert first.verdict is AC
    second = harness.judge(
        f"""
        import os
        left = [p for p in ("/tmp/{marker}", "/dev/shm/{marker}", "{marker}",
                            "/dev/shm/m{marker[:8]}") if os.path.exists(p)]
        def add(a, b):
            return a + b if not left else -1
        """
    )
    assert second.verdict is AC


def test_row37_missing_import_is_ce_with_its_line(harness):
    report = harness.judge("import os\n\nimport no_such_module_here\ndef add(a, b):\n    pass\n")
    assert report.verdict is CE
    assert report.compile_error is not None and report.compile_error["line"] == 3


def test_row37_syntax_error_is_ce_with_its_line(harness):
    report = harness.judge("def add(a, b):\n    return a +\n")
    assert report.verdict is CE
    assert report.compile_error is not None and report.compile_error["line"] == 2


def test_a_job_sees_only_its_own_processes(harness):
    report = harness.judge(
        """
        import os
        print("PIDS", sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
        def add(a, b):
            return a + b
        """
    )
    assert report.verdict is AC
    assert report.stdout.split("PIDS ", 1)[1].splitlines()[0] == "[1]"


def test_the_job_runs_unprivileged_with_no_capabilities(harness):
    report = harness.judge(
        """
        import os
        status = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines())
        print("ID", os.getuid(), status["CapEff"].strip(), status["Seccomp"].strip())
        def add(a, b):
            return a + b
        """
    )
    uid, caps, seccomp = report.stdout.split("ID ", 1)[1].split()[:3]
    assert int(uid) != 0 and int(caps, 16) == 0 and seccomp == "2"
    assert os.geteuid() != 0 or int(uid) == harness.uid


def test_seccomp_denies_namespaces_mounts_ptrace_and_kernel_interfaces(harness):
    report = harness.judge(
        """
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        nr = {"ptrace": 101, "bpf": 321, "io_uring_setup": 425, "keyctl": 250,
              "userfaultfd": 323, "unshare": 272, "setns": 308}
        calls = {
            "unshare": lambda: libc.syscall(nr["unshare"], 0x10000000),
            "setns": lambda: libc.syscall(nr["setns"], 0, 0),
            "mount": lambda: libc.mount(b"none", b"/tmp", b"tmpfs", 0, None),
            "ptrace": lambda: libc.syscall(nr["ptrace"], 0, 0, 0, 0),
            "bpf": lambda: libc.syscall(nr["bpf"], 0, 0, 0),
            "io_uring_setup": lambda: libc.syscall(nr["io_uring_setup"], 1, 0),
            "keyctl": lambda: libc.syscall(nr["keyctl"], 0, 0),
            "userfaultfd": lambda: libc.syscall(nr["userfaultfd"], 0),
            "clone_newuser": lambda: libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0),
        }
        results = {}
        for name, call in calls.items():
            ctypes.set_errno(0)
            rc = call()
            results[name] = (rc, ctypes.get_errno())
        print("DENIED", sorted(n for n, (rc, err) in results.items() if rc == -1 and err == 1))
        def add(a, b):
            return a + b
        """
    )
    assert report.verdict is AC
    denied = report.stdout.split("DENIED ", 1)[1].splitlines()[0]
    for name in (
        "unshare",
        "setns",
        "mount",
        "ptrace",
        "bpf",
        "io_uring_setup",
        "keyctl",
        "userfaultfd",
        "clone_newuser",
    ):
        assert f"'{name}'" in denied, (name, denied)


def test_row40_a_huge_tensor_frame_is_ole_and_never_buffered_by_the_parent(harness):
    """One 256 MiB tensor frame per case for a problem whose answers are ints (issue 10)."""
    import tracemalloc

    tracemalloc.start()
    try:
        report = harness.judge(
            """
            import json, os, struct
            def add(a, b):
                header = json.dumps({"type": "result", "name": "small",
                                     "observation": {"__tensor__": 0},
                                     "tensors": [{"dtype": "float32", "shape": [64, 1024, 1024]}]})
                os.write(4, b"JDG1" + struct.pack(">I", len(header)) + header.encode())
                chunk = bytes(1 << 20)
                for _ in range(256):
                    os.write(4, chunk)
            """
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.verdict is OLE
    assert peak < 32 << 20, f"the parent allocated {peak >> 20} MiB"


def test_row41_garbage_after_the_last_answer_is_re_not_ie(harness):
    report = harness.judge(
        """
        import io, os, sys
        CASES = 7  # the harness problem's
        class Out(io.StringIO):
            calls = 0
            after_last = 0
            def flush(self):
                # The judge flushes with each case's answer and once more as it exits: the
                # second flush after the last case is the exit's, after every answer.
                if Out.calls == CASES:
                    Out.after_last += 1
                    if Out.after_last == 2:
                        os.write(4, b"not a frame" * 10)
        sys.stdout = Out()
        def add(a, b):
            Out.calls += 1
            return a + b
        """
    )
    assert report.verdict is RE
    assert "after its last answer" in str(report.compile_error)


def test_row42_source_too_deep_to_compile_is_ce_without_the_judges_traceback(harness):
    report = harness.judge("x = " + "-" * 30000 + "1\ndef add(a, b):\n    return a + b\n")
    assert report.verdict is CE
    text = json.dumps(report.to_dict())
    assert "nested too deeply" in text and "/opt/judge" not in text


def test_row43_hidden_cases_printing_their_arguments_is_withheld(harness):
    report = judge_source(
        harness.problem,
        "def add(a, b):\n    print('ARGS', a, b)\n    return a + b\n",
        seed=123456789,
        launcher=harness.launcher,
    )
    learner = report.to_dict()
    assert report.verdict is AC and learner["output_withheld"] is True
    assert learner["stdout"].count("ARGS") == 2
