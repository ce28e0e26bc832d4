"""What the command line keeps in the user's own cache folder (judge/user_cache.py) is read
back only by the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "reader",
    ["SpecCache(", "AnswerCache("],
    ids=["loaded specs", "a torch problem's answers"],
)
def test_only_the_command_line_reads_the_users_cache(reader: str) -> None:
    """Each is a pickle in the user's own folder, as trusted as the problem folders the
    same user's `judge run` executes: only `judge`'s local commands may load one. A server
    (web/, runner/) loads its problems from their folders and computes its answers in its
    own processes."""
    readers = sorted(
        str(path.relative_to(REPO))
        for package in ("judge", "web", "runner", "devtools", "handbook")
        for path in (REPO / package).rglob("*.py")
        if reader in path.read_text(encoding="utf-8")
    )
    assert readers == ["judge/commands/cli.py"]
