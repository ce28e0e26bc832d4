"""The unsafe-local backend's launcher: the core's plain child process, without a sandbox.

Covers, when the server runs as root: the child runs as the unprivileged `judge-sandbox`
user (no supplementary groups, umask 077, its own working folder), with an interpreter
that user can execute (the runner's mirror of a Python kept under /root); the server
makes the instance folder 0700, its secrets and the database 0600 and the problems
folder 0700 (web.store.filemodes.hide_from), and refuses to start if one stays readable.

Does not cover: a server that is not root runs the child as itself, and the child can
read everything the server can (the secret key, the seed, the database, reference.py).
In every case the child has the host's network, file system and process table: it can
leave a process behind that outlives its job and watches the next jobs of the same uid.
That is why `judge serve` takes this backend only on a loopback address and warns.
"""

from __future__ import annotations

import os
import sys
import sysconfig

from judge.problem.device import Device, DevicePolicy, choose_device, gpu_nodes
from judge.problem.limits import Limits
from judge.problem.spec import ProblemSpec
from judge.run.launch import SESSION_ACCOUNTING, ChildUser, LocalProcess
from judge.run.workdir import WorkDir

_RUNNING: set[JobProcess] = set()  # this pool process's live jobs, killed if the server dies


def child_user() -> ChildUser | None:
    """Who runs submitted code: `judge-sandbox` when we are root (created if missing), else us."""
    if os.geteuid() != 0:
        return None
    from runner.identity import sandbox_identity
    from runner.layout import build_layout

    identity = sandbox_identity()
    # The layout mirrors a Python that the sandbox user cannot reach (pyenv under /root) and
    # checks that the venv and judge/ are readable by that user.
    layout = build_layout(identity)
    base = next(b.source for b in layout.binds if b.target == sys.base_prefix)
    python = os.path.join(base, "bin", f"python{sys.version_info.major}.{sys.version_info.minor}")
    sites: tuple[str, ...] = ()
    if sys.prefix != sys.base_prefix:  # a venv: the torch tier imports its packages
        sites = tuple(dict.fromkeys(sysconfig.get_path(k) for k in ("purelib", "platlib")))
    return ChildUser(identity.uid, identity.gid, python, sites)


class JobProcess(LocalProcess):
    """A local child with a working folder of its own, owned by the child's user."""

    def __init__(
        self,
        problem: ProblemSpec,
        limits: Limits,
        user: ChildUser | None,
        device: Device = Device.CPU,
    ) -> None:
        self._own_dir = WorkDir()
        if user is not None:
            os.chown(self._own_dir.path, user.uid, user.gid)
        try:
            super().__init__(problem, limits, self._own_dir.path, user, device)
        except BaseException:
            self._own_dir.remove()
            raise
        _RUNNING.add(self)

    def cleanup(self) -> None:
        super().cleanup()
        _RUNNING.discard(self)
        self.remove_folder()

    def remove_folder(self) -> None:
        self._own_dir.remove()


class PoolLauncher:
    """The launcher of one judging pool process (web.judging.core_seam.LocalJudge). Nothing
    hides a GPU from its children: `policy` only says where the driver puts its tensors."""

    name = "local"
    cpu_accounting = SESSION_ACCOUNTING

    def __init__(self, user: ChildUser | None, policy: DevicePolicy | None = None) -> None:
        self.user = user
        self.policy = policy or DevicePolicy.AUTO

    def device_for(self, problem: ProblemSpec) -> Device:
        return choose_device(self.policy, problem.devices, bool(gpu_nodes()), problem.slug)

    def launch(
        self, problem: ProblemSpec, limits: Limits, device: Device = Device.CPU
    ) -> JobProcess:
        return JobProcess(problem, limits, self.user, device)

    def launch_trusted(
        self, problem: ProblemSpec, limits: Limits, device: Device = Device.CPU
    ) -> JobProcess:
        return JobProcess(problem, limits, self.user, device)  # a session of its own, as a job's


def kill_running() -> None:
    """SIGKILL the jobs this process runs and remove their folders (its server died)."""
    for job in list(_RUNNING):
        job.kill()
        job.remove_folder()
