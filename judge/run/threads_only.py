"""Refuse every new process from here on, leaving threads: for a problem with a CPU-time rule.

A problem's CPU rule (judge/problem/limits.py CpuRule) reads the child's CPU time from outside it.
Where the count comes from a walk over the child's processes (a local child's session, a
sandbox without a writable cgroup), a helper the kernel reaps by itself (SIGCHLD set to
SIG_IGN) leaves no trace: its time is counted by no one. So a child judged under a CPU
rule may start no process at all. `refuse_processes` loads a seccomp filter, built here by
hand with ctypes (the core uses only the standard library), that fails fork, vfork and a
clone without CLONE_THREAD with EPERM (an ordinary PermissionError in Python: subprocess,
os.fork and multiprocessing all see it), and clone3 with ENOSYS so the C library falls back
to clone, whose flags the filter can read. Threads (clone with CLONE_THREAD) go on.

A system call of another ABI than the native one (i386 through int 0x80, x32) is refused
whatever it is, so none of them can start a process either. Linux on x86_64 and aarch64
only: `available()` says whether this machine can; the parent asks for the filter only then.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
# fork and vfork exist only on x86_64; aarch64's C library makes both from clone.
_SYSCALLS = {
    "x86_64": {"fork": 57, "vfork": 58, "clone": 56, "clone3": 435},
    "aarch64": {"clone": 220, "clone3": 435},
}
_SECCOMP_SYSCALL = {"x86_64": 317, "aarch64": 277}
_X32_SYSCALL_BIT = 0x40000000
CLONE_THREAD = 0x00010000

# Classic BPF, as seccomp runs it on struct seccomp_data {int nr; u32 arch; u64 ip; u64 args[6]}
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_NR, _ARCH, _ARG0_LOW = 0, 4, 16  # offsets in seccomp_data (args[0]'s low word, little-endian)
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1  # every thread of the process, not only the caller


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def available() -> bool:
    """Whether this machine can refuse processes this way (Linux on x86_64 or aarch64)."""
    return platform.system() == "Linux" and platform.machine() in _AUDIT_ARCH


def program(machine: str) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jump if true, jump if false, k) instructions, for `machine`."""
    calls = _SYSCALLS[machine]
    deny, no_such = _ERRNO | errno.EPERM, _ERRNO | errno.ENOSYS
    prog: list[tuple[int, int, int, int]] = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ_K, 1, 0, _AUDIT_ARCH[machine]),
        (_RET_K, 0, 0, deny),  # a foreign ABI: refuse whatever it is
        (_LD_W_ABS, 0, 0, _NR),
    ]
    if machine == "x86_64":  # the x32 ABI shares the architecture and sets this bit
        prog += [(_JGE_K, 0, 1, _X32_SYSCALL_BIT), (_RET_K, 0, 0, deny)]
    for name in ("fork", "vfork"):
        if name in calls:
            prog += [(_JEQ_K, 0, 1, calls[name]), (_RET_K, 0, 0, deny)]
    prog += [
        (_JEQ_K, 0, 1, calls["clone3"]),
        (_RET_K, 0, 0, no_such),  # clone3's flags sit in memory the filter cannot read
        (_JEQ_K, 1, 0, calls["clone"]),
        (_RET_K, 0, 0, _ALLOW),  # any other call
        (_LD_W_ABS, 0, 0, _ARG0_LOW),  # clone's flags
        (_JSET_K, 1, 0, CLONE_THREAD),
        (_RET_K, 0, 0, deny),  # a new process
        (_RET_K, 0, 0, _ALLOW),  # a new thread
    ]
    return prog


def refuse_processes() -> None:
    """Load the filter into every thread of this process (and every thread started later)."""
    machine = platform.machine()
    if not available():
        raise OSError(errno.ENOSYS, f"cannot refuse processes on {platform.system()} {machine}")
    code = b"".join(struct.pack("HBBI", *instruction) for instruction in program(machine))
    fprog = _SockFprog(len(code) // 8, code)
    libc = ctypes.CDLL(None, use_errno=True)
    # Without privileges a filter needs no_new_privs: exec cannot then gain any either.
    if libc.prctl(ctypes.c_int(PR_SET_NO_NEW_PRIVS), ctypes.c_ulong(1), 0, 0, 0) != 0:
        _fail("prctl(PR_SET_NO_NEW_PRIVS)")
    result = libc.syscall(
        ctypes.c_long(_SECCOMP_SYSCALL[machine]),
        ctypes.c_uint(SECCOMP_SET_MODE_FILTER),
        ctypes.c_uint(SECCOMP_FILTER_FLAG_TSYNC),
        ctypes.byref(fprog),
    )
    if result != 0:  # > 0: a thread that could not take the filter
        _fail(f"seccomp(SECCOMP_SET_MODE_FILTER) returned {result}")


def _fail(what: str) -> None:
    err = ctypes.get_errno()
    raise OSError(err, f"{what}: {os.strerror(err)}")
