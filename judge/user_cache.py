"""The user's own cache folder, where the command line keeps what it computed for its next
run (loaded specs, judge/problem/spec_cache.py; a torch problem's answers,
judge/run/answer_cache.py): where each kind goes, and how a file is written there."""

from __future__ import annotations

import os
from pathlib import Path


def cache_folder(setting: str, kind: str) -> Path | None:
    """$`setting` where it is set (an empty value: keep none, None), else `kind` under
    $XDG_CACHE_HOME or ~/.cache, in practice-judge/."""
    chosen = os.environ.get(setting)
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "practice-judge" / kind


def write_whole(target: Path, data: bytes) -> None:
    """`data` as the file `target`, readable by this user alone (its folder made 0700), whole
    or not at all for a reader beside us; silently nothing where it cannot be written."""
    partial = target.with_name(f".{target.name}.{os.getpid()}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        made = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(made, "wb") as f:
            f.write(data)
        os.replace(partial, target)
    except OSError:
        try:
            partial.unlink()
        except OSError:
            pass
