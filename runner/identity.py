"""The unprivileged identity jobs run as: never root, created on first use when we are root."""

from __future__ import annotations

import os
import pwd
import subprocess
from dataclasses import dataclass

SANDBOX_USER = "judge-sandbox"


@dataclass(frozen=True, slots=True)
class SandboxIdentity:
    """Who the sandbox runs as on the host; `switched` is False when we already are that user."""

    name: str
    uid: int
    gid: int
    switched: bool


def sandbox_identity(name: str = SANDBOX_USER) -> SandboxIdentity:
    """Root switches jobs to `name` (creating it as a system user if missing); others stay."""
    if os.geteuid() != 0:
        return SandboxIdentity(
            pwd.getpwuid(os.geteuid()).pw_name, os.geteuid(), os.getegid(), False
        )
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        _create_system_user(name)
        entry = pwd.getpwnam(name)
    if entry.pw_uid == 0:
        raise RuntimeError(f"sandbox user {name!r} has uid 0; jobs must never run as root")
    return SandboxIdentity(name, entry.pw_uid, entry.pw_gid, True)


def _create_system_user(name: str) -> None:
    command = [
        "useradd", "--system", "--user-group", "--no-create-home",
        "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", name,
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    # Another runner may have created it between our lookup and useradd (exit 9: name in use).
    if result.returncode not in (0, 9):
        raise RuntimeError(f"could not create sandbox user {name!r}: {result.stderr.strip()}")
