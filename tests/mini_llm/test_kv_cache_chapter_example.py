"""examples/kv_cache_chapter.py (the handbook's three snippets) runs as given on SmolLM2."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def one_core() -> None:
    """The child runs on one core, so its snippets use one torch thread: the suite's other
    worker runs beside it, and two torch threads on two busy cores spin against each other
    (43 s instead of 11 s on the 2-core dev machine)."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def test_chapter_snippets_run_and_report_each_measurement(smollm2_dir: Path) -> None:
    env = os.environ | {"PYTHONPATH": str(REPO_ROOT), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples/kv_cache_chapter.py"), str(smollm2_dir)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
        preexec_fn=one_core,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    diff = float(re.search(r"max logit diff (\S+);", out).group(1))  # type: ignore[union-attr]
    assert diff < 1e-3
    assert re.search(r"K shape \(1, 3, \d+, 64\)", out)
    assert re.search(r"prefill \d+ tokens: \d+ ms \(\d+\.\d ms per token\)", out)
    assert re.search(r"decode: \d+\.\d ms per token", out)
    assert re.search(r"batch=1: .* ms per step; batch=8: .* ms per step", out)
