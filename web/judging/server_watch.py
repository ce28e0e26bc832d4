"""A judging process the server started exits when the server does, even after a kill -9
(the unsafe-local pool's processes, the sandbox's judge process)."""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Callable


def watch_server(server_pid: int, before_exit: Callable[[], object] | None = None) -> None:
    """In a judging process the server started: once the server is gone, even after a
    kill -9, call `before_exit` (kill the running job) and exit (a thread that watches)."""
    threading.Thread(
        target=_exit_with, args=(server_pid, before_exit), name="server-watch", daemon=True
    ).start()


def _exit_with(server_pid: int, before_exit: Callable[[], object] | None) -> None:
    """A pidfd becomes readable when the server exits. Not PR_SET_PDEATHSIG: that fires when
    the *thread* that started this process ends, and pools are started from job threads."""
    try:
        pidfd: int | None = os.pidfd_open(server_pid)
    except (OSError, AttributeError):  # before Linux 5.3: poll our parent instead
        pidfd = None
    while os.getppid() == server_pid:
        if pidfd is None:
            time.sleep(0.2)
        else:
            select.select([pidfd], [], [])
    if before_exit is not None:
        before_exit()
    os._exit(1)
