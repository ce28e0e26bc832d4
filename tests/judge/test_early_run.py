"""`judge run SLUG FILE` starts its child from the words, before argparse: the run takes
that child, and a command line that does not take it leaves no process or folder behind."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest
from problem_factory import MakeProblem

import judge.run.launch as launch
from judge.commands import cli
from judge.commands.cli import main


class _Counted(launch.LocalProcess):
    made: ClassVar[list[_Counted]] = []

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        _Counted.made.append(self)


@pytest.fixture
def children(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[_Counted]:
    """Every local child the command starts; TMPDIR is this test's own (work folders)."""
    _Counted.made = []
    monkeypatch.setattr(launch, "LocalProcess", _Counted)
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    return _Counted.made


@pytest.fixture
def solution(tmp_path: Path) -> Path:
    path = tmp_path / "add.py"
    path.write_text("def add(a, b):\n    return a + b\n")
    return path


def _left_behind(tmp_path: Path, children: list[_Counted]) -> tuple[list[str], list[int]]:
    # Running, or exited but never reaped: either is a child left behind.
    running = [c.pid for c in children if Path(f"/proc/{c.pid}").exists()]
    return sorted(p.name for p in (tmp_path / "tmp").iterdir()), running


def test_a_plain_run_is_judged_in_the_child_started_before_the_parser(
    make_problem: MakeProblem,
    children: list[_Counted],
    solution: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    root = make_problem().parent
    started_before_parsing: list[int] = []
    build = cli.build_parser

    def watched(*args: object) -> object:
        started_before_parsing.append(len(children))
        return build(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(cli, "build_parser", watched)
    assert main(["--problems", str(root), "run", "add", str(solution), "--lang", "en"]) == 0
    assert started_before_parsing == [1] and len(children) == 1
    assert _left_behind(tmp_path, children) == ([], [])


@pytest.mark.parametrize(
    "extra", [["--device", "cpu"], ["--json"], ["--seed", "7"], ["--show-test"]]
)
def test_other_forms_of_run_judge_as_before_with_one_child_in_all(
    make_problem: MakeProblem,
    children: list[_Counted],
    solution: Path,
    tmp_path: Path,
    extra: list[str],
) -> None:
    root = make_problem().parent
    code = main(["--problems", str(root), "run", "add", str(solution), *extra])
    assert code == (2 if extra == ["--show-test"] else 0)  # every case passed: no test to show
    assert len(children) == 1
    assert _left_behind(tmp_path, children) == ([], [])


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["run", "add", "missing.py"], "no such file"),
        (["run", "add", "SOLUTION", "--no-such-option"], "unrecognized arguments"),
        (["run", "no-such-problem", "SOLUTION"], "no-such-problem"),
        (["run", "add"], "the following arguments are required"),
    ],
)
def test_a_command_line_that_takes_no_child_says_why_and_leaves_nothing(
    make_problem: MakeProblem,
    children: list[_Counted],
    solution: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    words: list[str],
    said: str,
) -> None:
    root = make_problem().parent
    words = [str(solution) if w == "SOLUTION" else w for w in words]
    assert main(["--problems", str(root), *words, "--lang", "en"]) == 2
    assert said in capsys.readouterr().err
    assert _left_behind(tmp_path, children) == ([], [])
