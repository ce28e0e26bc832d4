"""How the `judge` command's process ends once its command has returned.

A normal interpreter exit frees every module and object one by one. Nothing of that
is needed by anyone once the command has finished, and it is not cheap: 5 ms of a 48 ms
`judge run` of a browser-tier problem (10% of it), and about 170 ms of a torch-tier
run, whose parent has imported torch (2-core Intel Xeon, 2026-12-06). So the process
does what a normal exit does that someone could notice, and then leaves with `os._exit`:

- the exit handlers run (`atexit`: logging's flush, temporary folders, torch's own);
- stdout and stderr are flushed (a reader that left is not an error here: the command
  already flushed stdout and reported a reader that left in its exit code);
- the exit code is the command's.

The normal exit is kept where skipping the teardown could lose something: while a
thread that is not a daemon still runs (a normal exit waits for it), under a profiler,
tracer or debugger (`python -m cProfile judge.py ...` prints its table after the script
returns, not from an exit handler), or where this Python has no way to run the exit
handlers early.
"""

from __future__ import annotations

import atexit
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import NoReturn


def end_process(code: int) -> NoReturn:
    """Leave the process with `code`, skipping the interpreter's teardown where that is safe."""
    # CPython's own exit runs the handlers through this function; it has been there since
    # Python 3.0 but is not public, so its absence falls back to the normal exit.
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    watched = sys.getprofile() is not None or sys.gettrace() is not None
    if run_exit_handlers is None or watched or _other_threads_running():
        sys.exit(code)
    run_exit_handlers()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass  # a reader that left, or a stream the command closed: nothing more to say
    os._exit(code)


def _other_threads_running() -> bool:
    """Whether a thread that a normal exit would wait for is still running."""
    threading = sys.modules.get("threading")
    if threading is None:
        return False  # no thread was started through the threading module
    main = threading.main_thread()
    return any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate())
