"""A kind of problem is one class and one `register` call (judge/kinds/).

The toy kind below, written in this module alone, asks for one word: its folder holds
answer.txt, and a submission is that word. Registering it is all it takes for its folders
to load and for every command that asks a problem's kind to judge, show and check it;
no module of the judge is edited for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge.commands.cli import main
from judge.errors import SpecError
from judge.grading.report import CaseResult, Report
from judge.kinds.kind import BUNDLE_FORMAT, ProblemKindType, title_line
from judge.kinds.proof import Check
from judge.kinds.registry import kind_of, register, unregister
from judge.messages import Message, say
from judge.problem.limits import Limits
from judge.problem.spec import ProblemSpec, ProblemToml, load_problem, parse_check
from judge.verdict import Verdict

TOY_FILES = ("problem.toml", "statement.zh.md", "statement.en.md", "answer.txt")


class ToyKind(ProblemKindType):
    """A one-word answer, compared with answer.txt: data, so nothing runs."""

    name = "toy"
    runs_code = False
    starter_suffix = ".txt"

    def load(self, toml: ProblemToml) -> ProblemSpec:
        toml.require(TOY_FILES)
        limits = Limits(time_per_case_s=1.0, total_time_s=1.0, memory_mb=64)
        checker = parse_check({}, toml.file, "checker")
        return toml.common().spec(limits, (), checker, toml.folder, kind=self.name)

    def judge(self, problem: ProblemSpec, source: str, *, seed: int | None = None,
              **unused: object) -> Report:  # fmt: skip
        answer = (problem.path / "answer.txt").read_text(encoding="utf-8").strip()
        verdict = Verdict.AC if source.strip() == answer else Verdict.WA
        said = say("quiz.right") if verdict is Verdict.AC else say("quiz.not_answered")
        case = CaseResult("word", True, verdict, message=said.en)
        score = problem.points if verdict is Verdict.AC else 0
        return Report(problem.slug, problem.version, verdict, score, (case,))

    def public_bundle(self, problem: ProblemSpec) -> dict[str, object]:
        return {"format": BUNDLE_FORMAT, "kind": self.name, "problem": problem.summary()}

    def self_check(self, problem: ProblemSpec, launcher: object, checks: list[Check]) -> None:
        answer = (problem.path / "answer.txt").read_text(encoding="utf-8")
        report = self.judge(problem, answer)
        checks.append(Check("answer AC", report.verdict is Verdict.AC, report.verdict.value))

    def show_text(self, problem: ProblemSpec, lang: str) -> str:
        return f"{title_line(problem, lang)}\none word\n\n{problem.statement(lang)}"

    def init_said(self, target: Path, show: str, run: str) -> Message:
        return say("cli.init_wrote", target=str(target), run=run)


@pytest.fixture
def toy_kind() -> Iterator[ToyKind]:
    kind = ToyKind()
    register(kind)
    yield kind
    unregister(kind.name)


@pytest.fixture
def problems(tmp_path: Path) -> Path:
    folder = tmp_path / "problems" / "one-word"
    folder.mkdir(parents=True)
    (folder / "problem.toml").write_text(
        'slug = "one-word"\nkind = "toy"\norder = 1\nchapter = "toys"\ntier = "browser"\n'
        'points = 10\ntags = ["toy"]\n[title]\nzh = "一个词"\nen = "One word"\n',
        encoding="utf-8",
    )
    (folder / "statement.zh.md").write_text("写下那个词。\n", encoding="utf-8")
    (folder / "statement.en.md").write_text("Write the word.\n", encoding="utf-8")
    (folder / "answer.txt").write_text("kv\n", encoding="utf-8")
    return tmp_path / "problems"


def test_a_folder_of_an_unregistered_kind_is_refused_naming_the_field(problems: Path) -> None:
    with pytest.raises(SpecError) as err:
        load_problem(problems / "one-word")
    assert err.value.field == "kind" and "'toy'" in str(err.value)


def test_a_registered_kind_loads_its_folders(problems: Path, toy_kind: ToyKind) -> None:
    problem = load_problem(problems / "one-word")
    assert problem.kind == "toy" and kind_of(problem) is toy_kind
    assert problem.summary()["kind"] == "toy" and problem.title["en"] == "One word"


def test_a_registered_kind_judges_its_submissions(problems: Path, toy_kind: ToyKind) -> None:
    problem = load_problem(problems / "one-word")
    right, wrong = kind_of(problem).judge(problem, "kv"), kind_of(problem).judge(problem, "qk")
    assert (right.verdict, right.score) == (Verdict.AC, 10)
    assert (wrong.verdict, wrong.score) == (Verdict.WA, 0)


def test_the_commands_list_show_run_and_check_a_registered_kind(
    problems: Path, toy_kind: ToyKind, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ["--problems", str(problems)]  # before the command
    assert main([*root, "list", "--json"]) == 0
    assert [p["kind"] for p in json.loads(capsys.readouterr().out)] == ["toy"]
    assert main([*root, "list", "--lang", "en"]) == 0
    assert "toy" in capsys.readouterr().out
    assert main([*root, "show", "one-word", "--lang", "en"]) == 0
    assert capsys.readouterr().out == "One word  [one-word]\none word\n\nWrite the word.\n\n"
    answer = tmp_path / "answer.txt"
    answer.write_text("kv\n", encoding="utf-8")
    assert main([*root, "run", "one-word", str(answer), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "AC"
    answer.write_text("qk\n", encoding="utf-8")
    assert main([*root, "run", "one-word", str(answer), "--json"]) == 1
    capsys.readouterr()
    assert main([*root, "check", "one-word", "--json"]) == 0
    checks = json.loads(capsys.readouterr().out)[0]["checks"]
    assert checks == [{"name": "answer AC", "ok": True, "detail": "AC"}]


def test_a_registered_kind_makes_its_own_public_bundle(problems: Path, toy_kind: ToyKind) -> None:
    from judge.browser.bundle import public_bundle

    bundle = public_bundle(load_problem(problems / "one-word"))
    assert bundle["kind"] == "toy" and bundle["format"] == BUNDLE_FORMAT
