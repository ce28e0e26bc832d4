"""A picture of a failing public case, as plain data the page draws (and `judge run`
summarises): the block pool of a paging trace, the roofline with the learner's points, the
GPU memory split into weights and KV, a serving engine's timeline beside the reference's.

Each kind is recognised by the shape of the case's arguments and observations, never by
the problem's name, so a new problem with the same shape gets the picture too. What the
submission returned is untrusted data: anything a picture cannot read gives no picture
(or no point), never an error, since the case's verdict is already decided.
"""

from __future__ import annotations

import math

from judge.messages import say
from judge.pictures import bar_art, pool_art, timeline_art

GB = 10**9  # kv-capacity's statement counts GB as 10**9 bytes
ROOFLINE_PHASES = ("prefill", "decode")


def picture(args: object, expected: object, got: object, step: int | None) -> object:
    """The picture's data for a failing public case, or None where there is none."""
    if step is not None:
        # A pool with block ids where the states have them, else the counts as bars.
        shown = pool_art.trail(args, expected, got, step) or bar_art.trace_trail(
            args, expected, got, step
        )
        return shown.to_dict() if shown is not None else None
    if type(args) is not dict:
        return None
    if type(expected) is dict and "timeline" in expected:
        return timeline_art.picture(args, expected, got)
    if "peak_tflops" in args and "bandwidth_tb_s" in args:
        return roofline(args, expected, got)
    if args.get("call") in ("max_requests", "decode_step"):
        return memory(args, expected, got)
    if "config" in args and "kv_dtype" in args:
        bars = bar_art.kv_bytes(args, expected, got)
        return bars.to_dict() if bars is not None else None
    return None


def _number(value: object) -> float | None:
    """A finite positive number, else None (bools are not numbers here)."""
    if type(value) not in (int, float):
        return None
    try:
        number = float(value)  # type: ignore[arg-type]
    except OverflowError:
        return None
    return number if math.isfinite(number) and number > 0 else None


def _points(observation: object) -> list[dict[str, object]]:
    """(intensity, attained FLOP/s) of each phase: the FLOPs over the time it says."""
    points: list[dict[str, object]] = []
    if type(observation) is not dict:
        return points
    for phase in ROOFLINE_PHASES:
        entry = observation.get(phase)
        if type(entry) is not dict:
            continue
        intensity, flops = _number(entry.get("intensity")), _number(entry.get("flops"))
        time_us = _number(entry.get("time_us"))
        if intensity is None or flops is None or time_us is None:
            continue
        points.append({"phase": phase, "intensity": intensity, "flops_s": flops / time_us * 1e6})
    return points


def roofline(args: dict[str, object], expected: object, got: object) -> object:
    peak, bandwidth = _number(args.get("peak_tflops")), _number(args.get("bandwidth_tb_s"))
    want = _points(expected)
    if peak is None or bandwidth is None or not want:
        return None
    return {
        "kind": "roofline",
        "peak_flops_s": peak * 1e12,
        "bandwidth_b_s": bandwidth * 1e12,
        "expected": want,
        "got": _points(got),
    }


def memory(args: dict[str, object], expected: object, got: object) -> object:
    """kv-capacity's two calls: what fits in the GPUs' memory, and what one decode step
    reads. Both split into weights and KV, expected beside got."""
    params = args.get("params")
    if type(params) is not dict:
        return None
    if args["call"] == "decode_step":
        want, mine = _read_split(expected), _read_split(got)
        return (
            {"kind": "memory", "call": "decode_step", "expected": want, "got": mine}
            if want
            else None
        )
    try:
        gpus, mem_gb, util = (int(params[k]) for k in ("num_gpus", "gpu_mem_gb", "mem_util_pct"))
        weights, per_token = int(params["weight_bytes"]), int(params["kv_bytes_per_token"])
        context = int(params["context_len"])
    except (KeyError, TypeError, ValueError):
        return None
    per_request = context * per_token * (gpus if params.get("kv_replicated") is True else 1)

    def split(requests: object) -> dict[str, object] | None:
        if type(requests) is not int or requests < 0:
            return None
        return {"weights": weights, "kv": requests * per_request, "requests": requests}

    want = split(expected)
    if want is None:
        return None
    return {
        "kind": "memory",
        "call": "max_requests",
        "total": gpus * mem_gb * GB,
        "usable": gpus * mem_gb * GB * util // 100,
        "expected": want,
        "got": split(got),
    }


def _read_split(observation: object) -> dict[str, object] | None:
    """The bytes one decode step reads, split by its KV share."""
    if type(observation) is not dict:
        return None
    total, share = _number(observation.get("bytes_read")), observation.get("kv_share")
    if total is None or type(share) not in (int, float) or not 0 <= share <= 1:  # type: ignore[operator]
        return None
    kv = total * float(share)  # type: ignore[arg-type]
    return {"weights": total - kv, "kv": kv}


def summary_lines(shown: object, lang: str) -> list[str]:
    """What `judge run` prints for a picture: the pool as text art, the roofline's points."""
    if type(shown) is not dict:
        return []
    try:
        if shown.get("kind") == "pool":
            return pool_art.art_lines(shown, lang)
        if shown.get("kind") == "roofline":
            return _roofline_lines(shown, lang)
        if shown.get("kind") == "bars":
            return bar_art.art_lines(shown, lang)
        if shown.get("kind") == "timeline":
            return timeline_art.art_lines(shown, lang)
    except (ValueError, KeyError, TypeError, IndexError):
        return []  # a report from elsewhere with a picture this version cannot read
    return []


def _roofline_lines(shown: dict[str, object], lang: str) -> list[str]:
    peak, bandwidth = float(shown["peak_flops_s"]), float(shown["bandwidth_b_s"])  # type: ignore[arg-type]
    # The catalog's templates take text, so the numbers are formatted here.
    head = say(
        "picture.roofline.head",
        peak=f"{peak / 1e12:g}",
        bandwidth=f"{bandwidth / 1e12:g}",
        ridge=f"{peak / bandwidth:.1f}",
    )
    lines = ["  " + head.render(lang)]
    mine = {p["phase"]: p for p in shown.get("got") or [] if type(p) is dict}  # type: ignore[attr-defined]
    for point in shown["expected"]:  # type: ignore[attr-defined]
        other = mine.get(point["phase"])
        got = (
            f"I={other['intensity']:.4g} at {other['flops_s'] / 1e12:.4g} TFLOP/s"
            if other
            else say("picture.roofline.no_point").render(lang)
        )
        said = say(
            "picture.roofline.point",
            phase=f"{point['phase']:<8}",
            want_i=f"{point['intensity']:.4g}",
            want_f=f"{point['flops_s'] / 1e12:.4g}",
            got=got,
        )
        lines.append("    " + said.render(lang))
    return lines
