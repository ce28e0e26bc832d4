"""The `judge` entry point (practice_judge.py, judge.py): the core's commands plus serve,
submit, runner and `run --sandbox` from the packages above it."""

from __future__ import annotations

import json
import os
import shlex
import shutil
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


def _installed_judge() -> Path:
    script = Path(sys.executable).parent / "judge"
    if not script.exists():
        pytest.skip("the package is not installed in this interpreter (make test installs it)")
    return script


def _entry(kind: str) -> list[str]:
    """The installed `judge` command or `python judge.py` from the checkout."""
    if kind == "installed":
        return [str(_installed_judge())]
    return [sys.executable, str(REPO / "judge.py")]


def _quiet_after_the_reader_left(proc: subprocess.Popen[bytes]) -> int:
    assert proc.stderr is not None
    with proc.stderr:
        err = proc.stderr.read().decode()
    code = proc.wait(timeout=120)
    assert "BrokenPipeError" not in err and "Traceback" not in err and "Exception" not in err, err
    return code


@pytest.mark.parametrize("kind", ["installed", "judge.py"])
@pytest.mark.parametrize(
    "argv",
    [
        ["list"],
        ["show", "kv-bytes-per-token"],
        ["run", "kv-bytes-per-token", str(REPO / "problems/kv-bytes-per-token/reference.py")],
        ["check", "kv-bytes-per-token"],
    ],
    ids=["list", "show", "run", "check"],
)
def test_a_reader_that_closes_the_pipe_ends_the_command_quietly(kind: str, argv: list[str]) -> None:
    """Regression: `judge list | head -1` printed a BrokenPipeError traceback. The pipe is
    closed before the command writes (it is still starting), so every write meets it closed."""
    proc = subprocess.Popen(
        [*_entry(kind), *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO
    )
    assert proc.stdout is not None
    proc.stdout.close()
    assert _quiet_after_the_reader_left(proc) == 141  # 128 + SIGPIPE, as judge/commands/cli.py says


@pytest.mark.parametrize("kind", ["installed", "judge.py"])
def test_a_reader_that_takes_one_line_and_leaves_ends_it_quietly(kind: str, tmp_path: Path) -> None:
    """`judge show big | head -1`: the statement outgrows the pipe, so the command is still
    writing when the reader leaves after the first line."""
    problems = tmp_path / "problems"
    shutil.copytree(REPO / "problems" / "kv-bytes-per-token", problems / "kv-bytes-per-token")
    statement = problems / "kv-bytes-per-token" / "statement.en.md"
    statement.write_text(statement.read_text() + "padding\n" * 100_000)  # 800 kB
    proc = subprocess.Popen(
        [*_entry(kind), "--problems", str(problems), "show", "kv-bytes-per-token"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "LANG": "C.UTF-8"},
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip()
    proc.stdout.close()
    assert _quiet_after_the_reader_left(proc) == 141


@pytest.fixture
def handbook_folder(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The handbook's layout: a checkout named practice/ and the reader in its parent folder,
    with `python` on PATH (a link to this interpreter; the core needs only the stdlib)."""
    (tmp_path / "practice").symlink_to(REPO, target_is_directory=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    (bin_dir / "judge").symlink_to(Path(sys.executable).parent / "judge")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("JUDGE_PROBLEMS", None)
    return tmp_path, env


def _typed(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        shlex.split(command), cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_python_practice_judge_py_works_from_the_parent_folder_as_the_handbook_says(
    handbook_folder: tuple[Path, dict[str, str]],
) -> None:
    """The handbook: 也可以在本地用 python practice/judge.py 判题. init names the next command
    in that form, and typed as printed, it judges the file."""
    here, env = handbook_folder
    listed = _typed("python practice/judge.py list", here, env)
    assert listed.returncode == 0 and "kv-bytes-per-token" in listed.stdout, listed.stderr
    init = _typed("python practice/judge.py init kv-bytes-per-token .", here, env)
    assert init.returncode == 0, init.stderr
    printed = init.stdout.strip().rpartition("judge it with: ")[2]
    assert printed == "python practice/judge.py run kv-bytes-per-token kv_bytes_per_token.py"
    reference = REPO / "problems" / "kv-bytes-per-token" / "reference.py"
    (here / "kv_bytes_per_token.py").write_text(reference.read_text())
    judged = _typed(printed, here, env)
    assert judged.returncode == 0 and "AC  Accepted" in judged.stdout, judged.stderr
    unknown = _typed("python practice/judge.py show kv-bytes", here, env)
    assert "`python practice/judge.py list` shows them all" in unknown.stderr
    assert _typed("python practice/judge.py list", here, env).returncode == 0


def test_the_installed_command_names_itself_in_its_hints(
    handbook_folder: tuple[Path, dict[str, str]],
) -> None:
    _installed_judge()
    here, env = handbook_folder
    init = _typed("judge init kv-bytes-per-token .", here, env)
    assert init.returncode == 0, init.stderr
    printed = init.stdout.strip().rpartition("judge it with: ")[2]
    assert printed == "judge run kv-bytes-per-token kv_bytes_per_token.py"
    judged = _typed(printed, here, env)
    assert judged.returncode == 1 and "Accepted" not in judged.stdout  # the starter fails


def _entry_with(prelude: str, argv: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`judge ARGV` through practice_judge.entry(), after `prelude` ran in the same process."""
    script = tmp_path / "judge_with_prelude.py"
    script.write_text(
        f"import sys\nsys.path.insert(0, {str(REPO)!r})\nsys.argv = ['judge', *{argv!r}]\n"
        f"{prelude}\nfrom practice_judge import entry\nentry()\n"
    )
    return subprocess.run(
        [sys.executable, str(script)], cwd=REPO, capture_output=True, text=True, timeout=120
    )


def test_the_command_ends_with_its_exit_code_after_the_exit_handlers_ran(tmp_path: Path) -> None:
    """The process skips the interpreter's teardown, not what a normal exit does that anyone
    could see: the handlers registered with atexit run, their output and the report's arrive
    whole, and the exit code is the verdict's."""
    wrong = REPO / "problems/kv-bytes-per-token/solutions/wrong/forgets_gqa.py"
    prelude = "import atexit\natexit.register(print, 'the exit handler ran')"
    proc = _entry_with(prelude, ["run", "kv-bytes-per-token", str(wrong), "--json"], tmp_path)
    assert proc.returncode == 1, proc.stderr  # a wrong answer: EXIT_FAIL
    report, _, after = proc.stdout.rpartition("}")
    assert json.loads(report + "}")["verdict"] == "WA"
    assert after.strip() == "the exit handler ran"


def test_the_command_waits_for_a_thread_still_running_as_a_normal_exit_does(
    tmp_path: Path,
) -> None:
    """A thread that is not a daemon finishes its work before the process ends."""
    done = tmp_path / "done"
    prelude = (
        "import threading, time, pathlib\n"
        f"def work():\n    time.sleep(0.5)\n    pathlib.Path({str(done)!r}).write_text('yes')\n"
        "threading.Thread(target=work).start()"
    )
    proc = _entry_with(prelude, ["list"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert done.read_text() == "yes"


def test_a_profiled_command_still_prints_the_profile() -> None:
    """`python -m cProfile judge.py ...` prints its table after the script returns: the
    process must not end before it."""
    proc = subprocess.run(
        [sys.executable, "-m", "cProfile", "-s", "cumtime", "judge.py", "list"],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "kv-bytes-per-token" in proc.stdout and "function calls" in proc.stdout
