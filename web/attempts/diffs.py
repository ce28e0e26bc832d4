"""A line diff of two of a user's submissions, for the problem page's compare view.

Myers' O((N+M)·D) algorithm on the lines both submissions do not share at their start
and end (D: the lines that differ), with a budget of steps: difflib's matcher was
quadratic in repeated lines (two 64 KiB submissions of repetitive lines took 207 s of
CPU, and 16 such requests held every server thread). Within the budget the diff is a
shortest one; past it, the lines between the common start and end are shown as removed,
then added, and the answer says so (`aligned: false`, and a note in the reader's
language). The work of one request is then bounded by the budget plus the lines' count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from web.accounts.auth import Viewer
from web.attempts import submissions
from web.errors import NotFound
from web.i18n import say
from web.store.db import iso
from web.store.models import Submission

# Steps (a diagonal tried, or a line matched along it) one diff may take: some 0.1 s of
# CPU. A shortest diff of up to a few hundred differing lines fits; two large files
# that differ nearly everywhere do not, and need no alignment to read.
MAX_STEPS = 400_000


@dataclass(frozen=True, slots=True)
class LineDiff:
    rows: list[dict[str, Any]]
    aligned: bool  # False: the budget ran out, the middle is shown removed then added


def line_diff(old: str, new: str, max_steps: int = MAX_STEPS) -> LineDiff:
    """Every line of both, in order: op " " (in both), "-" (only old) or "+" (only new),
    with its line number on each side it is on; within a change, removals come first."""
    a, b = old.splitlines(), new.splitlines()
    head = _common_prefix(a, b)
    tail = _common_prefix(a[head:][::-1], b[head:][::-1])
    middle_a, middle_b = a[head : len(a) - tail], b[head : len(b) - tail]
    ids: dict[str, int] = {}  # lines as small ints: the inner loop compares ints
    script = _shortest_edit(
        [ids.setdefault(line, len(ids)) for line in middle_a],
        [ids.setdefault(line, len(ids)) for line in middle_b],
        max_steps,
    )
    aligned = script is not None
    if script is None:
        script = [("-", i, -1) for i in range(len(middle_a))]
        script += [("+", -1, j) for j in range(len(middle_b))]
    rows = [_row(" ", i, i, a, b) for i in range(head)]
    rows += [_row(op, i + head, j + head, a, b) for op, i, j in _removals_first(script)]
    shift = len(b) - len(a)
    rows += [_row(" ", i, i + shift, a, b) for i in range(len(a) - tail, len(a))]
    return LineDiff(rows, aligned)


def _row(op: str, i: int, j: int, a: list[str], b: list[str]) -> dict[str, Any]:
    if op == "+":
        return {"op": op, "old": None, "new": j + 1, "text": b[j]}
    return {"op": op, "old": i + 1, "new": j + 1 if op == " " else None, "text": a[i]}


def _common_prefix(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _shortest_edit(a: list[int], b: list[int], max_steps: int) -> list[tuple[str, int, int]] | None:
    """Myers' greedy shortest edit script from `a` to `b` as (op, i, j) in order ("=" a[i]
    is b[j], "-" a[i] removed, "+" b[j] added), or None past `max_steps`."""
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return [("-", i, -1) for i in range(n)] + [("+", -1, j) for j in range(m)]
    offset = n + m + 1
    v = [0] * (2 * offset + 1)  # v[offset + k]: the furthest x reached on diagonal k = x - y
    trace: list[list[int]] = []  # v[offset-d-1 : offset+d+2] as each round d found it
    steps = 0
    for d in range(n + m + 1):
        trace.append(v[offset - d - 1 : offset + d + 2])
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[offset + k - 1] < v[offset + k + 1]):
                x = v[offset + k + 1]  # down: b[y] added
            else:
                x = v[offset + k - 1] + 1  # right: a[x - 1] removed
            y = x - k
            start = x
            while x < n and y < m and a[x] == b[y]:
                x, y = x + 1, y + 1
            v[offset + k] = x
            steps += 1 + x - start
            if x >= n and y >= m:
                return _backtrack(trace, n, m)
            if steps > max_steps:
                return None
    raise AssertionError("unreachable: d = n + m always reaches the end")


def _backtrack(trace: list[list[int]], n: int, m: int) -> list[tuple[str, int, int]]:
    script: list[tuple[str, int, int]] = []
    x, y = n, m
    for d in range(len(trace) - 1, -1, -1):
        snap = trace[d]  # snap[k + d + 1] is v[k] before round d

        def at(k: int, snap: list[int] = snap, d: int = d) -> int:
            return snap[k + d + 1]

        k = x - y
        down = k == -d or (k != d and at(k - 1) < at(k + 1))
        prev_k = k + 1 if down else k - 1
        prev_x = at(prev_k) if d > 0 else 0
        prev_y = prev_x - prev_k if d > 0 else 0
        while x > prev_x and y > prev_y:
            x, y = x - 1, y - 1
            script.append(("=", x, y))
        if d > 0:
            script.append(("+", -1, prev_y) if down else ("-", prev_x, -1))
        x, y = prev_x, prev_y
    script.reverse()
    return script


def _removals_first(script: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """The script with each run of changes written as its removals, then its additions,
    and "=" as " " (the rows' op for a line in both)."""
    out: list[tuple[str, int, int]] = []
    run: list[tuple[str, int, int]] = []
    for step in [*script, ("=", -1, -1)]:
        if step[0] != "=":
            run.append(step)
            continue
        out += [s for s in run if s[0] == "-"] + [s for s in run if s[0] == "+"]
        run = []
        if step[1] >= 0:
            out.append((" ", step[1], step[2]))
    return out


def compare(
    db: Session, viewer: Viewer, first: int, second: int, hidden: tuple[str, ...]
) -> dict[str, Any]:
    """The diff from submission `first` to `second`, both the viewer's own (or any, for an
    admin); someone else's is `unknown_submission`, as if it did not exist."""
    old, new = _own(db, viewer, first, hidden), _own(db, viewer, second, hidden)
    diff = line_diff(old.code, new.code)
    out: dict[str, Any] = {
        "from": _side(old),
        "to": _side(new),
        "added": sum(1 for r in diff.rows if r["op"] == "+"),
        "removed": sum(1 for r in diff.rows if r["op"] == "-"),
        "aligned": diff.aligned,
    }
    if not diff.aligned:
        out["note"] = say("diff_not_aligned", lines=out["added"] + out["removed"])
    out["lines"] = diff.rows
    return out


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
