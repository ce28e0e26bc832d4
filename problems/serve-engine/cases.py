"""Cases for serve-engine: arrival traces replayed against the learner's engine.

The traces, the driver that replays them and its checks are mini_llm/serving_trace.py's,
shared with the capstone's stages; this file chooses the traces. Seven public traces, one
of each kind the engine must serve; five of the same kinds drawn from a fresh secret seed;
then the scored run: a warm-up and REPETITIONS timed traces of the same work on the wider
checkpoint, each paced with the reference (judge/run/pacer.py).
"""

import random

from judge.run.job_device import job_device
from mini_llm import serving_trace
from mini_llm.serving_trace import (
    TIMED_LENGTHS,
    TIMED_NEW_TOKENS,
    TIMED_WEIGHTS,
    build,
    reference_engine,
)

REPETITIONS = 5

# (name, builder, seed): each public trace is drawn, near ties excluded, from a fixed seed.
PUBLIC = [
    ("one-request", "single", 11),
    ("staggered-arrivals", "staggered", 12),
    ("long-prompts-need-chunks", "long_prompts", 13),
    ("burst-forces-preemption", "burst", 15),
    ("shared-prefix", "shared_prefix", 14),
    ("long-request-among-short-ones", "long_among_short", 5),
    ("real-model-smollm2", "real", 17),
]


def public_cases():
    engine = reference_engine(__file__)
    return [build(name, builder, random.Random(seed), engine) for name, builder, seed in PUBLIC]


def generated_cases(rng):
    engine = reference_engine(__file__)
    plan = ["staggered", "long_prompts", "shared_prefix", "burst", "long_among_short"]
    cases = [build(f"trace-{i}-{b}", b, rng, engine) for i, b in enumerate(plan)]
    cases.append(build("warm-up", "timed", rng, engine) | {"warm_up": True})
    for i in range(REPETITIONS):
        case = build(f"timed-{i}", "timed", rng, engine)
        # Every request gets TIMED_NEW_TOKENS tokens, and every step that gives one needs a
        # forward pass that reads every weight: at least TIMED_NEW_TOKENS passes.
        work = len(TIMED_LENGTHS) * TIMED_NEW_TOKENS
        cases.append(
            case | {"timed": {"work": work, "min_bytes": TIMED_NEW_TOKENS * TIMED_WEIGHTS}}
        )
    return cases


def run(sub, args):
    """Replay the trace on the device the judge chose for this job."""
    return serving_trace.run(sub, args, job_device().value)
