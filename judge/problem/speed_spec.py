"""A speed problem's score: measured by the trusted parent, on checked answers only.

A speed problem (problem.toml has a [speed] table) marks some cases as *timed*: each is
one repetition of the workload on fresh inputs (generated from the seed, so secret on
the server), and each answer is checked like any other case. The parent times every case
itself, from sending the request to receiving the answer (judge/run/session.py): nothing the
submission does inside its process (patching `time.perf_counter`, CUDA events or torch's
own timers) changes that clock. Cases before the first timed one are the warm-up.

Just before each timed case, the parent runs the reference on the same case and times it too
(judge/run/pacer.py): the score is the median of the paired ratios (reference seconds over
submission seconds), which a busy machine moves far less than either rate, said in the problem's
unit by multiplying it with the reference's own rate (the highest it has been measured at in
this process: load only slows it). A run whose ratios spread too widely is not scored at all
(SpeedState.UNSTEADY: the learner is asked to run it again). Unpaired (no pacer), the score is
the median rate over the timed cases (`work / seconds`), with its quartiles.

The rate of every timed case must also be physically possible:
each declares the bytes it must at least read (`min_bytes`, e.g. every weight once per
decode step), and a case that moved them faster than the machine's memory can is WA (the
answer was not computed, or not by that run). No score is given unless every case is AC.
"""

from __future__ import annotations

import enum
import os
import threading
import time

from judge.errors import SpecError
from judge.record import default, record

# How generous the bandwidth ceiling is over what one memcpy measures here: the copy reads
# and writes, a single stream does not reach the bus's peak, and caches help small models.
CEILING_MARGIN = 4.0
# Copies timed for the ceiling, the fastest kept (bench/bench_bandwidth_ceiling.py).
COPIES = 15


@record
class SpeedSpec:
    """problem.toml's [speed]: what a timed case's work is counted in."""

    unit: str  # e.g. "tokens/s": work per second

    @classmethod
    def from_table(cls, table: dict[str, object], file: str) -> SpeedSpec:
        unknown = set(table) - {"unit"}
        if unknown:
            raise SpecError(file, f"speed.{sorted(unknown)[0]}", "unknown key")
        unit = table.get("unit")
        if type(unit) is not str or "/s" not in unit:
            raise SpecError(file, "speed.unit", f"must be a rate such as 'tokens/s', got {unit!r}")
        return cls(unit)


@record
class Timed:
    """A timed case's declared work and the bytes it must at least read from memory."""

    work: float
    min_bytes: float

    @classmethod
    def from_value(cls, value: object, file: str, case: str) -> Timed:
        if type(value) is not dict or set(value) != {"work", "min_bytes"}:
            raise SpecError(file, "cases", f"case {case!r}: timed must be {{work, min_bytes}}")
        work, min_bytes = value["work"], value["min_bytes"]
        for name, number in (("work", work), ("min_bytes", min_bytes)):
            if type(number) not in (int, float) or not number > 0:
                raise SpecError(file, "cases", f"case {case!r}: timed.{name} must be > 0")
        return cls(float(work), float(min_bytes))


# The widest spread of the paired ratios, relative to their median, a score is recorded with:
# idle they spread by a few percent; a run past this was timed while the load came and went
# (bench/bench_speed_reference.py measures it idle and beside two busy loops).
MAX_RELATIVE_SPREAD = 0.25


def check_spread_limit(value: float) -> float:
    """A platform's spread limit, refused unless it is a fraction in (0, 1]: past 1 the
    quartiles of a run could differ by more than its median and still be ranked."""
    if not 0 < value <= 1:
        raise ValueError(f"the speed spread limit is a fraction in (0, 1], not {value!r}")
    return value


class SpeedState(enum.Enum):
    SCORED = "scored"  # recorded, ranked
    UNSTEADY = "unsteady"  # the paired ratios spread too widely: not recorded, run it again


@record
class SpeedResult:
    """The typed speed of one accepted run (Report.speed)."""

    unit: str
    value: float  # the score: the median rate
    median: float
    q1: float
    q3: float
    repetitions: int
    samples: tuple[float, ...] = ()
    hardware: dict[str, str] = default(factory=dict)
    state: SpeedState = SpeedState.SCORED
    # Paired with the reference (judge/run/pacer.py): the median ratio of its seconds to the
    # submission's, their spread (IQR / median), and the reference rate the score is said in.
    relative: float | None = None
    relative_spread: float | None = None
    reference_rate: float | None = None
    spread_limit: float = (
        MAX_RELATIVE_SPREAD  # the widest relative_spread this run could be scored with
    )

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1

    def overlaps(self, other: SpeedResult) -> bool:
        """Two scores whose interquartile ranges overlap are not told apart (they share a rank)."""
        return self.q1 <= other.q3 and other.q1 <= self.q3

    def to_dict(self) -> dict[str, object]:
        return {
            "unit": self.unit,
            "value": round(self.value, 6),
            "median": round(self.median, 6),
            "q1": round(self.q1, 6),
            "q3": round(self.q3, 6),
            "iqr": round(round(self.q3, 6) - round(self.q1, 6), 6),  # as read back
            "repetitions": self.repetitions,
            "samples": [round(s, 6) for s in self.samples],
            "hardware": dict(self.hardware),
            "state": self.state.value,
            "relative": _rounded(self.relative),
            "relative_spread": _rounded(self.relative_spread),
            "reference_rate": _rounded(self.reference_rate),
            "spread_limit": self.spread_limit,  # what an unsteady run's message cites
        }

    @classmethod
    def from_dict(cls, data: object) -> SpeedResult:
        if type(data) is not dict:
            raise ValueError(f"a speed result is an object, not {data!r:.60}")
        hardware = data.get("hardware", {})
        if type(hardware) is not dict:
            raise ValueError("a speed result's hardware is an object")
        return cls(
            unit=str(data["unit"]),
            value=float(data["value"]),
            median=float(data["median"]),
            q1=float(data["q1"]),
            q3=float(data["q3"]),
            repetitions=int(data["repetitions"]),
            samples=tuple(float(s) for s in data.get("samples", ())),
            hardware={str(k): str(v) for k, v in hardware.items()},
            state=SpeedState(data.get("state", SpeedState.SCORED.value)),
            relative=_optional(data.get("relative")),
            relative_spread=_optional(data.get("relative_spread")),
            reference_rate=_optional(data.get("reference_rate")),
            spread_limit=float(data.get("spread_limit", MAX_RELATIVE_SPREAD)),
        )


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _optional(value: object) -> float | None:
    if value is None:
        return None
    if type(value) not in (int, float):
        raise ValueError(f"a speed figure is a number, not {value!r:.60}")
    return float(value)  # type: ignore[arg-type]


def quartiles(values: list[float]) -> tuple[float, float, float]:
    """(q1, median, q3) by linear interpolation between order statistics."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")

    def at(fraction: float) -> float:
        position = fraction * (len(ordered) - 1)
        low = int(position)
        high = min(low + 1, len(ordered) - 1)
        return ordered[low] + (ordered[high] - ordered[low]) * (position - low)

    return at(0.25), at(0.5), at(0.75)


def score(spec: SpeedSpec, rates: list[float], hardware: dict[str, str]) -> SpeedResult:
    """The unpaired score: the median rate and its quartiles."""
    q1, median, q3 = quartiles(rates)
    return SpeedResult(spec.unit, median, median, q1, q3, len(rates), tuple(rates), hardware)


def paired_score(
    spec: SpeedSpec,
    ratios: list[float],
    reference_rate: float,
    hardware: dict[str, str],
    spread_limit: float = MAX_RELATIVE_SPREAD,
) -> SpeedResult:
    """The score from the paired ratios (reference seconds / submission seconds per timed
    case), said in the problem's unit at `reference_rate`; UNSTEADY when they spread wider
    than `spread_limit` (the judge's setting: check_spread_limit)."""
    q1, median, q3 = quartiles(ratios)
    spread = (q3 - q1) / median if median > 0 else float("inf")
    state = SpeedState.SCORED if spread <= spread_limit else SpeedState.UNSTEADY
    return SpeedResult(
        spec.unit,
        median * reference_rate,
        median * reference_rate,
        q1 * reference_rate,
        q3 * reference_rate,
        len(ratios),
        tuple(r * reference_rate for r in ratios),
        hardware,
        state,
        relative=median,
        relative_spread=spread,
        reference_rate=reference_rate,
        spread_limit=spread_limit,
    )


_paces: dict[tuple[str, ...], float] = {}
_paces_lock = threading.Lock()


def reference_pace(key: tuple[str, ...], measured: float) -> float:
    """The reference rate a paired score is said in, for `key` (problem, version, where it
    ran): the highest median rate the reference has been measured at in this process, this
    run's `measured` included. Load only slows the reference, so the highest is the truest;
    and one figure for every run keeps scores comparable whatever the load was when each ran."""
    with _paces_lock:
        best = max(_paces.get(key, 0.0), measured)
        _paces[key] = best
    return best


def impossible(timed: Timed, seconds: float, ceiling: float) -> bool:
    """Did the case read its minimum bytes faster than this machine's memory allows?"""
    return seconds <= 0 or timed.min_bytes / seconds > ceiling


# The highest ceiling measured in this process, per device class ("cpu", "cuda").
_measured: dict[str, float] = {}
# Each device class's override, in GB/s (a machine whose copy misleads: docs/BENCHMARKS.md).
_CONFIGURED = {"cpu": "JUDGE_MEMORY_BANDWIDTH_GBS", "cuda": "JUDGE_DEVICE_BANDWIDTH_GBS"}


def device_class(device: str) -> str:
    """ "cuda" for a job on a GPU (a report's env says "cuda", or "cuda (<name>)" in older
    reports), else "cpu"."""
    return "cuda" if device.startswith("cuda") else "cpu"


def bandwidth_ceiling(remeasure: bool = False, device: str = "cpu") -> float:
    """Bytes per second no honest run can beat on `device`: the device class's override if
    set, else CEILING_MARGIN times the memory copy measured in this process for it: the
    CPU's fastest memcpy, or the GPU's median device-to-device copy (measured by a child
    process, judge/problem/device_copy.py); once, and again when `remeasure` (before a run
    is refused as too fast). Load only slows a copy, so the highest figure seen is the
    truest one, and it is kept."""
    kind = device_class(device)
    configured = os.environ.get(_CONFIGURED[kind])
    if configured:
        return float(configured) * 1e9
    if kind not in _measured or remeasure:
        copy = measure_copy_bandwidth() if kind == "cpu" else _device_copy_or_unbounded()
        _measured[kind] = max(_measured.get(kind, 0.0), CEILING_MARGIN * copy)
    return _measured[kind]


def _device_copy_or_unbounded() -> float:
    """The GPU's copy bandwidth; infinite when it cannot be measured: a run is then never
    refused as too fast (refusing honest runs on a guess would be worse), and the error is
    printed for the operator."""
    from judge.problem.device_copy import DeviceCopyFailed, measure_device_copy_bandwidth

    try:
        return measure_device_copy_bandwidth()
    except DeviceCopyFailed as exc:
        import sys

        print(f"judge: no bandwidth ceiling for CUDA runs: {exc}", file=sys.stderr)
        return float("inf")


def measure_copy_bandwidth(copies: int = COPIES) -> float:
    """Bytes per second (read and write counted) of the fastest of `copies` 64 MiB copies.

    Both buffers hold data and are touched before any copy is timed. A fresh bytearray's
    pages all map the kernel's one zero page, so copying from it reads one cached page,
    and its first copy pays the target's page faults: that copy measured anywhere from 32
    to 166 GB/s on one machine, and a low one refused honest fast runs
    (bench/bench_bandwidth_ceiling.py). The fastest of several is taken because load only
    ever slows a copy down."""
    source = bytearray(os.urandom(1 << 16)) * ((64 << 20) >> 16)
    target = bytearray(source)  # written once: every page of it is present
    best = float("inf")
    for _ in range(copies):
        t0 = time.perf_counter()
        target[:] = source
        best = min(best, time.perf_counter() - t0)
    return 2 * len(source) / best


def hardware(launcher: str, device: str = "cpu") -> dict[str, str]:
    """What a speed was measured on: the CPU model, threads per job, torch, the launcher,
    and on a GPU its model and driver (read from the driver's /proc files, no CUDA)."""
    import sys

    torch = sys.modules.get("torch")  # the reference ran here: torch is loaded, never imported
    info = {
        "cpu": cpu_model(),
        "device": device_class(device),
        # A sandboxed job's torch runs on one thread; a local child on OMP_NUM_THREADS,
        # which the local launcher sets to 1 unless the learner set it (judge/run/launch.py).
        "threads": "1" if launcher != "local" else os.environ.get("OMP_NUM_THREADS", "1"),
        "torch": str(torch.__version__) if torch is not None else "not loaded",
        "launcher": launcher,
    }
    if info["device"] == "cuda":
        from judge.problem.gpu_identity import read_gpu_identity

        gpu = read_gpu_identity()
        info["gpu"] = gpu.name
        info["driver"] = gpu.driver or "unknown"
        cuda = getattr(getattr(torch, "version", None), "cuda", None)
        if cuda:
            info["cuda"] = str(cuda)
    return info


def cpu_model() -> str:
    """This machine's CPU model as /proc/cpuinfo names it (a speed's hardware, benchmarks)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine()
