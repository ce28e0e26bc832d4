"""Quiz problems: questions and an answer key as data, answer sheets judged without running
anything, the same verdicts in the browser wherever the browser can check, and the key
never in a bundle."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from quiz_factory import ANSWERS, QUESTIONS, QUIZ_TOML, RIGHT, MakeQuiz

from judge.browser.bundle import public_bundle
from judge.browser.public_run import run_public
from judge.commands.cli import main
from judge.commands.selfcheck import check_problem
from judge.errors import SourceError, SpecError
from judge.grading.quiz_grading import AT_SUBMIT
from judge.grading.report import CaseResult, Report
from judge.kinds.registry import kind_of
from judge.problem.spec import ProblemKind, ProblemSpec, load_problem
from judge.quiz.expression import Expression
from judge.verdict import Verdict

REPO = Path(__file__).resolve().parents[2]
PROPERTY = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,  # the same examples every run: a property test must not flake
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def judged(problem: ProblemSpec, source: str, seed: int | None = None) -> Report:
    """A submission judged by its problem's kind, as `judge run`, the runner and the web do."""
    return kind_of(problem).judge(problem, source, seed=seed)


def sheet(**changes: object) -> str:
    return json.dumps(RIGHT | changes)


def verdicts(report: Report) -> dict[str, Verdict | None]:
    return {c.name: c.verdict for c in report.cases}


def case(report: Report, name: str) -> CaseResult:
    return next(c for c in report.cases if c.name == name)


@pytest.fixture
def quiz(make_quiz: MakeQuiz) -> ProblemSpec:
    return load_problem(make_quiz())


# -- the folder ------------------------------------------------------------------------


def test_a_quiz_loads_as_a_quiz_with_its_questions(quiz: ProblemSpec) -> None:
    assert quiz.kind is ProblemKind.QUIZ and quiz.names == () and quiz.quiz is not None
    assert [q.id for q in quiz.quiz.questions] == ["sum", "pick", "picks", "formula"]
    assert quiz.summary()["kind"] == "quiz"
    assert json.loads(quiz.starter_source()) == dict.fromkeys(RIGHT)


def test_a_code_problem_is_of_kind_code_by_default(make_problem: object) -> None:
    assert load_problem(make_problem()).kind is ProblemKind.CODE  # type: ignore[operator]


@pytest.mark.parametrize(
    ("file", "old", "new", "field"),
    [
        ("problem.toml", 'kind = "quiz"', 'kind = "exam"', "kind"),
        ("problem.toml", 'tier = "browser"', 'tier = "torch"', "tier"),
        ("problem.toml", "[title]", '[submission]\nnames = ["x"]\n\n[title]', "submission"),
        ("problem.toml", "[title]", "[limits]\nmemory_mb = 1\n\n[title]", "limits"),
        ("questions.toml", 'id = "sum"', 'id = "Sum!"', "question[1].id"),
        ("questions.toml", 'type = "number"', 'type = "essay"', "question[1].type"),
        ("questions.toml", 'unit = "tokens"', 'hint = "add"', "question[1].hint"),
        ("questions.toml", 'prompt.en = "What is 1 + 2?"', "", "question[1].prompt.en"),
        ("questions.toml", '{ id = "one", zh = "一", en = "one" }, ', "", "question[2].options"),
        ("questions.toml", '{ id = "one", zh', '{ id = "two", zh', "question[2].options"),
        (
            "questions.toml",
            'variables = ["n", "p"]',
            'variables = ["n", "min"]',
            "question[4].variables",
        ),
        ("questions.toml", "{ n = 1, p = 5 }", "{ n = 1 }", "question[4].public_points"),
        ("questions.toml", 'id = "pick"', 'id = "sum"', "question.id"),
        ("answers.toml", "answer = 3", 'answer = "three"', "sum.answer"),
        ("answers.toml", "answer = 3", "answer = nan", "sum.answer"),
        ("answers.toml", 'answer = "two"', 'answer = "three"', "pick.answer"),
        ("answers.toml", 'answer = ["two", "three"]', 'answer = ["two", "two"]', "picks.answer"),
        ("answers.toml", "rel_tol = 0", "rel_tol = -1", "sum.rel_tol"),
        ("answers.toml", "rel_tol = 0", 'hint = "add"', "sum.hint"),
        ("answers.toml", "[sum]", "[nope]\nanswer = 1\n\n[sum]", "nope"),
        ("answers.toml", '"n * p + n * (n - 1) / 2"', '"n + x"', "formula.answer"),
        ("answers.toml", '"n * p + n * (n - 1) / 2"', '"n / (p - 5)"', "formula.answer"),
        ("answers.toml", '"n * p + n * (n - 1) / 2"', '"n / (n - 5000)"', "formula.answer"),
        ("answers.toml", "count = 5", "count = 0", "formula.draw.count"),
        ("answers.toml", "n = [1, 5000]", "n = [5000, 1]", "formula.draw.n"),
        ("answers.toml", 'explanation.en = "One and two make three."', "", "sum.explanation.en"),
    ],
)
def test_every_mistake_in_a_quiz_folder_names_its_file_and_field(
    make_quiz: MakeQuiz, file: str, old: str, new: str, field: str
) -> None:

    text = {"problem.toml": QUIZ_TOML.format(slug="quiz"), "questions.toml": QUESTIONS}
    text["answers.toml"] = ANSWERS
    assert old in text[file]
    with pytest.raises(SpecError) as caught:
        load_problem(make_quiz({file: text[file].replace(old, new, 1)}))
    assert caught.value.file.endswith(file) and caught.value.field == field, str(caught.value)


@pytest.mark.parametrize(
    ("files", "file"),
    [
        ({"starter.py": "x = 1\n"}, "starter.py"),
        ({"reference.py": "x = 1\n"}, "reference.py"),
        ({"answers.toml": None}, "answers.toml"),
        ({"questions.toml": "[[question]\n"}, "questions.toml"),
    ],
)
def test_a_quiz_has_its_own_files_and_no_code(
    make_quiz: MakeQuiz, files: dict[str, str | None], file: str
) -> None:
    with pytest.raises(SpecError) as caught:
        load_problem(make_quiz(files))
    assert caught.value.file.endswith(file)


def test_a_malformed_expect_key_names_the_sheet_and_the_field(make_quiz: MakeQuiz) -> None:
    problem = load_problem(make_quiz({"solutions/wrong/bad-sum.json": '{"_expect": "WA"}'}))
    with pytest.raises(SpecError) as caught:
        problem.wrong_solutions()
    assert caught.value.file.endswith("bad-sum.json") and caught.value.field == "_expect"


# -- judging ---------------------------------------------------------------------------


def test_the_right_answers_are_accepted_with_the_points_and_an_explanation_each(
    quiz: ProblemSpec,
) -> None:
    report = judged(quiz, sheet())
    assert report.verdict is Verdict.AC and report.score == 30 and report.passed == 4
    assert case(report, "sum").explanation == {
        "zh": "一加二得三。",
        "en": "One and two make three.",
    }
    assert all(c.explanation for c in report.cases)
    assert report.environment["launcher"] == "quiz"


@pytest.mark.parametrize(
    ("name", "answer", "message"),
    [
        # `sum` is exact (rel_tol = 0): a count has no tolerance to be outside of
        ("sum", 4, "not the right number (this answer is exact)"),
        ("sum", 3.0000001, "not the right number (this answer is exact)"),
        ("sum", 10**400, "not the right number (this answer is exact)"),  # too large for a float
        ("pick", "one", "not the right option"),
        ("picks", ["two"], "not the right set of options"),
        ("picks", ["two", "three", "four"], "not the right set of options"),
        ("formula", "n * n / 2", "differs from the expected value at n=1, p=5 (yours gives 0.5)"),
        ("formula", "n*p + n*(n-1)/2 + 0/(p-2)", "has no value at n=3, p=2: division by zero"),
    ],
)
def test_a_wrong_answer_is_wa_with_a_message_that_gives_nothing_away(
    quiz: ProblemSpec, name: str, answer: object, message: str
) -> None:
    report = judged(quiz, sheet(**{name: answer}))
    assert report.verdict is Verdict.WA and report.score == 0
    assert verdicts(report) == dict.fromkeys(RIGHT, Verdict.AC) | {name: Verdict.WA}
    wrong = case(report, name)
    assert wrong.message == message and wrong.explanation is None
    assert wrong.got is None and wrong.expected is None
    assert all(c.explanation for c in report.cases if c.name != name)


def test_an_expression_right_only_at_the_points_it_was_shown_fails_at_hidden_ones(
    quiz: ProblemSpec,
) -> None:
    """Zero at n = 1, 3 and 1000 (the public and fixed points), wrong at the drawn ones."""
    sneaky = "n*p + n*(n-1)/2 + (n-1)*(n-3)*(n-1000)"
    wrong = case(judged(quiz, sheet(formula=sneaky)), "formula")
    assert wrong.verdict is Verdict.WA
    assert wrong.message == "right at the public points, but differs at a point the judge chose"
    assert "n=" not in wrong.message


def test_a_number_within_the_tolerance_is_right(make_quiz: MakeQuiz) -> None:
    problem = load_problem(
        make_quiz({"answers.toml": ANSWERS.replace("rel_tol = 0", "rel_tol = 0.01")})
    )
    assert case(judged(problem, sheet(sum=3.02)), "sum").verdict is Verdict.AC


def test_a_number_with_a_tolerance_says_outside_it_and_an_exact_one_never_does(
    make_quiz: MakeQuiz,
) -> None:
    """Issue 23: a wrong token count said "outside the tolerance", though counts are exact."""
    exact = case(judged(load_problem(make_quiz()), sheet(sum=4)), "sum")
    loose = load_problem(
        make_quiz({"answers.toml": ANSWERS.replace("rel_tol = 0", "rel_tol = 0.01")})
    )
    assert case(judged(loose, sheet(sum=4)), "sum").message == "outside the tolerance"
    assert exact.verdict is Verdict.WA and "tolerance" not in exact.message
    assert exact.text is not None and exact.text.render("zh") == "数值不对（这道题要求精确相等）"


@pytest.mark.parametrize("blank", ["{}", '{"sum": null}', '{"_note": "nothing yet"}'])
def test_a_question_left_out_is_wa_not_answered(quiz: ProblemSpec, blank: str) -> None:
    report = judged(quiz, blank)
    assert report.verdict is Verdict.WA
    assert {c.message for c in report.cases} == {"not answered"}


def test_keys_beginning_with_an_underscore_are_notes(quiz: ProblemSpec) -> None:
    source = json.dumps({"_expect": "WA at case sum", "_why": [1, {"x": None}], **RIGHT})
    assert judged(quiz, source).verdict is Verdict.AC


@pytest.mark.parametrize(
    ("source", "message", "line"),
    [
        ("def add(a, b):\n    return a + b\n", "not JSON: Expecting value", 1),
        ('{"sum": 3,\n "pick": }', "not JSON: Expecting value (line 2, column 10)", 2),
        ("[3, 4]", "the answers must be one JSON object", None),
        ('"sum"', "the answers must be one JSON object", None),
        ('{"summ": 3}', "'summ' is not a question of this quiz; its questions are sum, pick", None),
        ('{"sum": 3, "sum": 4}', "'sum' is given twice", None),
        ('{"sum": NaN}', "NaN is not a number JSON allows", None),
        ('{"sum": Infinity}', "Infinity is not a number JSON allows", None),
        ('{"sum": ' + "1" * 5000 + "}", "a number too long", None),
        ("[" * 10_000 + "]" * 10_000, "nesting too deep", None),
    ],
)
def test_a_sheet_that_is_not_an_object_of_answers_is_ce_for_the_run(
    quiz: ProblemSpec, source: str, message: str, line: int | None
) -> None:
    report = judged(quiz, source)
    assert report.verdict is Verdict.CE and report.cases == ()
    assert report.compile_error is not None and report.compile_error["kind"] == "answers"
    assert message in str(report.compile_error["message"])
    assert report.compile_error["line"] == line


@pytest.mark.parametrize(
    ("name", "answer", "message"),
    [
        ("sum", "3", "answer with a number, not a string"),
        ("sum", True, "answer with a number, not true/false"),
        ("pick", ["two"], "answer with one option id (a string), not a list"),
        ("pick", "three", "'three' is not an option here; the options are one, two"),
        ("picks", "two", "answer with a list of option ids, not a string"),
        ("picks", ["two", "two"], "an option is listed twice"),
        (
            "formula",
            599500,
            'answer with an expression in a string (such as "n + 1"), not a number',
        ),
        ("formula", "__import__('os').getcwd()", "attribute access (a.b) is not allowed"),
        ("formula", "n * q", "'q' is not a variable of this question (variables: n, p)"),
        ("formula", "2 ** 10000", "has no value at n=1, p=5: an exponent is larger than 64"),
    ],
)
def test_an_answer_of_the_wrong_shape_is_ce_for_that_question_only(
    quiz: ProblemSpec, name: str, answer: object, message: str
) -> None:
    report = judged(quiz, sheet(**{name: answer}))
    wrong = case(report, name)
    assert wrong.message == message
    others = {n: v for n, v in verdicts(report).items() if n != name}
    assert set(others.values()) == {Verdict.AC}
    expected = Verdict.WA if "has no value" in message else Verdict.CE
    assert wrong.verdict is expected and report.verdict is expected


def test_an_empty_sheet_is_refused_like_empty_source(quiz: ProblemSpec) -> None:
    with pytest.raises(SourceError, match="empty"):
        judged(quiz, "  \n")


def test_a_question_the_key_does_not_answer_is_the_judges_failure(make_quiz: MakeQuiz) -> None:
    problem = load_problem(make_quiz({"answers.toml": ANSWERS.split("[pick]")[0]}))
    report = judged(problem, sheet())
    assert report.verdict is Verdict.IE and report.internal_error
    result = check_problem(problem)
    assert not result.ok and "no answer for pick, picks, formula" in result.checks[0].detail


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=40)
    | st.sampled_from(["one", "two", "three", "n*p", "n ** 99", "min(n, p)", "1/0"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=12,
)


@PROPERTY
@given(st.dictionaries(st.sampled_from([*RIGHT, "_x", "other"]), json_values))
def test_no_sheet_of_json_data_makes_the_judge_fail(quiz: ProblemSpec, data: dict) -> None:
    report = judged(quiz, json.dumps(data))
    assert report.verdict is not Verdict.IE, report.internal_error
    for result in report.cases:
        assert (result.explanation is not None) == (result.verdict is Verdict.AC)


@PROPERTY
@given(st.text(min_size=1, max_size=200))
def test_no_text_makes_the_judge_fail(quiz: ProblemSpec, text: str) -> None:
    try:
        report = judged(quiz, text)
    except SourceError:
        return
    assert report.verdict is not Verdict.IE, report.internal_error


def test_an_explanation_survives_the_report_round_trip(quiz: ProblemSpec) -> None:
    report = judged(quiz, sheet(sum=4))
    data = json.loads(json.dumps(report.to_dict()))
    assert "explanation" not in data["cases"][0] and data["cases"][1]["explanation"]["en"]
    assert Report.from_dict(data).to_dict() == report.to_dict()
    assert Report.from_dict(data).cases[1].explanation == report.cases[1].explanation
    data["cases"][1]["explanation"] = "why"
    with pytest.raises(ValueError, match="explanation"):
        Report.from_dict(data)


# -- the browser -----------------------------------------------------------------------


def browser(problem: ProblemSpec, source: str) -> dict:
    return json.loads(run_public(json.dumps(public_bundle(problem)), source))


def test_the_browser_checks_shapes_and_public_points_and_leaves_the_rest_to_the_server(
    quiz: ProblemSpec,
) -> None:
    report = browser(quiz, sheet(pick="one"))
    by_name = {c["name"]: c for c in report["cases"]}
    assert report["verdict"] == "AC" and report["score"] == 0
    assert by_name["pick"]["verdict"] is None and by_name["pick"]["message"] == AT_SUBMIT
    assert by_name["formula"]["verdict"] == "AC"
    assert not any("explanation" in c for c in report["cases"])
    wrong = browser(quiz, sheet(formula="n * n / 2", sum="3"))
    assert wrong["verdict"] == "CE"
    assert {c["name"]: c["verdict"] for c in wrong["cases"]} == {
        "sum": "CE",
        "pick": None,
        "picks": None,
        "formula": "WA",
    }
    assert browser(quiz, "[1]")["compile_error"]["kind"] == "answers"


@pytest.mark.parametrize(
    "source",
    [
        sheet(),
        "{}",
        sheet(sum=4, pick="one"),
        sheet(formula="n * n / 2"),
        sheet(formula="n*p + n*(n-1)/2 + (n-1)*(n-3)*(n-1000)"),
        sheet(picks="two", formula="n.real"),
        '{"sum": 3, "x": 1}',
    ],
)
def test_the_browser_agrees_with_the_judge_on_every_question_it_checks(
    quiz: ProblemSpec, source: str
) -> None:
    """A failure the browser finds is the judge's too; an expression right at the public
    points may still fail at the judge's own points, as a code problem's hidden cases can."""
    local = judged(quiz, source)
    seen = browser(quiz, source)
    assert ("compile_error" in seen) == (local.compile_error is not None)
    for result in seen["cases"]:
        there = case(local, result["name"])
        if result["verdict"] == "AC" and there.verdict is Verdict.WA:
            assert there.message.endswith("differs at a point the judge chose")
        elif result["verdict"] is not None:
            assert result["verdict"] == there.verdict.value


def _secret_strings(problem: ProblemSpec) -> list[str]:
    """Every explanation and reference expression in answers.toml."""
    assert problem.quiz is not None
    out = []
    for key in problem.quiz.keys.values():
        out += list(key.explanation.values())
        if isinstance(key.answer, Expression) and len(key.answer.text) > 1:
            out.append(key.answer.text)
    return out


@pytest.mark.parametrize("folder", [None, REPO / "problems" / "self-test"])
def test_no_bundle_carries_the_answer_key(make_quiz: MakeQuiz, folder: Path | None) -> None:
    import tomllib

    problem = load_problem(folder or make_quiz())
    text = json.dumps(public_bundle(problem), ensure_ascii=False)
    answers = tomllib.loads((problem.path / "answers.toml").read_text(encoding="utf-8"))
    for secret in _secret_strings(problem):
        assert secret not in text
    for key in answers.values():
        if type(key["answer"]) in (int, float) and key["answer"] > 100:  # a telling number
            assert not re.search(rf"(?<![\w.]){key['answer']}(?![\w.])", text), key["answer"]
        for point in key.get("points", []):  # the hidden fixed points
            assert json.dumps({"values": point}) not in text
    assert "reference" not in text and "answers.toml" not in text


# -- the command line ------------------------------------------------------------------


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_lists_the_kind(make_quiz: MakeQuiz, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(["--problems", str(make_quiz().parent), "list"], capsys)
    assert code == 0 and re.search(r"quiz\s+quiz\s+browser\s+30", out)


def test_cli_show_prints_the_questions_and_never_the_answers(
    make_quiz: MakeQuiz, capsys: pytest.CaptureFixture[str]
) -> None:
    root = str(make_quiz().parent)
    code, out, _ = cli(["--problems", root, "show", "quiz", "--lang", "en"], capsys)
    assert code == 0 and "quiz · 30 points · 4 questions" in out
    assert "What is 1 + 2?" in out and "- two: two" in out and "public points" in out
    assert "One and two make three" not in out and "n * p + n" not in out
    code, out, _ = cli(["--problems", root, "show", "quiz", "--lang", "zh"], capsys)
    assert "1 + 2 等于几？" in out and "- one: 一" in out
    code, out, _ = cli(["--problems", root, "show", "quiz", "--json"], capsys)
    data = json.loads(out)
    assert data["kind"] == "quiz" and [q["id"] for q in data["questions"]] == list(RIGHT)
    assert "explanation" not in out and "answer" not in json.dumps(data["questions"])


def test_cli_init_writes_a_blank_sheet_and_run_judges_it(
    make_quiz: MakeQuiz, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = str(make_quiz().parent)
    code, out, _ = cli(["--problems", root, "init", "quiz", str(tmp_path)], capsys)
    target = tmp_path / "quiz.json"
    assert code == 0 and json.loads(target.read_text()) == dict.fromkeys(RIGHT)
    assert f"judge --problems {root} run quiz {target}" in out  # typed as printed, it works
    assert cli(["--problems", root, "init", "quiz", str(tmp_path)], capsys)[0] == 2
    code, out, err = cli(["--problems", root, "run", "quiz", str(target)], capsys)
    assert code == 1 and "not answered" in out and "sandbox" not in err
    target.write_text(sheet(sum=4))
    code, out, _ = cli(["--problems", root, "run", "quiz", str(target)], capsys)
    assert code == 1 and "not the right number" in out and "pick: right. Two divides" in out
    assert "One and two make three" not in out
    target.write_text(sheet())
    code, out, _ = cli(["--problems", root, "run", "quiz", str(target), "--json"], capsys)
    assert code == 0 and json.loads(out)["verdict"] == "AC"
    target.write_text("{oops")
    code, out, _ = cli(["--problems", root, "run", "quiz", str(target)], capsys)
    assert code == 1 and "CE" in out and "not JSON" in out


def test_cli_check_passes_a_sound_quiz(
    make_quiz: MakeQuiz, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(["--problems", str(make_quiz().parent), "check", "--json"], capsys)
    checks = {c["name"]: c for c in json.loads(out)[0]["checks"]}
    assert code == 0, out
    assert set(checks) == {
        "answers.toml answers every question",
        "answer key AC (seed 20261129)",
        "answer key AC (seed 1)",
        "answer key AC (seed 2)",
        "blank sheet not AC",
        "empty sheet not AC",
        "bad-formula.json fails as declared",
        "bad-sum.json fails as declared",
    }
    assert checks["bad-sum.json fails as declared"]["declared"] == "_expect: WA at case sum"


@pytest.mark.parametrize(
    ("files", "failing"),
    [
        (
            {
                "solutions/wrong/bad-sum.json": json.dumps(
                    {"_expect": "WA at case pick", **RIGHT, "sum": 4}
                )
            },
            "bad-sum.json fails as declared",
        ),
        (
            {"solutions/wrong/bad-sum.json": json.dumps({"_expect": "WA at case sum", **RIGHT})},
            "bad-sum.json fails as declared",
        ),
        ({"solutions/wrong/bad-sum.json": None}, "wrong sheets"),
    ],
)
def test_cli_check_fails_a_wrong_sheet_that_does_not_fail_as_declared(
    make_quiz: MakeQuiz, capsys: pytest.CaptureFixture[str], files: dict, failing: str
) -> None:
    code, out, _ = cli(["--problems", str(make_quiz(files).parent), "check", "--json"], capsys)
    bad = [c["name"] for c in json.loads(out)[0]["checks"] if not c["ok"]]
    assert code == 1 and bad == [failing]


def test_the_self_test_quiz_passes_judge_check() -> None:
    problem = load_problem(REPO / "problems" / "self-test")
    result = check_problem(problem)
    assert result.ok, [f"{c.name}: {c.detail}" for c in result.checks if not c.ok]
    assert problem.order == 0 and problem.points == 50 and problem.chapter == "kv-cache"
