"""Who may read the server's files: the instance folder 0700, its secrets and the SQLite
database 0600, and nothing private reachable by the uid that runs submitted code.

Mode bits only: ACLs and other users' capabilities are not looked at.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote, urlsplit

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
SQLITE_COMPANIONS = ("", "-wal", "-shm", "-journal")


def private_dir(path: Path) -> None:
    """Create `path` as 0700, or take group and other bits off it when it is ours."""
    path.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    _restrict(path, PRIVATE_DIR)


def private_file(path: Path) -> None:
    """Take group and other bits off a file we own (a secret, a database)."""
    _restrict(path, PRIVATE_FILE)


def sqlite_file(database_url: str) -> Path | None:
    """The database file of a `sqlite:///` URL; None for an in-memory or a server database."""
    parts = urlsplit(database_url)
    if not parts.scheme.startswith("sqlite") or parts.path in ("", "/", "/:memory:"):
        return None
    return Path(unquote(parts.path[1:]))


def database_files(database_url: str) -> list[Path]:
    """The SQLite file and its WAL, shared-memory and journal companions (existing or not)."""
    main = sqlite_file(database_url)
    return [] if main is None else [Path(f"{main}{suffix}") for suffix in SQLITE_COMPANIONS]


def create_private_database(database_url: str) -> None:
    """Create an empty SQLite file as 0600 before SQLite does (it would use 0644).

    SQLite gives its -wal and -shm files the mode of the database file, so they follow."""
    main = sqlite_file(database_url)
    if main is None:
        return
    if not main.exists():
        main.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(main, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE))
    for path in database_files(database_url):
        if path.exists():
            private_file(path)


def exposed_to(path: Path, uid: int, gid: int) -> bool:
    """Could a process with this uid and gid (no other groups) reach `path`?

    A folder counts as exposed when it can be searched (files in it can be opened by name),
    a file when it can be read; every folder above must be searchable either way."""
    try:
        info = path.stat()
        parents = [p.stat() for p in path.resolve().parents]
    except FileNotFoundError:
        return False
    if not all(_grants(p, uid, gid, 1) for p in parents):
        return False
    return _grants(info, uid, gid, 1 if stat.S_ISDIR(info.st_mode) else 4)


def hide_from(uid: int, gid: int, paths: Iterable[Path]) -> None:
    """Make each path unreachable for uid:gid (0700 / 0600 when we own it), or refuse.

    Raises PermissionError naming the first path that stays reachable."""
    for path in paths:
        if not exposed_to(path, uid, gid):
            continue
        _restrict(path, PRIVATE_DIR if path.is_dir() else PRIVATE_FILE)
        if exposed_to(path, uid, gid):
            raise PermissionError(
                f"{path} can be read by uid {uid}, which runs submitted code; make it "
                "unreadable to that user (mode 0700 or 0600) or use the sandbox backend"
            )


def _grants(info: os.stat_result, uid: int, gid: int, bit: int) -> bool:
    """Does the mode grant `bit` (1 search/execute, 4 read) to uid:gid?"""
    if uid == 0:
        return True
    if info.st_uid == uid:
        return bool(info.st_mode & (bit << 6))
    if info.st_gid == gid:
        return bool(info.st_mode & (bit << 3))
    return bool(info.st_mode & bit)


def _restrict(path: Path, mode: int) -> None:
    info = path.stat()
    if info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, stat.S_IMODE(info.st_mode) & mode)
