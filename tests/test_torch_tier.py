"""Where torch is not installed, the tests that judge every problem skip the torch-tier
ones with a reason instead of failing (tests/torch_tier.py). Torch's absence is simulated
in a child pytest with an import blocker (`sys.modules["torch"] = None`), not by
uninstalling it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from judge.problem.problemset import ProblemSet

REPO = Path(__file__).resolve().parents[1]
TORCH_TIER = [p.slug for p in ProblemSet().all() if p.tier == "torch"]
# The tests that judge every problem: `judge check`, and judging in the sandbox.
EVERY_PROBLEM = (
    "tests/problems/test_problem_set.py::test_a_torch_problems_reference_is_accepted_by_the_local_judge",
    "tests/runner/test_problems_in_sandbox.py::test_judge_check_passes_in_the_sandbox_for_every_torch_problem",
)

BLOCKED_PYTEST = """
import sys
sys.modules["torch"] = None  # `import torch` now raises ModuleNotFoundError
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""


def _pytest_without_torch(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", BLOCKED_PYTEST, "-p", "no:cacheprovider", "-q", "-rs"]
    return subprocess.run(
        [*command, *args], cwd=REPO, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.skipif(not TORCH_TIER, reason="no torch-tier problem under problems/")
def test_torch_tier_problems_skip_with_a_reason_where_torch_is_missing() -> None:
    selected = " or ".join(TORCH_TIER)
    run = _pytest_without_torch(*EVERY_PROBLEM, "-k", selected)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "failed" not in out and "error" not in out.lower(), out
    for slug in TORCH_TIER:
        reason = f"{slug} is a torch-tier problem and torch is not installed here"
        assert out.count(reason) >= len(EVERY_PROBLEM), out  # `-rs` prints one line per skip


def test_browser_tier_problems_still_run_where_torch_is_missing() -> None:
    """The blocker is the test's only change: browser-tier problems are judged as ever."""
    browser = next(p.slug for p in ProblemSet().all() if p.tier == "browser")
    run = _pytest_without_torch(
        "tests/problems/test_problem_set.py::test_judge_check_passes", "-k", browser
    )
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "1 passed" in out, out
