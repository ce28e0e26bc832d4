"""A local child of a torch problem imports torch when it starts, beside the parent's own
import, not when the submission arrives (judge/run/launch.py, TIER_PRELOAD); a browser problem's
child never imports it, and a problem's withheld mini_llm parts stay hidden."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from judge.commands.cli import main
from judge.problem.problemset import ProblemSet
from judge.run.launch import child_command

REPO = Path(__file__).resolve().parents[2]
PROBE = 'import sys\nprint("torch imported before me:", "torch" in sys.modules)\n'


def _printed_at_load(slug: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """What a submission printed when it started loading: its reference, with PROBE first."""
    solution = tmp_path / f"{slug}.py"
    solution.write_text(PROBE + (REPO / "problems" / slug / "reference.py").read_text())
    code = main(["run", slug, str(solution), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    return str(report["stdout"])


def test_a_torch_problems_submission_finds_torch_already_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "torch imported before me: True" in _printed_at_load(
        "attention-decode", tmp_path, capsys
    )


def test_a_browser_problems_child_does_not_import_torch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    printed = _printed_at_load("kv-bytes-per-token", tmp_path, capsys)
    assert "torch imported before me: False" in printed


def test_the_preload_leaves_mini_llm_to_the_submissions_own_imports() -> None:
    """Only torch is imported early: a problem's withheld parts of mini_llm are hidden when
    the submission loads, so nothing of mini_llm may be imported before it."""
    limits = ProblemSet(REPO / "problems").get("attention-decode").limits
    boot = child_command(3, 4, limits, "torch")[-1]
    before_main, _, _ = boot.rpartition("from judge.run.child_main import main")
    shown = "print('torch' in sys.modules, sorted(m for m in sys.modules if 'mini_llm' in m))"
    out = subprocess.run(
        [sys.executable, "-I", "-c", before_main + shown],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True []"
