"""`judge run` and `judge check` where PyTorch is not installed: a torch-tier problem says
what to install (it was an internal error with a traceback); browser-tier ones still work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _without_torch(*argv: str) -> subprocess.CompletedProcess[str]:
    """The core's CLI in a child where `import torch` fails, as on a machine without it."""
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from judge.commands.cli import main\n"
        f"sys.exit(main({list(argv)!r}))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )


def test_running_a_torch_problem_says_pytorch_is_needed_and_how_to_install_it() -> None:
    reference = str(REPO / "problems" / "attention-decode" / "reference.py")
    result = _without_torch("run", "attention-decode", reference)
    assert result.returncode == 2, result.stderr
    assert "needs PyTorch" in result.stderr and "pip install torch" in result.stderr
    assert "Traceback" not in result.stderr


def test_checking_a_named_torch_problem_says_so_and_browser_problems_still_check() -> None:
    named = _without_torch("check", "attention-decode")
    assert named.returncode == 2 and "needs PyTorch" in named.stderr
    browser = _without_torch("check", "kv-bytes-per-token", "--json")
    assert browser.returncode == 0, browser.stderr
