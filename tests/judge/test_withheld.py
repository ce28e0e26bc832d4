"""A problem's withheld parts (issue 20, section 1): the spec field, the child's finder and the
message a learner reads. The sandbox's own wall (nothing loaded, nothing visible) is
tests/runner/test_withheld_parts.py."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from problem_factory import TOML, MakeProblem

from judge.errors import SpecError
from judge.messages import CATALOG
from judge.problem.problemset import ProblemSet
from judge.problem.spec import load_problem
from judge.problem.withheld import PART_PREFIX, message_for, withheld_name

TORCH_TOML = TOML.replace('tier = "browser"', 'tier = "torch"')


def _with_withheld(toml: str, value: str) -> str:
    filled = toml.format(slug="add", per_case=2.0, total=10.0)
    return filled.replace('names = ["add"]', f'names = ["add"]\nwithheld = {value}')


def test_a_problem_lists_the_parts_it_withholds(make_problem: MakeProblem) -> None:
    toml = _with_withheld(TORCH_TOML, '["mini_llm.kv_cache", "mini_llm.generation"]')
    spec = load_problem(make_problem(toml=toml))
    assert spec.withheld == ("mini_llm.kv_cache", "mini_llm.generation")
    assert spec.summary()["withheld"] == ["mini_llm.kv_cache", "mini_llm.generation"]


@pytest.mark.parametrize(
    ("toml", "value", "words"),
    [
        (TORCH_TOML, '["mini_llm.zoo"]', "not a part a problem can withhold"),
        (TORCH_TOML, '["os"]', "not a part a problem can withhold"),
        (TORCH_TOML, '["mini_llm.kv_cache", "mini_llm.kv_cache"]', "lists a module twice"),
        (TORCH_TOML, '"mini_llm.kv_cache"', "must be a list of strings"),
        (TOML, '["mini_llm.kv_cache"]', "only a torch-tier problem"),
    ],
)
def test_a_bad_withheld_list_is_a_spec_error_naming_the_field(
    make_problem: MakeProblem, toml: str, value: str, words: str
) -> None:
    with pytest.raises(SpecError, match=r"submission\.withheld") as caught:
        load_problem(make_problem(toml=_with_withheld(toml, value)))
    assert words in str(caught.value)


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
