"""The Node harness that runs Python under Pyodide for the parity test."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "pyodide_runner.mjs"
PYODIDE = HERE / "node_modules" / "pyodide" / "pyodide.mjs"

pytestmark = [
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
    pytest.mark.skipif(
        not PYODIDE.is_file(),
        reason="the pyodide npm package is missing; run `npm ci --prefix tests/problems`",
    ),
]

DEMO = {
    "demo/__init__.py": "",
    "demo/entry.py": (
        "import sys\n"
        "def add(a, b):\n"
        "    print('chatter that must not reach stdout')\n"
        "    return f'{int(a) + int(b)} {sys.platform}'\n"
    ),
}


def _run(request: dict[str, object]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["node", str(RUNNER)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_runner_answers_each_job_and_reports_python_errors_per_job() -> None:
    request = {
        "files": DEMO,
        "call": "demo.entry:add",
        "jobs": [{"id": "ok", "args": ["2", "3"]}, {"id": "bad", "args": ["2", "x"]}],
    }
    done = _run(request)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)  # printing inside Python went to stderr, not here
    assert answer["python"].startswith("3.14")
    ok, bad = answer["results"]
    assert ok == {"id": "ok", "value": "5 emscripten"}
    assert bad["id"] == "bad" and "ValueError" in bad["error"]
    assert "chatter that must not reach stdout" in done.stderr


@pytest.mark.parametrize("path", ["/etc/evil.py", "demo/../../evil.py"])
def test_runner_refuses_files_outside_its_home_folder(path: str) -> None:
    done = _run({"files": {path: "x = 1\n"}, "call": "demo.entry:add", "jobs": []})
    assert done.returncode == 1
    assert "refusing file path outside the home folder" in done.stderr


def test_runner_rejects_a_call_without_a_function_name() -> None:
    done = _run({"files": DEMO, "call": "demo.entry", "jobs": []})
    assert done.returncode == 1
    assert 'call must look like "package.module:function"' in done.stderr
