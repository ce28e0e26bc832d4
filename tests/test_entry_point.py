"""The `judge` entry point (practice_judge.py, judge.py): the core's commands plus serve,
submit, runner and `run --sandbox` from the packages above it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from practice_judge import main

REPO = Path(__file__).resolve().parents[1]


def test_python_judge_py_works_from_the_repository(tmp_path: Path) -> None:
    """The handbook says `python judge.py ...`; run it as a learner would, in a fresh process."""
    solution = tmp_path / "kv.py"
    reference = REPO / "problems" / "kv-bytes-per-token" / "reference.py"
    solution.write_text(reference.read_text())
    proc = subprocess.run(
        [sys.executable, "judge.py", "run", "kv-bytes-per-token", str(solution)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "AC  Accepted" in proc.stdout


def test_python_judge_py_has_the_commands_of_the_packages_above_the_core() -> None:
    proc = subprocess.run(
        [sys.executable, "judge.py", "submit", "--help"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and "--server" in proc.stdout, proc.stderr


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "judge"
    if not script.exists():
        pytest.skip("the package is not installed in this interpreter (make test installs it)")
    proc = subprocess.run(
        [str(script), "list", "--json"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0 and "kv-bytes-per-token" in proc.stdout
    # The whole command, not the core alone: an install older than practice_judge fails here.
    proc = subprocess.run(
        [str(script), "submit", "--help"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0 and "--server" in proc.stdout, proc.stderr


def test_serve_submit_and_runner_take_their_own_options(capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: options right after the subcommand (`judge serve --port 0`) reach it."""
    with pytest.raises(SystemExit) as info:
        main(["serve", "--help"])
    assert info.value.code == 0 and "--port" in capsys.readouterr().out
    with pytest.raises(SystemExit) as info:
        main(["submit", "--help"])
    assert info.value.code == 0 and "--server" in capsys.readouterr().out


def test_runner_doctor_reports_the_protections(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["runner", "doctor", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0, data
    assert data["identity"]["user"] == "judge-sandbox" or data["identity"]["uid"] != 0


@pytest.mark.parametrize(
    ("argv", "module", "message"),
    [
        (["serve"], "web.cli", "`judge serve` needs the web package and its extras"),
        (["submit", "x", "y.py"], "web.cli", "`judge submit` needs the web package"),
        (["runner", "doctor"], "runner.cli", "`judge runner` needs the runner package"),
        (["run", "--sandbox", "kv-bytes-per-token", "x.py"], "runner.api", "--sandbox needs"),
    ],
)
def test_a_command_whose_package_is_absent_is_one_line_and_exit_2(
    argv: list[str],
    module: str,
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """As on a machine with only the core installed (a None entry makes the import fail)."""
    monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.py").write_text("def kv_bytes_per_token(**kw):\n    return 0\n")
    code = main(["--problems", str(REPO / "problems"), *argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("judge: ") and message in err
