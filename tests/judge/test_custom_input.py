"""A learner's own input: `judge run SLUG FILE --input ARGS_JSON`, and the core underneath
(judge/problem/custom_input.py refuses bad input; judge/run/custom_run.py runs the
reference and the learner's code on it, each in a child)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from problem_factory import MakeProblem

from judge.browser.bundle import public_bundle
from judge.browser.public_run import run_public, run_public_case
from judge.commands.cli import main
from judge.errors import InputRefused
from judge.problem.checkers import CheckSpec
from judge.problem.custom_input import MAX_INPUT_BYTES, CustomInput
from judge.problem.problemset import ProblemSet
from judge.run.custom_run import run_custom

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"
TRACE = {
    "num_blocks": 3,
    "block_size": 2,
    "ops": [["append", 0, 3], ["append", 1, 2], ["free", 0], ["append", 1, 3]],
}


def _reference_source() -> str:
    return (PROBLEMS / "block-table" / "reference.py").read_text()


def _wrong_source() -> str:
    """A known-bad solution: it hands out too many blocks, so the first append differs."""
    return (PROBLEMS / "block-table" / "solutions" / "wrong" / "off_by_one_blocks.py").read_text()


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["--problems", str(PROBLEMS), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_reference_on_its_own_input_is_the_same_and_exit_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    solution = _write(tmp_path, "mine.py", _reference_source())
    args = _write(tmp_path, "args.json", json.dumps(TRACE))
    code, out, _ = run_cli(["run", "block-table", str(solution), "--input", str(args)], capsys)
    assert code == 0
    assert "reference: [{'op': 'append(seq_id=0, n=3)'" in out
    assert "yours:     same as the reference" in out


def test_a_different_answer_is_shown_beside_the_reference_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    solution = _write(tmp_path, "mine.py", _wrong_source())
    args = _write(tmp_path, "args.json", json.dumps(TRACE))
    code, out, _ = run_cli(
        ["run", "block-table", str(solution), "--input", str(args), "--lang", "zh"], capsys
    )
    assert code == 1
    assert "参考解：" in out and "你的：" in out and "与参考解不同" in out


def test_the_starter_on_your_input_says_it_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    starter = (PROBLEMS / "block-table" / "starter.py").read_text()
    solution = _write(tmp_path, "mine.py", starter)
    args = _write(tmp_path, "args.json", json.dumps(TRACE))
    code, out, _ = run_cli(["run", "block-table", str(solution), "--input", str(args)], capsys)
    assert code == 1 and "RE  Runtime error" in out and "NotImplementedError" in out


def test_json_output_holds_the_input_the_reference_and_your_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    solution = _write(tmp_path, "mine.py", _reference_source())
    args = _write(tmp_path, "args.json", json.dumps(TRACE))
    code, out, _ = run_cli(
        ["run", "block-table", str(solution), "--input", str(args), "--json"], capsys
    )
    data = json.loads(out)
    assert code == 0 and data["args"] == TRACE and data["answered"] is True
    assert data["expected"][0]["state"]["block_table"] == [0, 1]
    assert data["report"]["verdict"] == "AC" and data["report"]["cases"][0]["name"] == "custom"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"num_blocks": 3,', "your input is not JSON (line 1, column 18)"),
        ('{"num_blocks": NaN, "block_size": 2, "ops": []}', "your input is not JSON"),
        ("[1, 2]", "the arguments must be an object, not a list"),
        ('{"num_blocks": 3, "ops": []}', "it lacks the key 'block_size'"),
        ('{"num_blocks": 3, "block_size": 2, "ops": [], "x": 1}', "it has the key 'x'"),
        ('{"num_blocks": "3", "block_size": 2, "ops": []}', "'num_blocks' must be a number, not a"),
        (
            '{"num_blocks": 0, "block_size": 2, "ops": []}',
            "the problem refuses these arguments: num_blocks must be at least 1 (got 0)",
        ),
        (
            '{"num_blocks": 2.5, "block_size": 2, "ops": []}',
            "the problem refuses these arguments: num_blocks must be an integer (got 2.5)",
        ),
        (
            '{"num_blocks": 3, "block_size": 2, "ops": [["grow", 0]]}',
            "the problem refuses these arguments: ops[0][0] must be one of",
        ),
        (
            '{"num_blocks": 3, "block_size": 2, "ops": [["append", 0]]}',
            "ops[0]: an operation is",
        ),
    ],
)
def test_a_refused_input_is_one_clear_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, said: str
) -> None:
    solution = _write(tmp_path, "mine.py", _reference_source())
    args = _write(tmp_path, "args.json", text)
    code, out, err = run_cli(["run", "block-table", str(solution), "--input", str(args)], capsys)
    assert code == 2 and out == ""
    assert err.startswith("judge: ") and said in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("slug", "text", "said"),
    [
        (
            "tokens-processed",
            '{"prompt_len": 7, "new_tokens": 3.5}',
            "new_tokens must be an integer (got 3.5)",
        ),
        (
            "tokens-processed",
            '{"prompt_len": 5000000, "new_tokens": 3}',
            "prompt_len must be at most 1,000,000 (got 5000000)",
        ),
        (
            "kv-bytes-per-token",
            '{"config": {"num_hidden_layers": -1, "num_attention_heads": 8, "hidden_size": 512},'
            ' "kv_dtype": "fp8"}',
            "config.num_hidden_layers must be at least 1 (got -1)",
        ),
    ],
)
def test_an_input_outside_the_statements_rules_never_reaches_the_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], slug: str, text: str, said: str
) -> None:
    from judge.problem.problemset import ProblemSet

    reference = ProblemSet().get(slug).reference_source()
    solution = _write(tmp_path, "mine.py", reference)
    args = _write(tmp_path, "args.json", text)
    code, out, err = run_cli(["run", slug, str(solution), "--input", str(args)], capsys)
    assert (code, out) == (2, "") and said in err, err


def test_a_refusal_is_said_in_chinese_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    solution = _write(tmp_path, "mine.py", _reference_source())
    args = _write(tmp_path, "args.json", '{"num_blocks": 3, "ops": []}')
    argv = ["run", "block-table", str(solution), "--input", str(args), "--lang", "zh"]
    code, _, err = run_cli(argv, capsys)
    assert code == 2 and "你的输入和公开用例的参数形状不一样：缺少键 'block_size'" in err


def test_a_missing_input_file_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    solution = _write(tmp_path, "mine.py", _reference_source())
    missing = tmp_path / "nope.json"
    code, _, err = run_cli(["run", "block-table", str(solution), "--input", str(missing)], capsys)
    assert code == 2 and f"{missing}: no such file" in err


@pytest.mark.parametrize("option", [["--seed", "3"], ["--show-test"]])
def test_input_does_not_go_with_options_for_the_problems_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    solution = _write(tmp_path, "mine.py", _reference_source())
    args = _write(tmp_path, "args.json", json.dumps(TRACE))
    argv = ["run", "block-table", str(solution), "--input", str(args), *option]
    code, _, err = run_cli(argv, capsys)
    assert code == 2 and f"does not go with {option[0]}" in err


def test_an_input_larger_than_the_cap_is_refused_before_it_is_parsed() -> None:
    problem = ProblemSet(PROBLEMS).get("block-table")
    with pytest.raises(InputRefused, match="larger than"):
        CustomInput.from_text(problem, " " * (MAX_INPUT_BYTES + 1))


def test_the_learners_code_runs_in_a_child_not_in_the_judges_process() -> None:
    problem = ProblemSet(PROBLEMS).get("block-table")
    source = "import os\nos._exit(7)\n"
    ran = run_custom(problem, TRACE, source)
    assert ran.report is not None and ran.report.verdict.value in ("RE", "CE")


def test_a_reference_that_gives_no_answer_says_the_input_is_the_likely_cause(
    make_problem: MakeProblem,
) -> None:
    # Without a validator, an input the reference cannot take is found by running it; its
    # traceback is never shown (it is the reference's code).
    reference = "def add(a, b):\n    if a < 0:\n        raise ValueError('SECRET_LINE')\n"
    folder = make_problem({"reference.py": reference + "    return a + b\n"})
    problem = ProblemSet(folder.parent).get("add")
    ran = run_custom(problem, [-1, 2], "def add(a, b):\n    return a + b\n")
    assert ran.refused is None and ran.report is None and ran.reference_failure is not None
    assert "the reference gave no answer on your input (Runtime error: " in ran.reference_failure.en
    assert "参考解在你的输入上没有给出答案" in ran.reference_failure.render("zh")
    assert "Traceback" not in json.dumps(ran.to_dict())


def test_only_the_reference_runs_when_no_code_is_given(make_problem: MakeProblem) -> None:
    problem = ProblemSet(make_problem().parent).get("add")
    ran = run_custom(problem, [20, 22])
    assert ran.answered and ran.report is None
    case = {"name": "custom", "args": [20, 22], "check": CheckSpec().to_dict(), "expected": 42}
    assert ran.to_dict() == {
        "args": [20, 22],
        "answered": True,
        "reference": "42",
        "expected": 42,
        "case": json.dumps(case),
    }


def test_the_browser_judges_code_on_the_case_the_reference_answered(
    make_problem: MakeProblem,
) -> None:
    # Browser tier: the server runs the reference alone; the page's judge then runs the
    # learner's code on that one case, with the bundle's driver, as it runs a public case.
    problem = ProblemSet(make_problem().parent).get("add")
    bundle = json.dumps(public_bundle(problem))
    case = str(run_custom(problem, [20.0, 22]).to_dict()["case"])
    right = json.loads(run_public_case(bundle, "def add(a, b):\n    return a + b\n", case))
    assert right["verdict"] == "AC" and [c["name"] for c in right["cases"]] == ["custom"]
    wrong = json.loads(run_public_case(bundle, "def add(a, b):\n    return a - b\n", case))
    assert wrong["verdict"] == "WA"
    assert wrong["cases"][0]["got"] == "-2.0" and wrong["cases"][0]["expected"] == "42.0"
    # The bundle's own cases are untouched: a plain Run still judges every public case.
    assert len(json.loads(run_public(bundle, "def add(a, b):\n    return a + b\n"))["cases"]) > 1


def test_an_answer_too_large_to_send_is_shown_but_not_sent_as_a_case(
    make_problem: MakeProblem,
) -> None:
    reference = "def add(a, b):\n    return [a] * b\n"
    problem = ProblemSet(make_problem({"reference.py": reference}).parent).get("add")
    small = run_custom(problem, [1, 3]).to_dict()
    assert small["expected"] == [1, 1, 1] and "case" in small
    large = run_custom(problem, [1, 200_000]).to_dict()
    assert large["answered"] and large["expected"] is None and "case" not in large
    assert len(str(large["reference"])) < 20_000  # the shown form is bounded


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"a": "\\ud800"}', "is not valid Unicode"),
        ('{"a": 1e400}', "a number outside what the judge takes (1e400)"),
        ("[" + "1" * 2000 + "]", "a number outside what the judge takes"),
        ("[" * 100 + "]" * 100, "nested more than 64 levels deep"),
    ],
)
def test_input_no_server_could_store_or_send_back_is_refused_where_it_arrives(
    text: str, says: str
) -> None:
    """A lone surrogate could be stored by no database (the run then held its slot until it
    was given up as lost), 1e400 became Infinity, which no browser parses, and deep nesting
    broke the judge's own pickling: each is the input's fault, said in both languages."""
    from judge.problem.custom_input import parse_input

    with pytest.raises(InputRefused) as refused:
        parse_input(text)
    assert refused.value.said is not None and says in refused.value.said.en
    assert refused.value.said.render("zh") != refused.value.said.en


def test_a_problems_own_reason_is_said_in_both_languages() -> None:
    problem = ProblemSet(PROBLEMS).get("block-table")
    with pytest.raises(InputRefused) as refused:
        CustomInput.from_args(problem, {**TRACE, "num_blocks": 0})
    said = refused.value.said
    assert said is not None
    assert "num_blocks must be at least 1 (got 0)" in said.en
    assert "num_blocks 不能小于 1（实际是 0）" in said.render("zh")
    with pytest.raises(InputRefused) as refused:
        CustomInput.from_args(problem, {**TRACE, "ops": [["append", 0]]})
    said = refused.value.said
    assert 'ops[0]: an operation is ["append", seq_id, n] or ["free", seq_id]' in said.en
    assert 'ops[0]：每个操作必须是 ["append", seq_id, n] 或 ["free", seq_id]' in said.render("zh")
