"""Cases for serve-continuous, the capstone's stage 2: requests that arrive while others run.

The traces, the driver that replays them (on the job_device the judge chose) and its
checks are mini_llm/serving_trace.py's, shared with serve-engine and its other stages; this
file chooses the traces. Requests arrive at staggered steps, some prompts are longer than a
step's whole budget, and the pool still holds every request to its end.
"""

import random

from judge.run.job_device import job_device
from mini_llm import serving_trace
from mini_llm.serving_trace import build, reference_engine

# (name, builder, seed): each public trace is drawn, near ties excluded, from a fixed seed.
PUBLIC = [
    ("one-request", "single", 11),
    ("staggered-arrivals", "staggered", 12),
    ("long-prompts-need-chunks", "long_prompts", 13),
    ("one-request-a-step", "stream", 31),
]


def public_cases():
    engine = reference_engine(__file__)
    return [build(name, builder, random.Random(seed), engine) for name, builder, seed in PUBLIC]


def generated_cases(rng):
    engine = reference_engine(__file__)
    plan = ["staggered", "staggered", "long_prompts", "long_prompts", "stream"]
    return [build(f"trace-{i}-{b}", b, rng, engine) for i, b in enumerate(plan)]


def run(sub, args):
    """Replay the trace on the device the judge chose for this job."""
    return serving_trace.run(sub, args, job_device().value)
