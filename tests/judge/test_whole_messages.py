"""Messages reach the learner whole (issue 12, section 1).

`judge run`'s table cut every message at 70 characters with "…" ("(got 2…" without the
"(expected 1)" that followed); text a submission controls was cut without a word. Now
rows wrap, and only text that could be megabytes has a cap, which says how much it cut.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from problem_factory import MakeProblem

from judge.commands.cli import main
from judge.commands.render import table
from judge.problem.spec import load_problem
from judge.run.child import MESSAGE_CHARS, TRACEBACK_CHARS
from judge.run.judge_source import judge_source
from judge.verdict import Verdict

LONG_REASON = " ".join(f"word{i}" for i in range(60)) + " (expected 1)"


def test_a_long_message_wraps_in_the_table_and_keeps_every_word(
    make_problem: MakeProblem,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    solution = tmp_path / "add.py"
    solution.write_text(f"def add(a, b):\n    raise ValueError({LONG_REASON!r})\n")
    root = make_problem().parent
    assert main(["--problems", str(root), "run", "add", str(solution)]) == 1
    out = capsys.readouterr().out
    table_part = out.split("\nfirst failure")[0]
    assert "…" not in table_part
    assert all(len(line) <= 80 for line in table_part.splitlines())
    row = table_part.split("\n1 ")[1].split("\n2 ")[0]
    assert " ".join(row.split()).endswith(f"ValueError: {LONG_REASON}")


def test_table_cells_wrap_under_their_own_column(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "20")  # narrower than the narrowest message column (30)
    text = table(("#", "message"), [["1", "a" * 45]], wrap_last=True)
    lines = text.splitlines()
    assert lines[2] == "1  " + "a" * 30 and lines[3] == "   " + "a" * 15


def test_an_exception_message_past_the_cap_says_how_much_was_cut(
    make_problem: MakeProblem,
) -> None:
    problem = load_problem(make_problem())
    report = judge_source(problem, "def add(a, b):\n    raise ValueError('m' * 5000)\n")
    case = report.cases[0]
    assert case.verdict is Verdict.RE
    whole = len("ValueError: ") + 5000
    assert case.message.startswith("ValueError: " + "m" * (MESSAGE_CHARS - 12))
    assert f"{whole - MESSAGE_CHARS:,} more characters not shown" in case.message


def test_a_traceback_past_the_cap_says_how_much_was_cut(make_problem: MakeProblem) -> None:
    problem = load_problem(make_problem())
    source = "def add(a, b):\n    return add(a, b)  # " + "x" * 80 + "\n"
    report = judge_source(problem, source)
    traceback = report.cases[0].traceback
    assert report.cases[0].verdict is Verdict.RE
    assert "more characters not shown" in traceback
    assert len(traceback) < TRACEBACK_CHARS + 100
