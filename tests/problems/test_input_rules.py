"""Every problem declares what a learner's own arguments may be (problem.toml `[input]`), and
that one declaration is what `judge run --input`, the web's "Try your input" and so the
page hold an input to: each of its rules refuses an input that breaks it, naming the
argument and the rule, and no case of the problem's own breaks any of them."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from built_cases import SEEDS, TORCH_SEEDS, built

from judge.errors import InputRefused, SpecError
from judge.problem.cases import load_module, public_cases
from judge.problem.custom_input import CustomInput
from judge.problem.input_rules import ArgRule, InputRules, Step
from judge.problem.problemset import ProblemSet
from judge.problem.spec import ProblemSpec, load_problem

ROOT = Path(__file__).resolve().parents[2]
_SET = ProblemSet(ROOT / "problems")
PROBLEMS = [p for p in map(_SET.get, _SET.slugs()) if p.quiz is None]
SLUGS = [p.slug for p in PROBLEMS]


_EXAMPLES: dict[str, list[Any]] = {}


def _examples(problem: ProblemSpec) -> list[Any]:
    """The public cases' arguments, untimed first (what a learner starts from)."""
    if problem.slug not in _EXAMPLES:
        driver = load_module(problem.cases_source(), "cases", str(problem.path / "cases.py"))
        cases = public_cases(problem, driver)
        untimed = [c.args for c in cases if c.timed is None]
        _EXAMPLES[problem.slug] = untimed + [c.args for c in cases if c.timed]
    return _EXAMPLES[problem.slug]


def _refusal(problem: ProblemSpec, args: object) -> str | None:
    """Why a learner's input is refused (CustomInput: what the CLI and the server call)."""
    try:
        CustomInput.from_args(problem, args)
    except InputRefused as refused:
        assert refused.said.render("zh") != refused.said.render("en")
        return refused.said.en
    return None


def _broken(rules: InputRules, args: object) -> str | None:
    """The declared rules' own answer: what CustomInput says after its JSON and shape checks
    (a torch problem's public cases cost a model's load each time CustomInput reads them)."""
    said = rules.problem_with(args)
    if said is not None:
        assert said.render("zh") != said.render("en")
    return None if said is None else said.en


def _locate(value: Any, steps: tuple[Step, ...], where: str = "") -> tuple[Any, Any, str] | None:
    """The first place `steps` reach in `value`: (its container, its key or index, its path)."""
    step, rest = steps[0], steps[1:]
    if step.key is not None:
        if not isinstance(value, dict) or step.key not in value:
            return None
        here = f"{where}.{step.key}" if where else step.key
        return (value, step.key, here) if not rest else _locate(value[step.key], rest, here)
    if not isinstance(value, list):
        return None
    indexes = range(len(value)) if step.index is None else [step.index]
    for i in indexes:
        if i < len(value):
            found = (
                (value, i, f"{where}[{i}]")
                if not rest
                else _locate(value[i], rest, f"{where}[{i}]")
            )
            if found is not None:
                return found
    return None


def _breakers(rule: ArgRule, current: Any) -> list[tuple[str, Any]]:
    """(what is broken, a value that breaks it) for each facet of `rule`."""
    out: list[tuple[str, Any]] = []
    if rule.types:
        wrong = "a string" if "string" not in rule.types else 2.5
        if "int" in rule.types and "number" not in rule.types and "string" in rule.types:
            wrong = 2.5
        out.append(("type", wrong))
    if rule.choices is not None:
        out.append(("choices", "no-such-choice"))
    if rule.low is not None:
        out.append(("min", rule.low - 1))
    if rule.high is not None:
        out.append(("max", rule.high + 1))
    if rule.min_len is not None and rule.min_len > 0 and isinstance(current, list):
        out.append(("min_len", current[: rule.min_len - 1]))
    if rule.max_len is not None and isinstance(current, list) and current:
        out.append(("max_len", (current * (rule.max_len + 1))[: rule.max_len + 1]))
    if not rule.optional:
        out.append(("missing", _DELETE))
    return out


_DELETE = object()


@pytest.mark.parametrize("slug", SLUGS)
def test_every_problem_declares_its_input_rules(slug: str) -> None:
    rules = load_problem(ROOT / "problems" / slug).input_rules()
    assert rules.args, f"{slug}: problem.toml has no [input.args]"


@pytest.mark.parametrize("slug", SLUGS)
def test_no_case_of_the_problems_own_breaks_its_input_rules(slug: str) -> None:
    """Public and hidden, on the seeds the hidden-case test builds (shared: built_cases)."""
    problem = load_problem(ROOT / "problems" / slug)
    rules = problem.input_rules()
    for seed in TORCH_SEEDS if problem.tier == "torch" else SEEDS:
        for case in built(slug, seed):
            said = rules.problem_with(case.args)
            assert said is None, f"{slug} seed {seed} case {case.name}: {said.en}"


@pytest.mark.parametrize("slug", SLUGS)
def test_an_input_breaking_any_rule_is_refused_naming_the_argument(slug: str) -> None:
    problem = load_problem(ROOT / "problems" / slug)
    rules = problem.input_rules()
    examples = _examples(problem)
    tried = 0
    for rule in rules.args:
        for example in examples:
            args = copy.deepcopy(example)
            found = _locate(args, rule.steps)
            if found is not None:
                break
        else:
            continue  # no public case has this (optional) argument
        container, key, path = found
        for facet, value in _breakers(rule, container[key]):
            broken = copy.deepcopy(args)
            place, slot, _ = _locate(broken, rule.steps)  # type: ignore[misc]
            if value is _DELETE:
                if isinstance(place, dict):
                    del place[slot]
                else:
                    continue  # a list item is never "missing": its length rule says so
            else:
                place[slot] = value
            said = _broken(rules, broken)
            assert said is not None, f"{slug}: {path} broken by its {facet} rule was accepted"
            if facet == "max_len" and "larger than" in said:
                continue  # so long that it is past the size any input may have
            assert path.split("[")[0].split(".")[0] in said, (slug, facet, said)
            tried += 1
    assert tried >= len(rules.args), f"{slug}: only {tried} rules could be broken"


@pytest.mark.parametrize("slug", SLUGS)
def test_each_relation_refuses_its_breaking_example_in_its_own_words(slug: str) -> None:
    problem = load_problem(ROOT / "problems" / slug)
    base = _examples(problem)[0]
    rules = problem.input_rules()
    assert rules.problem_with(base) is None
    for relation in rules.relations:
        args = copy.deepcopy(base) | copy.deepcopy(relation.breaks)
        said = _broken(rules, args)
        assert said is not None and relation.en in said, (slug, relation.rule, said)


def test_the_issues_examples_are_refused_with_the_argument_and_the_rule() -> None:
    problems = ProblemSet(ROOT / "problems")
    tokens = problems.get("tokens-processed")
    assert _refusal(tokens, {"prompt_len": 7, "new_tokens": 3.5}) == (
        "the problem refuses these arguments: new_tokens must be an integer (got 3.5)"
    )
    assert "prompt_len must be at least 1 (got 0)" in str(
        _refusal(tokens, {"prompt_len": 0, "new_tokens": 3})
    )
    assert "prompt_len must be at most 1,000,000 (got 5000000)" in str(
        _refusal(tokens, {"prompt_len": 5_000_000, "new_tokens": 3})
    )
    config = {"num_hidden_layers": -2, "num_attention_heads": 12, "hidden_size": 768}
    said = _refusal(problems.get("kv-bytes-per-token"), {"config": config, "kv_dtype": "fp8"})
    assert "config.num_hidden_layers must be at least 1 (got -2)" in str(said)


@pytest.mark.parametrize(
    ("toml", "field"),
    [
        ('[input.args]\nx = { type = "integer" }\n', "input.args.x.type"),
        ("[input.args]\nx = { min = 'a' }\n", "input.args.x.min"),
        ("[input.args]\nx = { colour = 1 }\n", "input.args.x.colour"),
        ('[input.args]\n"a..b" = { type = "int" }\n', "input.args.a..b"),
        ('[[input.relations]]\nrule = "x ** 2"\nen = "e"\nzh = "z"\nbreaks = { x = 1 }\n', "rule"),
        ('[[input.relations]]\nrule = "open(x)"\nen = "e"\nzh = "z"\nbreaks = { x = 1 }\n', "rule"),
        ('[[input.relations]]\nrule = "x > 1"\nen = "e"\nzh = "z"\n', "input.relations[0].breaks"),
        ("[input]\nmystery = 1\n", "input.mystery"),
    ],
)
def test_a_bad_declaration_is_refused_naming_its_field(toml: str, field: str) -> None:
    with pytest.raises(SpecError) as refused:
        InputRules.of("demo/problem.toml", toml)
    assert field in str(refused.value)


def test_a_rule_never_multiplies_a_learners_text_or_list_into_a_copy() -> None:
    """A rule the author wrote as a number's product, met with a string and a huge count:
    refused (the rule does not hold), never a gigabyte made in the judge's process."""
    toml = (
        '[[input.relations]]\nrule = "len(a * n) < 10"\nen = "e"\nzh = "z"\n'
        "breaks = { a = 1, n = 100 }\n"
    )
    rules = InputRules.of("demo/problem.toml", toml)
    said = rules.problem_with({"a": "x", "n": 10**12})
    assert said is not None and said.en == "e"
