"""Issue 20, section 1: a torch-tier problem cannot be passed by calling the library's own
version of the part it asks the learner to write.

Each torch problem names in problem.toml what its exercise practises ([submission]
practises), and withholds every module of the job library that does one of those parts
(judge/problem/withheld.py). In a
sandboxed job those modules were never loaded into the worker, are not loaded into the job,
and their files are not visible there; transformers (whose caches, attention and generate
would do the same work) is not in the sandbox at all. Reaching for one is a clear verdict
with a message in both languages, never AC and never IE.
"""

from __future__ import annotations

import json

import pytest

from judge.grading.report import Report
from judge.messages import case_message, render
from judge.problem.problemset import ProblemSet
from judge.run.judge_source import judge_source
from judge.verdict import Verdict
from runner.launchers.sandbox import SandboxLauncher

PROBLEMS = ProblemSet()

# What the red-team pass submitted (issue 20): each hands its problem's exercise to mini_llm.
CHEATS = {
    "kv-cache": "from mini_llm import KVCache\n",
    "cached-attention": """\
from mini_llm.attention import attend  # the layer's cached forward, RoPE and mask

def attention_forward(x, weights, cache_k, cache_v, config):
    raise NotImplementedError
""",
    "greedy-generate": """\
from mini_llm import generate as library_generate

def generate(model, prompt, max_new_tokens, stop_tokens):
    return library_generate(model, [prompt], max_new_tokens, stop_tokens=stop_tokens)[0]
""",
    "batched-decode": """\
from mini_llm.generation import generate

def batched_greedy(model, prompts, max_new_tokens, stop_tokens):
    return generate(model, prompts, max_new_tokens, stop_tokens=stop_tokens)
""",
    "paged-attention": """\
import torch
from mini_llm.paged_cache import PagedKVCache

def write_kv(k_pool, v_pool, slot_mapping, k, v):
    raise NotImplementedError

def paged_decode_attention(q, k_pool, v_pool, block_tables, context_lens, scale):
    raise NotImplementedError
""",
}

# batched-decode's padding and mask, done by a cache that keeps each row's own length
# (mini_llm's paged cache, the paged-attention problem's part): AC until it was withheld.
PAGED_BATCH = """\
import torch
from mini_llm.paged_cache import PagedKVCache

def batched_greedy(model, prompts, max_new_tokens, stop_tokens):
    cache = PagedKVCache.for_model(model.cfg, 64, 16)
    raise NotImplementedError
"""

# Issue 35's red-team pass: the capstone's runner was in every job and withheld nowhere. Its
# pool keeps each row's own length (batched-decode's padding and mask done for it: AC 20/20)
# and its table cache's read is the gather through block tables (paged-attention: AC 37/37).
RUNNER_CHEATS = {
    "batched-decode": """\
from mini_llm.pool_runner import PoolRunner

def batched_greedy(model, prompts, max_new_tokens, stop_tokens):
    runner = PoolRunner(model, 256, 16, 4096)
    raise NotImplementedError
""",
    "paged-attention": """\
import torch
from mini_llm.pool_runner import _TableCache

def write_kv(k_pool, v_pool, slot_mapping, k, v):
    raise NotImplementedError

def paged_decode_attention(q, k_pool, v_pool, block_tables, context_lens, scale):
    raise NotImplementedError
""",
    "kv-cache": "from mini_llm.serving_trace import PoolRunner as KVCache\n",
}

# Imported inside a function, the refusal comes at the first case: RE, with the same words.
LATE_IMPORT = """\
class KVCache:
    def __init__(self, num_layers):
        from mini_llm.kv_cache import KVCache as Theirs
        self.inner = Theirs(num_layers)
"""

# Takes the finder away, then looks for the withheld part every way it can: the import
# system, the file, the folder, every object the garbage collector knows (the worker's own
# objects too: it froze them before forking, and unfreezing hands them back to gc).
LOOK_EVERYWHERE = """\
import gc, os, sys
sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "WithheldFinder"]
gc.unfreeze()
found = {}
try:
    import mini_llm.kv_cache
    found["import"] = True
except ImportError:
    found["import"] = False
try:
    open("/opt/judge/mini_llm/kv_cache.py").read()
    found["file"] = True
except OSError:
    found["file"] = False
found["folder"] = os.listdir("/opt/judge/mini_llm")
found["objects"] = sorted({
    o.__module__ + "." + o.__qualname__ for o in gc.get_objects()
    if isinstance(o, type) and o.__qualname__ in ("KVCache", "PagedKVCache")
})
found["modules"] = sorted(m for m in sys.modules if m.startswith("mini_llm"))
try:
    import transformers
    found["transformers"] = True
except ImportError:
    found["transformers"] = False
raise RuntimeError("FOUND " + __import__("json").dumps(found))
"""


@pytest.fixture
def launcher(warm_launcher: SandboxLauncher) -> SandboxLauncher:
    """The suite's warm worker (tests/runner/conftest.py): one of this module's own would
    import torch and load the models again."""
    return warm_launcher


def _judge(slug: str, source: str, launcher: SandboxLauncher) -> Report:
    return judge_source(PROBLEMS.get(slug), source, launcher=launcher, seed=11)


@pytest.mark.parametrize("slug", sorted(CHEATS))
def test_calling_the_library_for_the_exercise_is_refused_with_a_message(
    slug: str, launcher: SandboxLauncher
) -> None:
    report = _judge(slug, CHEATS[slug], launcher)
    assert report.verdict is Verdict.CE, report.to_dict()
    error = report.compile_error
    assert error is not None and error["message_key"] == "load.withheld", error
    module = error["message_args"]["module"]  # type: ignore[index]
    assert module in PROBLEMS.get(slug).withheld
    zh = render(str(error["message"]), error["message_key"], error["message_args"], "zh")
    assert zh.startswith(f"本题不能用 {module}："), zh
    assert str(error["message"]).startswith(f"{module} is not available in this problem")


def test_batched_decode_cannot_hand_its_ragged_rows_to_the_paged_cache(
    launcher: SandboxLauncher,
) -> None:
    """Regression (issue 20's second pass): mini_llm's paged cache keeps every row's own
    length, so a loop over it needed no padding or mask and was AC on batched-decode."""
    report = _judge("batched-decode", PAGED_BATCH, launcher)
    assert report.verdict is Verdict.CE, report.to_dict()
    error = report.compile_error
    assert error is not None and error["message_key"] == "load.withheld", error
    assert error["message_args"]["module"] == "mini_llm.paged_cache", error  # type: ignore[index]


@pytest.mark.parametrize("slug", sorted(RUNNER_CHEATS))
def test_the_capstones_runner_cannot_do_another_problems_exercise(
    slug: str, launcher: SandboxLauncher
) -> None:
    """Regression (issue 35, section 2): pool_runner was withheld nowhere; each problem's
    withheld modules are now derived from what it practises, and the runner does three of
    those parts."""
    report = _judge(slug, RUNNER_CHEATS[slug], launcher)
    assert report.verdict is Verdict.CE, report.to_dict()
    error = report.compile_error
    assert error is not None and error["message_key"] == "load.withheld", error
    module = error["message_args"]["module"]  # type: ignore[index]
    assert module in ("mini_llm.pool_runner", "mini_llm.serving_trace"), error


def test_a_withheld_module_imported_inside_a_function_is_a_runtime_error_saying_why(
    launcher: SandboxLauncher,
) -> None:
    report = _judge("kv-cache", LATE_IMPORT, launcher)
    assert report.verdict is Verdict.RE
    first = report.cases[0].to_dict()
    assert first["message_key"] == "load.withheld", first
    assert "KV Cache" in case_message(first, "zh")


def test_a_withheld_part_cannot_be_found_in_the_job_by_any_route(
    launcher: SandboxLauncher,
) -> None:
    report = _judge("kv-cache", LOOK_EVERYWHERE, launcher)
    assert report.compile_error is not None, report.to_dict()
    text = str(report.compile_error["message"])
    found = json.loads(text[text.index("FOUND ") + len("FOUND ") :])
    assert found == {
        "import": False,
        "file": False,
        "folder": [],
        "objects": [],
        "modules": [
            "mini_llm",
            "mini_llm.attention",
            "mini_llm.chunk",
            "mini_llm.config",
            "mini_llm.errors",
            "mini_llm.loading",
            "mini_llm.model",
            "mini_llm.sampling",
            "mini_llm.zoo",
        ],
        "transformers": False,
    }


def test_without_its_attention_the_model_refuses_a_forward_pass_saying_why(
    launcher: SandboxLauncher,
) -> None:
    """cached-attention withholds mini_llm.attention: the zoo's weights are there to read,
    but running the model (which would run mini_llm's attention) is refused."""
    source = """\
import torch
from mini_llm import zoo

def attention_forward(x, weights, cache_k, cache_v, config):
    zoo.model("qwen3-gqa")(torch.tensor([[1, 2, 3]]))
"""
    report = _judge("cached-attention", source, launcher)
    assert report.verdict is Verdict.RE
    assert report.cases[0].to_dict()["message_key"] == "load.withheld"


@pytest.mark.parametrize("slug", sorted(CHEATS))
def test_the_reference_passes_with_only_what_its_problem_allows(
    slug: str, launcher: SandboxLauncher
) -> None:
    """What a problem withholds is never what its own reference needs: the statement's
    allowances are enough to solve it."""
    problem = PROBLEMS.get(slug)
    report = judge_source(problem, problem.reference_source(), launcher=launcher, seed=11)
    assert report.verdict is Verdict.AC, [(c.name, c.verdict, c.message) for c in report.cases]
