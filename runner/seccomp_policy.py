"""The seccomp filter every job runs under (built in the worker, loaded in the job's pid 1).

Default allow, with a deny list: the filter is a second wall behind the namespaces,
aimed at the kernel interfaces that have a history of sandbox escapes or that would
let a job reach outside its namespaces. Denied calls fail with EPERM (so the
submission sees an ordinary PermissionError and gets an ordinary verdict), except
clone3, which fails with ENOSYS so that libc falls back to clone(), whose flags the
filter can inspect. libseccomp kills the process on any non-native system call ABI
(i386 via int 0x80, x32), which is its default for architectures not in the filter.
"""

from __future__ import annotations

import errno
import socket

import pyseccomp as seccomp

DENIED_SYSCALLS = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "bpf",
    "userfaultfd",
    "perf_event_open",
    "mount",
    "umount2",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsmount",
    "fsconfig",
    "fspick",
    "mount_setattr",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "open_by_handle_at",
    "name_to_handle_at",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "syslog",
    "acct",
    "quotactl",
    "lookup_dcookie",
    "personality",
    "vhangup",
)

# Socket families a job never needs: host-hypervisor channels, kernel interfaces, raw links.
DENIED_SOCKET_FAMILIES = (
    ("AF_VSOCK", 40),
    ("AF_NETLINK", socket.AF_NETLINK),
    ("AF_PACKET", socket.AF_PACKET),
)

# Any namespace flag passed to clone() would let a job build its own namespaces.
_NAMESPACE_FLAGS = 0x7E020080  # NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET|NEWNS|NEWTIME


def build_filter() -> seccomp.SyscallFilter:
    """Build (but do not load) the job filter; building needs libseccomp, loading is one call."""
    deny = seccomp.ERRNO(errno.EPERM)
    flt = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    flt.set_attr(seccomp.Attr.CTL_NNP, 1)
    for name in DENIED_SYSCALLS:
        flt.add_rule(deny, name)
    flt.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    for flag in _single_bits(_NAMESPACE_FLAGS):
        flt.add_rule(deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    for _name, family in DENIED_SOCKET_FAMILIES:
        flt.add_rule(deny, "socket", seccomp.Arg(0, seccomp.EQ, family))
        flt.add_rule(deny, "socketpair", seccomp.Arg(0, seccomp.EQ, family))
    return flt


def _single_bits(mask: int) -> list[int]:
    return [1 << bit for bit in range(32) if mask & (1 << bit)]
