"""The server never judges unsandboxed by default, and the unsafe-local backend keeps the
server's secrets, database and reference solutions from the uid that runs submissions
(issue 10, section 2: submitted code ran as root and printed instance/secret_key,
judge_seed and reference.py; a cookie signed with that key gave admin rights)."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from problem_factory import write_web_problem
from web_helpers import make_user, state, submit, wait_judged

from web import cli, create_app
from web.config import WebConfig, load_config
from web.store.filemodes import exposed_to, hide_from

ENV = ("JUDGE_INSTANCE", "JUDGE_DATABASE_URL", "JUDGE_SECRET_KEY", "JUDGE_SEED", "JUDGE_BACKEND")
needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="only a root server switches submissions to judge-sandbox"
)

# Passes every case only if each path raised PermissionError; otherwise says what it read.
PROBE = """
import os

PATHS = {paths!r}


def _try(path):
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            with open(path, "rb") as handle:
                handle.read(16)
    except PermissionError:
        return "denied"
    except OSError as exc:
        return f"other error {{exc!r}}"
    return "READ"


FOUND = {{path: _try(path) for path in PATHS}}


def add(a, b):
    if os.getuid() == 0 or any(result != "denied" for result in FOUND.values()):
        raise RuntimeError(f"uid {{os.getuid()}}: {{FOUND}}")
    return a + b
"""


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder every user may enter (pytest's own tmp folders are 0700, which would hide
    everything in them whatever the server does)."""
    folder = Path(tempfile.mkdtemp(prefix="judge-unsafe-local-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def unsafe_config(folder: Path) -> WebConfig:
    problems = folder / "problems"
    problems.mkdir(mode=0o755)
    write_web_problem(problems, "add-two")
    return load_config(
        folder / "instance",
        problems_dir=problems,
        judge_backend="unsafe-local",
        workers=1,
        password_method="pbkdf2:sha256:1000",
        retry_delay_s=0.0,
    )


def test_the_server_judges_in_the_sandbox_unless_told_otherwise(
    tmp_path: Path, clean_env: None
) -> None:
    """Pins: JUDGE_BACKEND defaulted to `local`, which runs submissions unsandboxed."""
    assert load_config(tmp_path / "instance").judge_backend == "sandbox"
    assert WebConfig("sqlite://", tmp_path, "k", 1).judge_backend == "sandbox"


def test_the_old_local_backend_name_is_refused_naming_its_unsafe_replacement(
    tmp_path: Path,
    clean_env: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Pins: `JUDGE_BACKEND=local` silently served without a sandbox."""
    config = load_config(tmp_path / "instance", judge_backend="local")
    with pytest.raises(ValueError, match="'local' is now called 'unsafe-local'"):
        create_app(config)
    monkeypatch.setenv("JUDGE_BACKEND", "local")
    assert cli.serve(["--instance", str(tmp_path / "instance")]) == cli.EXIT_ERROR
    assert "'local' is now called 'unsafe-local'" in capsys.readouterr().err


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "", "192.0.2.7", "judge.example.org"])
def test_serve_refuses_the_unsafe_local_judge_off_loopback(
    tmp_path: Path, clean_env: None, capsys: pytest.CaptureFixture[str], host: str
) -> None:
    """Pins: the unsandboxed judge could be served to the whole network."""
    argv = ["--host", host, "--unsafe-local-judge", "--instance", str(tmp_path / "i")]
    assert cli.serve(argv) == cli.EXIT_ERROR
    assert "only on a loopback address" in capsys.readouterr().err


def test_loopback_means_127_0_0_0_8_ipv6_one_or_localhost() -> None:
    assert all(map(cli.is_loopback, ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost"]))
    assert not any(map(cli.is_loopback, ["0.0.0.0", "::", "", "10.0.0.1", "localhost.evil"]))


def test_the_instance_folder_is_0700_and_its_secrets_and_database_0600(
    tmp_path: Path, clean_env: None, problems_root: Path
) -> None:
    """Pins: the SQLite file (and its WAL) were created 0644, the instance folder 0755,
    and a secret file copied in with 0644 stayed readable to every user."""
    instance = tmp_path / "instance"
    instance.mkdir(mode=0o755)
    (instance / "judge_seed").write_text("00ff00ff00ff00ff", encoding="ascii")
    (instance / "judge_seed").chmod(0o644)
    config = load_config(
        instance, problems_dir=problems_root, judge_backend="unsafe-local", workers=1
    )
    app = create_app(config)
    try:
        client = app.test_client()
        make_user(client, "ada")  # a write, so the WAL and shared-memory files exist
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in [instance, *instance.iterdir()]}
    finally:
        state(app).close()
    assert modes.pop("instance") == 0o700
    assert {"secret_key", "judge_seed", "judge.sqlite3", "judge.sqlite3-wal"} <= set(modes)
    assert modes == dict.fromkeys(modes, 0o600)


@needs_root
def test_a_submission_on_unsafe_local_cannot_read_secrets_database_or_references(
    open_folder: Path, clean_env: None
) -> None:
    """Pins: on the local backend, code submitted to a root server read instance/secret_key,
    instance/judge_seed, the database and problems/*/reference.py."""
    config = unsafe_config(open_folder)
    instance, problems = open_folder / "instance", open_folder / "problems"
    targets = [
        instance / "secret_key",
        instance / "judge_seed",
        instance / "judge.sqlite3",
        problems / "add-two" / "reference.py",
        problems,
    ]
    app = create_app(config)
    try:
        assert all(path.exists() for path in targets)
        client = app.test_client()
        ada = make_user(client, "ada")
        sid = submit(client, ada, PROBE.format(paths=[str(p) for p in targets]))
        wait_judged(app)
        view = client.get(f"/api/submissions/{sid}", headers=ada.auth).json
    finally:
        state(app).close()
    messages = [case.get("message") for case in view.get("cases", [])]
    assert view["verdict"] == "AC", (view["verdict"], messages, view.get("compile_error"))
    assert stat.S_IMODE(problems.stat().st_mode) == 0o700  # the server hid its own folder


@needs_root
def test_a_root_server_refuses_unsafe_local_when_it_cannot_hide_the_problems(
    open_folder: Path, clean_env: None
) -> None:
    """A problems folder owned by someone else and open to all is not silently exposed."""
    config = unsafe_config(open_folder)
    os.chown(config.problems_dir, 65534, 65534)  # nobody: not ours to chmod
    with pytest.raises(PermissionError, match="can be read by uid"):
        create_app(config)


def test_hide_from_makes_our_folders_and_files_private(open_folder: Path) -> None:
    folder = open_folder / "open"
    folder.mkdir(mode=0o755)
    secret = open_folder / "secret"
    secret.write_text("x")
    secret.chmod(0o644)
    other = (os.geteuid() + 12345, os.getegid() + 12345)
    assert exposed_to(folder, *other) and exposed_to(secret, *other)
    hide_from(*other, [folder, secret, open_folder / "missing"])
    assert not exposed_to(folder, *other) and not exposed_to(secret, *other)
    assert (stat.S_IMODE(folder.stat().st_mode), stat.S_IMODE(secret.stat().st_mode)) == (
        0o700,
        0o600,
    )
