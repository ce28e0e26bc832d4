"""`judge check` passes for every problem: the reference is accepted on three seeds, the
starter is not, and every wrong solution gets the verdict it declares."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.selfcheck import check_problem
from judge.spec import load_problem

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = sorted(p.parent for p in (ROOT / "problems").glob("*/problem.toml"))


@pytest.mark.slow
@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_problem_proves_itself(folder: Path) -> None:
    result = check_problem(load_problem(folder))
    failed = [f"{c.name}: {c.detail}" for c in result.checks if not c.ok]
    assert result.ok, "\n".join(failed)
