"""The timeline of a serving engine's run: which requests each step ran, as prefill chunks,
decode steps or recomputation after a preemption, and how many of the pool's blocks each
step's batch held; the reference's run beside the learner's. As data for the page's picture
and as text art for `judge run`.

The driver (mini_llm/serving_trace.py, `timeline`) writes one string per request with one
letter per step, and the blocks of every step. The learner's side comes from the job the
submission shares, so it is untrusted data: anything malformed gives no picture of that
side, never an error (the case's verdict is already decided).
"""

from __future__ import annotations

from judge.messages import say

LETTERS = " .PDR"  # not arrived or finished, waiting, prefill chunk, decode, recompute
MAX_STEPS = 240  # mini_llm/serving_trace.py TIMELINE_STEPS: what a report carries
MAX_REQUESTS = 64  # more than any public trace has
# A terminal shows this many steps of a row; the page draws them all.
TEXT_STEPS = 100
# Blocks in use as one character per step, an eighth of the pool per height.
SPARKS = " ▁▂▃▄▅▆▇█"


def picture(args: object, expected: object, got: object) -> dict[str, object] | None:
    """The picture's data: the reference's timeline and the learner's (None where theirs
    cannot be read), or None where the reference's has none."""
    if type(args) is not dict or type(args.get("requests")) is not list:
        return None
    requests = len(args["requests"])
    want = _side(expected, requests)
    if want is None:
        return None
    return {
        "kind": "timeline",
        "pool": want["pool"],
        "expected": want,
        "got": _side(got, requests),
    }


def _side(observation: object, requests: int) -> dict[str, object] | None:
    if type(observation) is not dict:
        return None
    line = observation.get("timeline")
    if type(line) is not dict:
        return None
    rows, blocks, pool, steps = (line.get(k) for k in ("rows", "blocks", "pool", "steps"))
    if not (_count(pool) and pool > 0 and _count(steps)):  # type: ignore[operator]
        return None
    if type(rows) is not list or len(rows) != requests or requests > MAX_REQUESTS:
        return None
    if type(blocks) is not list or len(blocks) > MAX_STEPS:
        return None
    if not all(_count(b) and b <= pool for b in blocks):
        return None
    width = len(blocks)
    for row in rows:
        if type(row) is not str or len(row) != width or set(row) - set(LETTERS):
            return None
    return {"rows": list(rows), "blocks": list(blocks), "pool": pool, "steps": steps}


def _count(value: object) -> bool:
    return type(value) is int and value >= 0


def summary(side: dict[str, object]) -> dict[str, int]:
    """Steps, prefill chunks, decode steps, recomputations and the most blocks held."""
    text = "".join(side["rows"])  # type: ignore[arg-type]
    blocks: list[int] = side["blocks"]  # type: ignore[assignment]
    return {
        "steps": int(side["steps"]),  # type: ignore[call-overload]
        "prefill": text.count("P"),
        "decode": text.count("D"),
        "recompute": text.count("R"),
        "peak": max(blocks, default=0),
    }


def art_lines(shown: dict[str, object], lang: str) -> list[str]:
    """The two runs as rows of letters, one column per step, the blocks as a spark line."""
    lines = ["  " + say("picture.timeline.legend").render(lang)]
    for side in ("expected", "got"):
        data = shown.get(side)
        if type(data) is not dict:
            lines.append("  " + say("picture.timeline.none").render(lang))
            continue
        counts = summary(data)
        head = say(f"picture.timeline.{side}", **{k: str(v) for k, v in counts.items()})
        lines.append("  " + head.render(lang))
        rows: list[str] = data["rows"]
        blocks: list[int] = data["blocks"]
        shown_steps = min(len(blocks), TEXT_STEPS)
        lines.append("    " + " " * 8 + _ruler(shown_steps))
        for rid, row in enumerate(rows):
            lines.append(f"    r{rid:<6} |{row[:shown_steps]}".rstrip())
        lines.append(f"    {'blocks':<7} |{_sparks(blocks[:shown_steps], int(data['pool']))}")
        if len(blocks) > shown_steps:
            later = say("picture.timeline.more", steps=str(len(blocks) - shown_steps))
            lines.append("    " + later.render(lang))
        if int(data["steps"]) > len(blocks):
            cut = say("picture.timeline.cut", steps=str(len(blocks)))
            lines.append("    " + cut.render(lang))
    return lines


def _ruler(steps: int) -> str:
    """A step number every ten columns: "0         10        20"."""
    out = ""
    for tens in range(0, steps, 10):
        out += str(tens).ljust(10)
    return out[: max(steps, 1)].rstrip()


def _sparks(blocks: list[int], pool: int) -> str:
    top = len(SPARKS) - 1
    return "".join(SPARKS[min(top, -(-b * top // pool))] for b in blocks)
