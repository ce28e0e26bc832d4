"""Cases for serve-paged, the capstone's stage 3: a pool smaller than the workload.

The traces, the driver that replays them (on the job_device the judge chose) and its
checks are mini_llm/serving_trace.py's, shared with serve-engine and its other stages; this
file chooses the traces. In every one the pool holds about half of what the requests need
to their ends (or less): blocks must be taken as requests grow, and someone must be
preempted when they run out.
"""

import random

from judge.run.job_device import job_device
from mini_llm import serving_trace
from mini_llm.serving_trace import build, reference_engine

# (name, builder, seed): each public trace is drawn, near ties excluded, from a fixed seed.
PUBLIC = [
    ("burst-forces-preemption", "burst", 15),
    ("arrivals-on-a-tight-pool", "staggered_tight", 41),
    ("long-request-among-short-ones", "long_among_short", 5),
]


def public_cases():
    engine = reference_engine(__file__)
    return [build(name, builder, random.Random(seed), engine) for name, builder, seed in PUBLIC]


def generated_cases(rng):
    engine = reference_engine(__file__)
    plan = ["burst", "burst", "staggered_tight", "staggered_tight", "long_among_short"]
    return [build(f"trace-{i}-{b}", b, rng, engine) for i, b in enumerate(plan)]


def run(sub, args):
    """Replay the trace on the device the judge chose for this job."""
    return serving_trace.run(sub, args, job_device().value)
