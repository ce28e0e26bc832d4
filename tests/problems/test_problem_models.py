"""problem.toml `models` names exactly the checkpoints a torch problem's cases load: a fresh
sandbox worker loads those alone for its job (runner/worker.py), so a missing name costs the
job a load from disk and an extra one costs every cold start its load."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# In a process of its own, so that the zoo's table starts empty: for each torch problem,
# what running its public cases on the reference loads (cases.py's own import included),
# and the checkpoints its generated cases (the public seed's) name as `model`.
_PROBE = """
import json, sys
sys.path.insert(0, ".")
from mini_llm import zoo
from judge.kinds.registry import kind_of
from judge.problem.cases import build_cases, public_cases
from judge.problem.problemset import ProblemSet
from judge.run.judge_source import run_reference

found = {}
for problem in ProblemSet(None).all():
    if problem.tier != "torch" or not kind_of(problem).runs_code:
        continue
    zoo._loaded.clear()
    zoo._on_device.clear()
    run_reference(problem, public_cases(problem))
    loaded = set(zoo._loaded)
    for case in build_cases(problem, None):
        if isinstance(case.args, dict) and isinstance(case.args.get("model"), str):
            loaded.add(case.args["model"])
    found[problem.slug] = {"declared": sorted(problem.models), "loaded": sorted(loaded)}
print(json.dumps(found))
"""


@pytest.mark.slow
def test_each_torch_problem_names_exactly_the_checkpoints_its_cases_load() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=REPO, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.splitlines()[-1])
    assert found, "no torch problem was probed"
    wrong = {slug: seen for slug, seen in found.items() if seen["declared"] != seen["loaded"]}
    assert not wrong, f"problem.toml `models` differs from what the cases load: {wrong}"
