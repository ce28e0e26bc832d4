"""The walls one job gets inside a warm worker's sandbox (trusted code, runs before the submission).

A worker is already inside bubblewrap (its own user, pid, net, ipc, uts and cgroup
namespaces; read-only binds; no capabilities). For every job it forks, ahead of the job
(runner/standby.py), a process that calls `enter_job_namespaces`, which adds, per job:

- a nested user namespace that maps only the sandbox uid/gid (nothing becomes root);
- a new pid namespace: the job's first process is its pid 1, so when it dies the kernel
  kills every process the job started (daemons, setsid children, threads included);
- a new mount namespace with fresh size-limited tmpfs on /tmp, /dev/shm and /box and a
  /proc that shows only the job's own processes;
- a new IPC namespace, so System V shared memory cannot outlive the job.

- the mini_llm modules its problem lets it use, imported before anything untrusted runs,
  and then the package's folder covered by an empty read-only tmpfs: what a problem
  withholds (the part the learner writes) was never loaded into the worker, is not loaded
  into the job, and cannot be read there either.

`harden_job` then sets rlimits, drops every capability and loads the seccomp filter.
What this module does not cover: memory and pid limits for the whole job (that is the
runner's cgroup, outside) and the wall clock (the runner kills the job's pid 1).
"""

from __future__ import annotations

import ctypes
import importlib
import os
import resource
import sys
from dataclasses import dataclass

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
MS_BIND = 0x1000
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
PR_SET_DUMPABLE = 4
JOB_DIR = "/box"  # the job's working directory; nothing is ever bound below it
SANDBOX_CODE = "/opt/judge"  # where the repository's packages are bound (runner/layout.py)
LIBRARY_DIR = f"{SANDBOX_CODE}/mini_llm"  # covered in every job once its modules are loaded
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
_LAST_CAP = 63

_libc = ctypes.CDLL(None, use_errno=True)


MAX_CGROUP_FILES = 8  # one per v1 hierarchy a job's cgroup spans (four here)


@dataclass(frozen=True, slots=True)
class JobLimits:
    """The per-process limits one job runs under (sent by the runner as JSON)."""

    cpu_s: int
    memory_mb: int
    max_processes: int
    max_file_bytes: int
    max_open_files: int
    tmpfs_mb: int
    address_space: bool  # False for a GPU job: CUDA reserves far more address space than it uses
    library: tuple[str, ...] = ()  # mini_llm modules loaded before the job's code view closes
    hidden_devices: tuple[str, ...] = ()  # device nodes covered by /dev/null (a CPU job's GPU)
    cgroup_files: int = 0  # the job's v1 cgroup task files sent with its descriptors

    @classmethod
    def from_json(cls, data: dict[str, object]) -> JobLimits:
        """Build from the runner's message; every field must be present with the right type."""
        values: dict[str, object] = {}
        for name, kind in (
            ("cpu_s", int),
            ("memory_mb", int),
            ("max_processes", int),
            ("max_file_bytes", int),
            ("max_open_files", int),
            ("tmpfs_mb", int),
            ("address_space", bool),
        ):
            value = data.get(name)
            if type(value) is not kind:
                raise ValueError(f"job limit {name!r} must be {kind.__name__}, got {value!r}")
            values[name] = value
        library = data.get("library")
        if type(library) is not list or any(
            type(m) is not str or not m.startswith("mini_llm.") for m in library
        ):
            raise ValueError(f"job library must be a list of mini_llm modules, got {library!r}")
        values["library"] = tuple(library)
        hidden = data.get("hidden_devices", [])  # absent: none to hide (the runner always sends it)
        if type(hidden) is not list or any(
            type(n) is not str or not n.startswith("/dev/") or ".." in n for n in hidden
        ):
            raise ValueError(f"hidden devices must be a list of /dev paths, got {hidden!r}")
        values["hidden_devices"] = tuple(hidden)
        files = data.get("cgroup_files", 0)  # absent: none sent
        if type(files) is not int or not 0 <= files <= MAX_CGROUP_FILES:
            raise ValueError(f"cgroup_files must be 0..{MAX_CGROUP_FILES}, got {files!r}")
        values["cgroup_files"] = files
        return cls(**values)  # type: ignore[arg-type]


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str, target: str, fstype: str, flags: int, data: str | None) -> None:
    result = _libc.mount(
        source.encode(), target.encode(), fstype.encode(), flags, data.encode() if data else None
    )
    _check(result, f"mount {fstype} on {target}")


def enter_job_namespaces(uid: int, gid: int) -> None:
    """Unshare user, pid, mount and IPC namespaces; the *next* fork becomes the job's pid 1."""
    # The worker is undumpable, which makes its /proc/self files root's; the maps need ours.
    _check(_libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "set dumpable")
    _check(_libc.unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC), "unshare")
    with open("/proc/self/setgroups", "w") as f:
        f.write("deny")
    with open("/proc/self/uid_map", "w") as f:
        f.write(f"{uid} {uid} 1")
    with open("/proc/self/gid_map", "w") as f:
        f.write(f"{gid} {gid} 1")
    # Mounts made for this job must not propagate back into the worker's namespace.
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make / private")


def mount_proc() -> None:
    """In the job's pid 1 (a standby's, before its job): a /proc of the job's own processes."""
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)


def mount_scratch(tmpfs_mb: int) -> None:
    """In the job's pid 1, once its limits came: fresh, size-limited scratch space."""
    options = f"size={tmpfs_mb}m,nr_inodes=4096,mode=1777"
    for target in ("/tmp", "/dev/shm", JOB_DIR):
        _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, options)


def hide_devices(nodes: tuple[str, ...]) -> None:
    """Cover each device node with /dev/null in the job's mount namespace: the worker's
    sandbox binds the GPU's nodes, and a job whose problem does not use the GPU must not
    open them (its figures count only CPU time). Mounting needs CAP_SYS_ADMIN, which the
    job drops before its code runs, so the submission cannot take the cover off."""
    for node in nodes:
        _mount("/dev/null", node, "", MS_BIND, None)


def load_library(modules: tuple[str, ...]) -> None:
    """In the job's pid 1: import the mini_llm modules the job may use, then cover the
    package's folder with an empty read-only tmpfs, so the rest can be neither imported nor
    read (the job's mount namespace is its own: the worker still sees the folder)."""
    for name in modules:
        importlib.import_module(name)
    flags = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC
    _mount("tmpfs", LIBRARY_DIR, "tmpfs", flags, "size=4k,nr_inodes=2,mode=555")


def _vm_size_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("VmSize missing from /proc/self/status")


def set_rlimits(limits: JobLimits) -> None:
    """rlimits always apply, cgroup or not; hard == soft so the job cannot raise them."""
    cpu = limits.cpu_s
    # SIGXCPU at the soft limit, SIGKILL one second later even if SIGXCPU is ignored.
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.max_file_bytes, limits.max_file_bytes))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.max_open_files, limits.max_open_files))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_MEMLOCK, (0, 0))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_processes, limits.max_processes))
    if limits.address_space:
        # Counted on top of what the worker already mapped (torch alone maps hundreds of MB),
        # so a job gets the same headroom whether it was forked warm or started cold.
        room = _vm_size_bytes() + limits.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (room, room))


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def drop_capabilities() -> None:
    """The nested user namespace granted full capabilities inside it; give them all up."""
    for cap in range(_LAST_CAP + 1):
        if _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() != 22:
            _check(-1, f"drop capability {cap} from the bounding set")
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), ctypes.byref(data)), "capset")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def make_undumpable() -> None:
    """Nothing of the same uid may read or write this process's memory through /proc."""
    _check(_libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "set non-dumpable")


def single_thread_torch() -> None:
    """In the worker before any torch op, and in each job's pid 1 before its code."""
    # One core per job: concurrent jobs on a small host must not fight over OpenMP threads.
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
