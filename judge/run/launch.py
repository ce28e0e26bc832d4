"""The local launcher: a plain child process per run (see judge.run.interfaces for the contract).

The server's runner provides a sandboxed launcher with the same interface; the core
only needs four file descriptors and a way to kill and reap everything the job started.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

from judge.grading.outcome import ExitInfo
from judge.problem.device import Device, DevicePolicy, choose_device, gpu_nodes
from judge.problem.limits import Limits
from judge.problem.spec import ProblemSpec
from judge.run.spawned_child import CHILD_FDS, SpawnedChild, available, boot_closing_inherited
from judge.run.workdir import WorkDir

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    import subprocess

ROOT = Path(__file__).resolve().parents[2]  # the folder holding the judge package
SESSION_ACCOUNTING = "the child's session, walked in /proc"


class ChildUser:
    """Another identity for the child: a root server's unprivileged user, the interpreter
    that user can execute, and the site-packages folders the torch tier needs."""

    __slots__ = ("gid", "python", "site_dirs", "uid")

    def __init__(self, uid: int, gid: int, python: str, site_dirs: tuple[str, ...] = ()) -> None:
        self.uid, self.gid, self.python, self.site_dirs = uid, gid, python, site_dirs


def child_command(
    request_fd: int,
    result_fd: int,
    limits: Limits,
    tier: str,
    user: ChildUser | None = None,
    device: Device = Device.CPU,
    workdir: Path | None = None,
) -> list[str]:
    """`python -I` running the child loop; `-S` too for the browser tier (no site-packages).
    With `workdir`, the child changes into it and closes every descriptor above 4 itself
    (a spawned child: judge/run/spawned_child.py)."""
    flags = ["-I", "-S"] if tier == "browser" else ["-I"]
    python, site_dirs = (user.python, user.site_dirs) if user else (sys.executable, ())
    sites = "".join(f"site.addsitedir({d!r}); " for d in site_dirs if tier != "browser")
    config = child_config(limits, tier, device)
    boot = (
        (boot_closing_inherited(str(workdir)) if workdir is not None else "")
        + f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
        + (f"import site; {sites}" if sites else "")
        + "\n"
        + "".join(_PRELOAD_LINES.format(module=m) for m in TIER_PRELOAD.get(tier, ()))
        + f"from judge.run.child_main import main; main({request_fd}, {result_fd}, {config!r})"
    )
    return [python, *flags, "-c", boot]


# What a child of a tier imports as soon as it starts, before the submission arrives.
# A torch problem's parent sends the submission only once it has built the cases, which
# means its own `import torch` (about a second on two cores); left to the submission's
# `import torch`, the child's would begin only then, the two one after the other. Started
# here, they run side by side: an offline run of attention-decode went from 1.8 s to 1.0 s
# (2-core Intel Xeon, 2026-12-06). Only torch itself: a problem's withheld parts of
# mini_llm are hidden from the moment the submission loads, so nothing of mini_llm may be
# imported before. The core itself never imports torch (it runs in Pyodide too): this is
# the child's boot code, and a torch that fails to import is the submission's own import
# error to report, so a failure here is left for it to meet.
TIER_PRELOAD: dict[str, tuple[str, ...]] = {"torch": ("torch",)}
_PRELOAD_LINES = "try:\n    import {module}\nexcept Exception:\n    pass\n"


def child_config(limits: Limits, tier: str, device: Device = Device.CPU) -> str:
    """What judge.run.child_main.main reads: the limits it applies, the tier, the device."""
    return json.dumps(
        {
            "limits": limits.to_dict()
            | {"max_file_bytes": limits.max_file_bytes, "max_open_files": limits.max_open_files},
            "tier": tier,
            "device": device.value,
        }
    )


class LocalProcess:
    """A plain child process in its own session; the learner's own machine, no sandbox.

    With `user`, the child runs as that uid and gid (no supplementary groups, umask 077):
    a root server's way to keep files only root may read out of the child's reach."""

    def __init__(
        self,
        problem: ProblemSpec,
        limits: Limits,
        workdir: Path,
        user: ChildUser | None = None,
        device: Device = Device.CPU,
    ) -> None:
        req_r, self.request_fd = os.pipe()
        self.result_fd, res_w = os.pipe()
        self._spawned: SpawnedChild | None = None
        self._popen: subprocess.Popen[bytes] | None = None
        try:
            if user is None and available():
                argv = child_command(*CHILD_FDS, limits, problem.tier, None, device, workdir)
                self._spawned = SpawnedChild(argv, child_environment(), req_r, res_w)
                self.pid = self._spawned.pid
                self.stdout_fd, self.stderr_fd = self._spawned.stdout_fd, self._spawned.stderr_fd
            else:
                self._popen = _popen(req_r, res_w, problem, limits, workdir, user, device)
                assert self._popen.stdout is not None and self._popen.stderr is not None
                self.pid = self._popen.pid
                self.stdout_fd = self._popen.stdout.fileno()
                self.stderr_fd = self._popen.stderr.fileno()
        except BaseException:
            for fd in (self.request_fd, self.result_fd):
                os.close(fd)
            raise
        finally:
            os.close(req_r)
            os.close(res_w)
        self._workdir = workdir

    def kill(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def wait(self, timeout: float) -> ExitInfo:
        code = self._wait(timeout)
        if code is None:
            self.kill()
            code = self._wait(None)
            assert code is not None  # a wait without a timeout returns only with the exit
        if code < 0:
            sig = -code
            return ExitInfo(None, sig, cpu_limit=sig == signal.SIGXCPU)
        return ExitInfo(code, None)

    def _wait(self, timeout: float | None) -> int | None:
        """The exit code (-N for signal N), or None if it was still running after `timeout`."""
        if self._spawned is not None:
            return self._spawned.wait(timeout)
        assert self._popen is not None
        import subprocess  # noqa: PLC0415 (only a child run as another user is a Popen)

        try:
            return self._popen.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def cpu_seconds(self) -> float | None:
        """The child's whole session (it was started in its own): its helpers count too."""
        from judge.run.cpu_clock import session_cpu_seconds

        return session_cpu_seconds(self.pid)

    def pause(self) -> None:
        self._signal_session(signal.SIGSTOP)

    def resume(self) -> None:
        self._signal_session(signal.SIGCONT)

    def _signal_session(self, sig: signal.Signals) -> None:
        # Its own process group from the start (a new session): helpers it forked too.
        try:
            os.killpg(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def close_requests(self) -> None:
        if self.request_fd >= 0:
            os.close(self.request_fd)
            self.request_fd = -1

    def cleanup(self) -> None:
        self.kill()
        self._wait(5.0)  # reap, so no zombie or ResourceWarning is left behind
        self.close_requests()
        if self.result_fd >= 0:
            os.close(self.result_fd)
            self.result_fd = -1
        if self._spawned is not None:
            self._spawned.close_pipes()
        elif self._popen is not None:
            for stream in (self._popen.stdout, self._popen.stderr):
                if stream is not None:
                    stream.close()


def _popen(
    request: int,
    result: int,
    problem: ProblemSpec,
    limits: Limits,
    workdir: Path,
    user: ChildUser | None,
    device: Device,
) -> subprocess.Popen[bytes]:
    """The child through Popen: as another user (a root server's), or where this platform
    cannot spawn it (judge/run/spawned_child.py says which)."""
    import subprocess  # noqa: PLC0415 (about 4 ms that a learner's `judge run` never pays)

    return subprocess.Popen(
        child_command(request, result, limits, problem.tier, user, device),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=(request, result),
        cwd=workdir,
        env=child_environment(),
        start_new_session=True,  # its own process group, so kill() reaches grandchildren
        user=user.uid if user else None,
        group=user.gid if user else None,
        extra_groups=[] if user else None,
        umask=0o077 if user else -1,
    )


def child_environment() -> dict[str, str]:
    # A small, explicit environment: nothing of the parent's secrets leaks into the child.
    keep = ("PATH", "LANG", "LC_ALL", "HOME", "SYSTEMROOT", "OMP_NUM_THREADS")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONHASHSEED"] = "0"
    # One thread for torch's kernels, as every sandboxed job has: times and CPU-time rules
    # then mean the same thing here as on the server.
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


class LocalLauncher:
    """Runs each job as a plain child process with rlimits: for a learner's own machine.
    Nothing hides a GPU from a local child: `policy` only chooses where the driver runs."""

    name = "local"
    cpu_accounting = SESSION_ACCOUNTING

    def __init__(
        self, workdir: Path, user: ChildUser | None = None, policy: DevicePolicy | None = None
    ) -> None:
        self._workdir = workdir
        self._user = user
        self.policy = policy or DevicePolicy.AUTO

    def device_for(self, problem: ProblemSpec) -> Device:
        return choose_device(self.policy, problem.devices, bool(gpu_nodes()), problem.slug)

    def launch(
        self, problem: ProblemSpec, limits: Limits, device: Device = Device.CPU
    ) -> LocalProcess:
        return LocalProcess(problem, limits, self._workdir, self._user, device)

    def launch_trusted(
        self, problem: ProblemSpec, limits: Limits, device: Device = Device.CPU
    ) -> LocalProcess:
        # A session of its own, as every job here has: the scheduler's autogroups weigh the
        # two alike.
        return LocalProcess(problem, limits, self._workdir, self._user, device)


class StartedLauncher:
    """A local launcher whose child is started the moment it is made, in a working folder
    of its own: `judge run` makes it before it imports what judging the cases needs, so the
    child's interpreter starts while the parent imports, not after. The first launch() for
    the same problem, limits and device hands that child over; close() ends it if no run
    took it, then removes the folder. With `start` False nothing starts early (a run under a
    CPU rule times the reference first, with nothing else running)."""

    name = LocalLauncher.name
    cpu_accounting = SESSION_ACCOUNTING

    def __init__(
        self,
        problem: ProblemSpec,
        limits: Limits,
        policy: DevicePolicy | None = None,
        start: bool = True,
    ) -> None:
        self._workdir = WorkDir()
        self._started: LocalProcess | None = None
        try:
            self._local = LocalLauncher(self._workdir.path, policy=policy)
            # Chosen now, as judging will choose it: DeviceUnavailable before any child starts.
            self._device = self._local.device_for(problem)
            if start:
                self._started = self._local.launch(problem, limits, self._device)
        except BaseException:
            self._workdir.remove()
            raise
        self._problem, self._limits = problem, limits

    def device_for(self, problem: ProblemSpec) -> Device:
        return self._local.device_for(problem)

    def launch(
        self, problem: ProblemSpec, limits: Limits, device: Device = Device.CPU
    ) -> LocalProcess:
        started, self._started = self._started, None
        same = problem is self._problem and limits == self._limits and device is self._device
        if started is not None and same:
            return started
        if started is not None:  # started for another run: never reuse it for this one
            started.cleanup()
        return self._local.launch(problem, limits, device)

    def launch_trusted(
        self, problem: ProblemSpec, limits: Limits, device: Device = Device.CPU
    ) -> LocalProcess:
        return self._local.launch_trusted(problem, limits, device)

    def close(self) -> None:
        started, self._started = self._started, None
        if started is not None:
            started.cleanup()
        self._workdir.remove()
