"""A line diff of two of a user's submissions (difflib), for the problem page's compare view."""

from __future__ import annotations

import difflib
from typing import Any

from sqlalchemy.orm import Session

from web import submissions
from web.auth import Viewer
from web.db import iso
from web.errors import NotFound
from web.i18n import say
from web.models import Submission


def line_diff(old: str, new: str) -> list[dict[str, Any]]:
    """Every line of both, in order: op " " (in both), "-" (only old) or "+" (only new),
    with its line number on each side it is on."""
    a, b = old.splitlines(), new.splitlines()
    rows: list[dict[str, Any]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            rows += [
                {"op": " ", "old": i + 1, "new": j + 1, "text": a[i]}
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            ]
            continue
        rows += [{"op": "-", "old": i + 1, "new": None, "text": a[i]} for i in range(i1, i2)]
        rows += [{"op": "+", "old": None, "new": j + 1, "text": b[j]} for j in range(j1, j2)]
    return rows


def compare(
    db: Session, viewer: Viewer, first: int, second: int, hidden: tuple[str, ...]
) -> dict[str, Any]:
    """The diff from submission `first` to `second`, both the viewer's own (or any, for an
    admin); someone else's is `unknown_submission`, as if it did not exist."""
    old, new = _own(db, viewer, first, hidden), _own(db, viewer, second, hidden)
    rows = line_diff(old.code, new.code)
    return {
        "from": _side(old),
        "to": _side(new),
        "added": sum(1 for r in rows if r["op"] == "+"),
        "removed": sum(1 for r in rows if r["op"] == "-"),
        "lines": rows,
    }


def _own(db: Session, viewer: Viewer, submission_id: int, hidden: tuple[str, ...]) -> Submission:
    sub, _ = submissions.find(db, submission_id, hidden)
    if not submissions.can_see_details(viewer, sub):
        raise NotFound("unknown_submission", say("err_unknown_submission", id=submission_id))
    return sub


def _side(sub: Submission) -> dict[str, Any]:
    verdict = sub.verdict.value if sub.verdict is not None else None
    return {
        "id": sub.id,
        "problem": sub.problem_slug,
        "verdict": verdict,
        "created_at": iso(sub.created_at),
    }
