"""What a torch-tier job finds of torch and mini_llm, by module name.

Workers import these by name (runner/worker.py), because the same worker code serves the
browser tier with nothing preloaded and a test may preload something else. The names are
also written below as imports, under TYPE_CHECKING (they never run here): so the arrows
runner -> torch and runner -> mini_llm show where a reader and tests/test_import_graph.py
look, and that test keeps the two lists equal to these imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the names below, as imports (F401: nothing here uses them)
    import torch  # noqa: F401

    import mini_llm.attention
    import mini_llm.chunk
    import mini_llm.generation
    import mini_llm.kv_cache
    import mini_llm.paged_cache
    import mini_llm.pool_runner
    import mini_llm.sampling
    import mini_llm.serving_trace
    import mini_llm.zoo  # noqa: F401

# What a warm worker imports for every torch job: torch, and the part of mini_llm no problem
# withholds (the zoo's checkpoints, their weights and forward pass; the modules of the job
# library that do no exercise's part, so that no job pays for importing them). Anything a
# job imports from the worker is in every job forked from it, so nothing a problem withholds
# is here (tests/judge/test_withheld.py holds each entry to that).
TORCH_PRELOAD = ("torch", "mini_llm.zoo", "mini_llm.chunk", "mini_llm.sampling")
# A preload entry naming a checkpoint, not a module: what a fresh (cold) worker loads for
# its one job's problem (problem.toml `models`; runner/worker.py).
MODEL_PREFIX = "model:"
# The mini_llm modules a torch job may use, imported by each job for itself (nothing to do
# for those a warm worker preloaded), less what its problem withholds ([submission]
# practises): the part the learner is asked to write.
JOB_LIBRARY = (
    "mini_llm.attention",
    "mini_llm.chunk",
    "mini_llm.kv_cache",
    "mini_llm.paged_cache",
    "mini_llm.pool_runner",
    "mini_llm.sampling",
    "mini_llm.serving_trace",
    "mini_llm.generation",
)
