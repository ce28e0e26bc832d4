"""Per-job cgroups: memory, process count and CPU share for everything a job starts.

Job cgroups are created *below the runner's own cgroup* (so a job can never get more
than the runner was given), one per job, removed when the job ends. cgroup v2 is used
when the unified hierarchy carries the memory controller; otherwise the v1 hierarchies
(memory, pids, cpu, cpuacct) as this container has them. The CPU controller caps a job at
one core however many processes or threads it starts, so a busy job cannot slow the
jobs next to it; total CPU time is bounded by the wall clock and RLIMIT_CPU. The job's CPU
time as the kernel counts it (cpu.stat on v2, cpuacct.usage on v1, exited processes
included) is what a problem's CPU-time rule reads. When
neither version is writable the runner still works: rlimits and the job's pid
namespace remain, and `judge runner doctor` says that whole-job limits are off.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from judge.run.cpu_clock import cgroup_cpu_seconds, cpuacct_seconds

CGROUP_ROOT = Path("/sys/fs/cgroup")
# cpuacct: the job's CPU time, counted by the kernel for every task that ever ran in it.
# freezer: the job stopped as one unit (a fork while it freezes is frozen too).
_V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct", "freezer")
FREEZE_WAIT_S = 2.0  # how long freeze() waits for the kernel to report every task frozen
V2_CONTROLLERS = ("cpu", "memory", "pids")
RUNNER_LEAF = "judge-runner"  # v2: where the runner moves itself so its cgroup may delegate
CPU_PERIOD_US = 100_000


@dataclass(frozen=True, slots=True)
class CgroupSupport:
    """What this host lets the runner do; `dirs` maps controller -> parent directory for jobs."""

    version: int  # 2, 1, or 0 for none
    dirs: tuple[tuple[str, Path], ...]
    reason: str  # why this choice (shown by doctor)

    @property
    def controllers(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.dirs)

    @property
    def freezer(self) -> str:
        """How a job is stopped as one unit here, in words (doctor prints it): the kernel's
        freezer, or none (then runner/pidns.py's walk sends SIGSTOP process by process)."""
        if self.version == 2:
            return "cgroup v2 freezer (cgroup.freeze)"
        if "freezer" in self.controllers:
            return "cgroup v1 freezer (freezer.state)"
        return (
            "none: SIGSTOP to each process of the job's pid namespace, pass by pass (a process "
            "that forks and exits between two passes can run while the job is paused)"
        )


def detect() -> CgroupSupport:
    """Find a writable place for job cgroups, preferring v2; probe by creating one."""
    if os.geteuid() != 0:
        return CgroupSupport(0, (), "not root: job cgroups off (rlimits and pid namespace only)")
    own = _own_paths()
    v2 = detect_v2(own.get(""))
    if v2 is not None:
        return v2
    return _detect_v1(own)


def _own_paths() -> dict[str, str]:
    """Map hierarchy key ("" for v2, else each v1 controller) to this process's cgroup path."""
    paths: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            paths[name] = path
    return paths


def detect_v2(own: str | None, root: Path = CGROUP_ROOT) -> CgroupSupport | None:
    """The v2 choice for a process in cgroup `own` of the unified hierarchy at `root`
    (None: no v2 there); delegates the job controllers when the runner is alone in `own`."""
    if own is None or not (root / "cgroup.controllers").exists():
        return None
    parent = root / own.lstrip("/")
    if parent.name == RUNNER_LEAF:  # an earlier launcher in this process already delegated
        parent = parent.parent
    available = set((parent / "cgroup.controllers").read_text().split())
    if not set(V2_CONTROLLERS) <= available:
        missing = ", ".join(sorted(set(V2_CONTROLLERS) - available))
        return CgroupSupport(0, (), f"cgroup v2 at {parent} lacks controllers: {missing}")
    enabled = set((parent / "cgroup.subtree_control").read_text().split())
    if not set(V2_CONTROLLERS) <= enabled:
        problem = _delegate(parent)
        if problem:
            return CgroupSupport(0, (), problem)
    if not _probe(parent):
        return CgroupSupport(0, (), f"cgroup v2 at {parent} is not writable")
    return CgroupSupport(2, (("unified", parent),), f"cgroup v2 below {parent}")


def _delegate(parent: Path) -> str | None:
    """Enable the job controllers below `parent`; returns why not, or None on success.

    cgroup v2 will not enable controllers for the children of a cgroup that holds
    processes itself. When the runner is the only process there (a service started in
    a cgroup of its own), it moves itself into a leaf, `parent/judge-runner`, first.
    """
    procs = set((parent / "cgroup.procs").read_text().split())
    if procs - {str(os.getpid())}:
        return (
            f"cgroup v2 at {parent} holds other processes; start the runner in a cgroup "
            "of its own (for example a systemd service with Delegate=yes)"
        )
    try:
        if procs:
            leaf = parent / RUNNER_LEAF
            leaf.mkdir(exist_ok=True)
            (leaf / "cgroup.procs").write_text(str(os.getpid()))
        (parent / "cgroup.subtree_control").write_text(
            " ".join(f"+{name}" for name in V2_CONTROLLERS)
        )
    except OSError as exc:
        return f"cgroup v2 at {parent} cannot delegate {', '.join(V2_CONTROLLERS)}: {exc}"
    return None


def _detect_v1(own: dict[str, str]) -> CgroupSupport:
    dirs: list[tuple[str, Path]] = []
    for name in _V1_CONTROLLERS:
        mount = CGROUP_ROOT / name
        if name not in own or not (mount / "cgroup.procs").exists():
            continue
        parent = mount / own[name].lstrip("/")
        if _probe(parent):
            dirs.append((name, parent))
    if not any(name == "memory" for name, _ in dirs):
        return CgroupSupport(0, (), "no writable cgroup memory controller (v2 or v1)")
    names = ", ".join(name for name, _ in dirs)
    return CgroupSupport(1, tuple(dirs), f"cgroup v1 controllers: {names}")


def _probe(parent: Path) -> bool:
    probe = parent / f"judge-probe-{uuid.uuid4().hex[:8]}"
    try:
        probe.mkdir()
        probe.rmdir()
        return True
    except OSError:
        return False


def sweep_stale(support: CgroupSupport, older_than_s: float = 600.0) -> int:
    """Remove empty job cgroups left by a runner that died; returns how many went.

    Only old ones: another runner on this host may have just created one it has not
    filled yet. rmdir fails on a cgroup that still holds processes, so none is cut short.
    """
    removed = 0
    cutoff = time.time() - older_than_s
    for _, parent in support.dirs:
        for path in parent.glob("judge-job-*"):
            try:
                if path.stat().st_mtime < cutoff:
                    path.rmdir()
                    removed += 1
            except OSError:
                continue
    return removed


class JobCgroup:
    """One job's cgroup(s): limits set at creation, pids added once, removed at the end."""

    def __init__(self, support: CgroupSupport, memory_bytes: int, max_pids: int) -> None:
        self.support = support
        self.memory_bytes = memory_bytes
        self.name = f"judge-job-{uuid.uuid4().hex[:12]}"
        self.dirs = {controller: parent / self.name for controller, parent in support.dirs}
        made: set[Path] = set()
        for path in self.dirs.values():
            # Co-mounted v1 controllers (cpu,cpuacct) are one directory under two names.
            if path.parent.resolve() not in made:
                path.mkdir()
                made.add(path.parent.resolve())
        self._set_limits(memory_bytes, max_pids)

    def _set_limits(self, memory_bytes: int, max_pids: int) -> None:
        if self.support.version == 2:
            unified = self.dirs["unified"]
            (unified / "memory.max").write_text(str(memory_bytes))
            (unified / "memory.swap.max").write_text("0")
            (unified / "pids.max").write_text(str(max_pids))
            (unified / "cpu.max").write_text(f"{CPU_PERIOD_US} {CPU_PERIOD_US}")
            return
        memory = self.dirs["memory"]
        (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
        memsw = memory / "memory.memsw.limit_in_bytes"
        if memsw.exists():  # no swapping around the limit
            memsw.write_text(str(memory_bytes))
        if "pids" in self.dirs:
            (self.dirs["pids"] / "pids.max").write_text(str(max_pids))
        if "cpu" in self.dirs:  # one core's worth of time per period
            (self.dirs["cpu"] / "cpu.cfs_period_us").write_text(str(CPU_PERIOD_US))
            (self.dirs["cpu"] / "cpu.cfs_quota_us").write_text(str(CPU_PERIOD_US))

    def add(self, pid: int) -> None:
        """Move `pid` (host pid namespace) in; its future children follow."""
        for path in self.dirs.values():
            (path / "cgroup.procs").write_text(str(pid))

    def open_task_files(self) -> list[int]:
        """v1: each hierarchy's `tasks` file, opened for writing, for the job to move itself
        in with (runner/worker.py `_join_cgroups`); none on v2, where the runner moves it."""
        if self.support.version != 1:
            return []
        fds: list[int] = []
        try:
            for path in {p.resolve() for p in self.dirs.values()}:
                fds.append(os.open(path / "tasks", os.O_WRONLY | os.O_CLOEXEC))
        except OSError:
            for fd in fds:
                os.close(fd)
            raise
        return fds

    def ensure(self, pid: int) -> None:
        """Make sure `pid` is in every hierarchy of this cgroup: where it moved itself in, a
        look at /proc/PID/cgroup; elsewhere the move (add)."""
        if not self.holds(pid):
            self.add(pid)

    def holds(self, pid: int) -> bool:
        """Whether /proc/PID/cgroup puts `pid` in this cgroup in every hierarchy."""
        try:
            lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
        except OSError:
            return False
        found: dict[str, str] = {}
        for line in lines:
            _id, controllers, path = line.split(":", 2)
            for controller in controllers.split(","):
                found[controller or "unified"] = path
        return all(found.get(c, "").rsplit("/", 1)[-1] == self.name for c in self.dirs)

    def pids(self) -> list[int]:
        found: set[int] = set()
        for path in self.dirs.values():
            try:
                found.update(int(p) for p in (path / "cgroup.procs").read_text().split())
            except OSError:
                continue
        return sorted(found)

    def cpu_seconds(self) -> float | None:
        """CPU time of every process that ever ran here, exited ones included (a forked
        helper left unreaped still counts); None where no controller counts it."""
        if self.support.version == 2:
            return cgroup_cpu_seconds(str(self.dirs["unified"] / "cpu.stat"))
        if "cpuacct" in self.dirs:
            return cpuacct_seconds(str(self.dirs["cpuacct"] / "cpuacct.usage"))
        return None

    def oom_killed(self) -> bool:
        """True if the kernel OOM-killed something here (the job hit its memory limit)."""
        if self.support.version == 2:
            events = (self.dirs["unified"] / "memory.events").read_text().split()
            return int(events[events.index("oom_kill") + 1]) > 0
        control = (self.dirs["memory"] / "memory.oom_control").read_text().split()
        return "oom_kill" in control and int(control[control.index("oom_kill") + 1]) > 0

    @property
    def can_freeze(self) -> bool:
        if self.support.version == 2:
            return (self.dirs["unified"] / "cgroup.freeze").exists()
        return "freezer" in self.dirs

    def freeze(self) -> bool:
        """Stop every task inside at once, as the kernel's freezer does (a task forked while
        the cgroup freezes is frozen too; none can leave the cgroup). True once the kernel
        reports the whole cgroup frozen, False if it did not within FREEZE_WAIT_S."""
        if self.support.version == 2:
            unified = self.dirs["unified"]
            (unified / "cgroup.freeze").write_text("1")
            return _wait_for(lambda: "frozen 1" in (unified / "cgroup.events").read_text())
        state = self.dirs["freezer"] / "freezer.state"
        state.write_text("FROZEN")
        return _wait_for(lambda: state.read_text().strip() == "FROZEN")

    def thaw(self) -> None:
        """Let every task inside run again (harmless on a cgroup that is not frozen)."""
        with contextlib.suppress(OSError):
            if self.support.version == 2:
                (self.dirs["unified"] / "cgroup.freeze").write_text("0")
            elif "freezer" in self.dirs:
                (self.dirs["freezer"] / "freezer.state").write_text("THAWED")

    def kill_all(self) -> None:
        """SIGKILL every process still inside; repeat while a fork races the sweep. A frozen
        cgroup is thawed after the signals go out: on v1 a frozen task dies only once thawed."""
        for _ in range(50):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            if self.can_freeze:
                self.thaw()
            time.sleep(0.01)

    def remove(self, timeout: float = 5.0) -> None:
        """Kill what is left, wait until empty, remove the directories. Idempotent."""
        self.kill_all()
        deadline = time.monotonic() + timeout
        for path in self.dirs.values():
            while path.exists():
                try:
                    path.rmdir()
                except FileNotFoundError:
                    break
                except OSError:  # still busy: dying processes leave a moment later
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.01)


def _wait_for(done: object, timeout: float = FREEZE_WAIT_S) -> bool:
    """Poll `done()` every millisecond until it is true (True) or `timeout` passes (False)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if done():  # type: ignore[operator]
                return True
        except OSError:
            return False
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
