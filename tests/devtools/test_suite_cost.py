"""devtools/suite_cost.py: a JUnit report summed by kind of work and by file."""

from __future__ import annotations

from pathlib import Path

import pytest

from devtools.suite_cost import kind_of, main

REPORT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4">
<testcase classname="tests.web.e2e.test_quiz" name="test_a" time="6.0"/>
<testcase classname="tests.web.e2e.test_quiz" name="test_b" time="4.0"/>
<testcase classname="tests.runner.test_problems_in_sandbox" name="test_c[serve-engine]" time="30.0"/>
<testcase classname="tests.judge.test_cli" name="test_d" time="0.5"/>
</testsuite></testsuites>
"""


def test_the_report_is_summed_by_kind_and_by_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.xml"
    report.write_text(REPORT)
    assert main([str(report), "--wall", "20"]) == 0
    out = capsys.readouterr().out
    assert "| problems checked in the sandbox | 1 | 30 | 74% |" in out
    assert "| browser e2e (Chromium) | 2 | 10 | 25% |" in out
    assert "| all | 4 | 40 | 100% |" in out
    assert "the tests' seconds are 2.02x the wall" in out
    assert out.index("test_problems_in_sandbox.py") < out.index("test_quiz.py")


def test_every_test_file_has_a_kind() -> None:
    root = Path(__file__).resolve().parents[2]
    for path in (root / "tests").rglob("test_*.py"):
        assert kind_of(str(path.relative_to(root)))


@pytest.mark.parametrize("text", [None, "not xml <"])
def test_a_missing_or_broken_report_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str | None
) -> None:
    report = tmp_path / "report.xml"
    if text is not None:
        report.write_text(text)
    assert main([str(report)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("suite_cost: ") and err.count("\n") == 1
