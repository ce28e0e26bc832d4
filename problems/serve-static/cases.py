"""Cases for serve-static, the capstone's stage 1: requests that come in waves.

The traces, the driver that replays them (on the job_device the judge chose) and its
checks are mini_llm/serving_trace.py's, shared with serve-engine and its other stages; this
file chooses the traces. Every request of a wave arrives at once, a later wave only once
the earlier one can have finished, a step's budget holds a wave's prompts whole and the
pool holds every request to its end: a static batch serves them all.
"""

import random

from judge.run.job_device import job_device
from mini_llm import serving_trace
from mini_llm.serving_trace import build, reference_engine

# (name, builder, seed): each public trace is drawn, near ties excluded, from a fixed seed.
PUBLIC = [
    ("one-request", "single", 11),
    ("one-wave", "wave", 21),
    ("two-waves", "two_waves", 22),
]


def public_cases():
    engine = reference_engine(__file__)
    return [build(name, builder, random.Random(seed), engine) for name, builder, seed in PUBLIC]


def generated_cases(rng):
    engine = reference_engine(__file__)
    plan = ["single", "wave", "wave", "two_waves", "two_waves"]
    return [build(f"trace-{i}-{b}", b, rng, engine) for i, b in enumerate(plan)]


def run(sub, args):
    """Replay the trace on the device the judge chose for this job."""
    return serving_trace.run(sub, args, job_device().value)
