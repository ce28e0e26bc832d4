"""A local child started with `os.posix_spawn` and waited on through a pidfd.

Why not `subprocess`: `judge run` starts one child and waits for it, and importing
`subprocess` (with `threading`, `locale` and `selectors`' siblings) was about 4 ms of each
run's 100, where the goal is three bare interpreter starts. Popen also forks the parent
before exec; posix_spawn uses vfork semantics in glibc, so no page tables are copied.

What Popen did for `judge.run.launch.LocalProcess`, done here:
- stdin from /dev/null, stdout and stderr into pipes, the request and result ends at 3
  and 4, and no other descriptor of the parent's: every descriptor Python opens is
  close-on-exec, and the child's boot code closes anything above 4 that a parent was given
  inheritable by its own parent (`boot_closing_inherited`);
- a session of its own (POSIX_SPAWN_SETSID), so a kill of its process group reaches
  everything it started;
- SIGPIPE and SIGXFSZ back to their defaults (Python ignores both);
- the working folder: posix_spawn has no cwd, so the boot code changes into it first.

Only where the kernel has pidfds (Linux 5.3) and glibc has POSIX_SPAWN_SETSID: elsewhere,
and for a child that runs as another user, LocalProcess keeps Popen (`available()`).
"""

from __future__ import annotations

import os
import select
import signal
from collections.abc import Sequence

CHILD_FDS = (3, 4)  # where the child finds the request read end and the result write end


def available() -> bool:
    """Whether this platform spawns with a new session and waits through a pidfd."""
    return all(hasattr(os, name) for name in ("posix_spawn", "pidfd_open", "POSIX_SPAWN_DUP2"))


def boot_closing_inherited(workdir: str) -> str:
    """Python the child runs before anything else: into its folder, and every descriptor
    above the result end closed (one close_range call where glibc has it)."""
    return f"import os; os.chdir({workdir!r}); os.closerange(5, os.sysconf('SC_OPEN_MAX')); "


class SpawnedChild:
    """One spawned child: its pid, the read ends of its stdout and stderr, its exit."""

    __slots__ = ("_pidfd", "pid", "returncode", "stderr_fd", "stdout_fd")

    def __init__(self, argv: Sequence[str], env: dict[str, str], request: int, result: int) -> None:
        """Spawn `argv` with `env`; `request` and `result` become the child's 3 and 4."""
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        # Every source above 4 first, so that no dup2 below overwrites a source still to come
        # (a parent started with 0-2 closed gets its pipes there), and none is dup2'd onto
        # itself (which would leave it close-on-exec).
        sources = (out_w, err_w, request, result)
        moved = [fd if fd > 4 else _dup_above(fd, 5) for fd in sources]
        try:
            targets = (1, 2, *CHILD_FDS)
            actions = [
                (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
                *((os.POSIX_SPAWN_DUP2, fd, to) for fd, to in zip(moved, targets, strict=True)),
            ]
            self.pid = os.posix_spawn(
                argv[0], list(argv), env, file_actions=actions, setsid=True,
                setsigdef=(signal.SIGPIPE, signal.SIGXFSZ),
            )  # fmt: skip
        except BaseException:
            for fd in (out_r, err_r):
                os.close(fd)
            raise
        finally:
            copies = (new for new, old in zip(moved, sources, strict=True) if new != old)
            for fd in {out_w, err_w, *copies}:
                os.close(fd)
        self.stdout_fd, self.stderr_fd = out_r, err_r
        self.returncode: int | None = None
        try:
            self._pidfd = os.pidfd_open(self.pid)
        except ProcessLookupError:  # already exited and reaped: a parent ignoring SIGCHLD
            self._pidfd = -1

    def wait(self, timeout: float | None) -> int | None:
        """The exit as Popen.returncode says it (-N: killed by signal N), or None if it was
        still running after `timeout` seconds. Reaps the child once it has exited."""
        if self.returncode is not None:
            return self.returncode
        if timeout is not None and self._pidfd >= 0:
            readable, _, _ = select.select([self._pidfd], [], [], max(0.0, timeout))
            if not readable:
                return None
        try:
            _, status = os.waitpid(self.pid, 0)
            self.returncode = os.waitstatus_to_exitcode(status)
        except ChildProcessError:
            # Reaped by the kernel already (SIGCHLD ignored): how it ended is lost, as Popen
            # says in that case too.
            self.returncode = 0
        if self._pidfd >= 0:
            os.close(self._pidfd)
            self._pidfd = -1
        return self.returncode

    def close_pipes(self) -> None:
        for fd in (self.stdout_fd, self.stderr_fd):
            if fd >= 0:
                os.close(fd)
        self.stdout_fd = self.stderr_fd = -1


def _dup_above(fd: int, floor: int) -> int:
    import fcntl  # noqa: PLC0415 (only where a parent started with its low descriptors closed)

    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, floor)
