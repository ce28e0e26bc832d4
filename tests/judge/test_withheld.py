"""A problem's withheld parts (issue 20, section 1; derived from what it practises, issue 35):
the spec field, the child's finder and the
message a learner reads. The sandbox's own wall (nothing loaded, nothing visible) is
tests/runner/test_withheld_parts.py."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from problem_factory import TOML, MakeProblem

from judge.errors import SpecError
from judge.messages import CATALOG
from judge.problem.problemset import ProblemSet
from judge.problem.spec import load_problem
from judge.problem.withheld import (
    LIBRARY_PARTS,
    LIBRARY_ROLES,
    PART_PREFIX,
    message_for,
    withheld_name,
)
from runner.torch_library import JOB_LIBRARY, TORCH_PRELOAD

TORCH_TOML = TOML.replace('tier = "browser"', 'tier = "torch"')


def _practising(toml: str, value: str, key: str = "practises") -> str:
    filled = toml.format(slug="add", per_case=2.0, total=10.0)
    return filled.replace('names = ["add"]', f'names = ["add"]\n{key} = {value}')


def test_a_problem_withholds_every_module_that_does_what_it_practises(
    make_problem: MakeProblem,
) -> None:
    """Derived from the parts, never listed by hand: the paged cache and the capstone's
    runner keep each row's own length, so a ragged-batch exercise loses them too."""
    toml = _practising(TORCH_TOML, '["decoding-loop", "ragged-batch"]')
    spec = load_problem(make_problem(toml=toml))
    assert spec.withheld == (
        "mini_llm.paged_cache",
        "mini_llm.generation",
        "mini_llm.pool_runner",
        "mini_llm.serving_trace",
    )
    assert spec.summary()["withheld"] == list(spec.withheld)


@pytest.mark.parametrize(
    ("toml", "value", "key", "words"),
    [
        (TORCH_TOML, '["the-cache"]', "practises", "is not a part (one of kv-cache"),
        (TORCH_TOML, '["kv-cache", "kv-cache"]', "practises", "lists a part twice"),
        (TORCH_TOML, '"kv-cache"', "practises", "must be a list of strings"),
        (TOML, '["kv-cache"]', "practises", "only a torch-tier problem"),
        (TORCH_TOML, '["mini_llm.kv_cache"]', "withheld", "replaced by `practises`"),
    ],
)
def test_a_bad_practises_list_is_a_spec_error_naming_the_field(
    make_problem: MakeProblem, toml: str, value: str, key: str, words: str
) -> None:
    with pytest.raises(SpecError, match=rf"submission\.{key}") as caught:
        load_problem(make_problem(toml=_practising(toml, value, key)))
    assert words in str(caught.value)


def test_every_module_of_the_job_library_is_withheld_or_left_for_a_stated_reason() -> None:
    """Per problem and module: withheld because it does a part the problem practises, or
    left in the job because it does none of them (its parts and its role say which). A
    module added to the job library without a row here fails this."""
    assert set(LIBRARY_PARTS) == set(JOB_LIBRARY) == set(LIBRARY_ROLES)
    for problem in ProblemSet().all():
        if problem.tier != "torch":
            continue
        practised = _practised(problem)
        for module in JOB_LIBRARY:
            does = set(LIBRARY_PARTS[module]) & practised
            assert (module in problem.withheld) == bool(does), (problem.slug, module, does)


def test_no_problem_withholds_a_module_a_warm_worker_preloads() -> None:
    """What a warm worker imports is in every job it forks, whatever the job's problem: so
    each mini_llm module it preloads does no exercise's part, and no problem withholds it."""
    preloaded = {m for m in TORCH_PRELOAD if m.startswith("mini_llm.")}
    assert {"mini_llm.chunk", "mini_llm.sampling"} <= preloaded
    for module in preloaded:
        assert LIBRARY_PARTS.get(module, ()) == (), module
    for problem in ProblemSet().all():
        assert not preloaded.intersection(problem.withheld), problem.slug


def _practised(problem) -> set[str]:  # type: ignore[no-untyped-def]
    toml = (problem.path / "problem.toml").read_text(encoding="utf-8")
    import tomllib

    return set(tomllib.loads(toml).get("submission", {}).get("practises", []))


def test_a_module_does_every_part_of_the_library_modules_it_imports() -> None:
    """ "Directly or as a helper": a module that imports another can do what that one does
    (serving_trace decodes with generate and computes through the runner's pool), so the
    table may not give it fewer parts; read from each module's own imports."""
    root = Path(__file__).resolve().parents[2]
    for module, parts in LIBRARY_PARTS.items():
        tree = ast.parse((root / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8"))
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
                imported.update(n for n in names if n in LIBRARY_PARTS)
            elif isinstance(node, ast.Import):
                imported.update(a.name for a in node.names if a.name in LIBRARY_PARTS)
        for helper in imported - {module}:
            missing = set(LIBRARY_PARTS[helper]) - set(parts)
            assert not missing, f"{module} imports {helper}, which does {missing}"


def test_every_part_a_problem_withholds_is_named_in_both_languages() -> None:
    parts = [key for key in CATALOG if key.startswith(PART_PREFIX)]
    assert len(parts) >= 4
    for problem in ProblemSet().all():
        for module in problem.withheld:
            assert PART_PREFIX + module in CATALOG, (problem.slug, module)


def test_the_message_names_the_part_and_the_module_in_both_languages() -> None:
    message = message_for("mini_llm.kv_cache")
    assert message.render("en") == (
        "mini_llm.kv_cache is not available in this problem: it holds the KV cache, which "
        "would do part of what you are asked to write yourself (the statement says what you "
        "may use)"
    )
    assert message.render("zh").startswith("本题不能用 mini_llm.kv_cache：它包含“KV Cache”")


def test_only_the_finders_own_words_are_read_back_as_a_withheld_module() -> None:
    text = "WithheldModule: No module named 'mini_llm.kv_cache' in this problem: it is the part"
    assert withheld_name(text) == "mini_llm.kv_cache"
    assert withheld_name("No module named 'mini_llm.kv_cache'") is None
    assert withheld_name("No module named 'x; rm -rf /' in this problem: ") is None


def test_the_finder_refuses_a_module_and_everything_below_it() -> None:
    """In a fresh interpreter, as the child installs it (before the driver loads)."""
    script = textwrap.dedent(
        """
        import importlib, json, sys
        from judge.problem.withheld import install
        install(["mini_llm.paged_cache"])
        out = []
        for name in ("mini_llm.paged_cache", "mini_llm.paged_cache.x", "mini_llm.kv_cache"):
            try:
                importlib.import_module(name)
                out.append("imported")
            except ImportError as exc:
                out.append(type(exc).__name__)
        print(json.dumps(out))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == '["WithheldModule", "WithheldModule", "imported"]'


def test_each_torch_problem_with_withheld_parts_says_what_may_be_used() -> None:
    """The statement names what a learner may call, in both languages."""
    for problem in ProblemSet().all():
        if not problem.withheld:
            continue
        assert "## What you may use" in problem.statement("en"), problem.slug
        assert "## 可以使用的部分" in problem.statement("zh"), problem.slug
