"""Every `>>>` example in a problem statement is true of that problem's reference.

Statements are written by hand in two languages; this keeps their worked examples from
drifting away from what the checker actually expects.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from judge.problem.cases import load_module

ROOT = Path(__file__).resolve().parents[2]
CODE_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _statements_with_examples() -> list[Path]:
    paths = sorted((ROOT / "problems").glob("*/statement.*.md"))
    return [p for p in paths if ">>>" in p.read_text(encoding="utf-8")]


STATEMENTS = _statements_with_examples()


def test_some_statements_have_runnable_examples() -> None:
    assert STATEMENTS, "no statement has a >>> example; this test would check nothing"


@pytest.mark.parametrize("path", STATEMENTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_statement_examples_match_the_reference(path: Path) -> None:
    folder = path.parent
    reference = load_module(
        (folder / "reference.py").read_text(encoding="utf-8"), "reference", str(folder)
    )
    blocks = [b for b in CODE_BLOCK.findall(path.read_text(encoding="utf-8")) if ">>>" in b]
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    parser = doctest.DocTestParser()
    report: list[str] = []
    for i, block in enumerate(blocks):
        test = parser.get_doctest(block, dict(vars(reference)), f"{path.name}#{i}", str(path), 0)
        runner.run(test, out=report.append)
    assert runner.tries > 0
    assert runner.failures == 0, "".join(report)
