"""Settings from the environment and the instance folder; statement Markdown rendering."""

from __future__ import annotations

from pathlib import Path

import pytest

from web.config import load_config
from web.content.markdown import render_markdown


def test_instance_secrets_are_created_once_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("JUDGE_SECRET_KEY", "JUDGE_SEED", "JUDGE_DATABASE_URL", "JUDGE_INSTANCE"):
        monkeypatch.delenv(name, raising=False)
    first, second = load_config(tmp_path), load_config(tmp_path)
    assert first.secret_key == second.secret_key and len(first.secret_key) == 64
    assert first.judge_seed == second.judge_seed
    assert first.database_url == f"sqlite:///{tmp_path / 'judge.sqlite3'}"
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600


def test_environment_overrides_the_instance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_DATABASE_URL", "postgresql://judge@db/judge")
    monkeypatch.setenv("JUDGE_WORKERS", "5")
    config = load_config(tmp_path)
    assert (config.database_url, config.workers) == ("postgresql://judge@db/judge", 5)


def test_math_is_kept_verbatim_for_katex() -> None:
    html = render_markdown("Memory is $2 \\cdot L_k \\cdot d_h$ bytes; $$\\sum_i x_i$$")
    assert '<span class="math inline">$2 \\cdot L_k \\cdot d_h$</span>' in html
    assert '<span class="math display">$$\\sum_i x_i$$</span>' in html
    assert "<em>" not in html  # underscores inside math are not emphasis


def test_raw_html_and_script_links_are_neutralised() -> None:
    html = render_markdown('<img src=x onerror="alert(1)"> [x](javascript:alert(1)) $<b>$')
    assert "<img" not in html
    assert 'href="javascript:' not in html
    assert "&lt;b&gt;" in html


def test_plain_dollar_signs_are_not_math() -> None:
    assert "math" not in render_markdown("It costs $5 and \\$6.")


def test_processes_starting_at_once_on_a_new_instance_share_one_secret(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    code = (
        "import sys; from pathlib import Path; from web.config import load_config; "
        "print(load_config(Path(sys.argv[1])).secret_key)"
    )
    starts = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(tmp_path / "instance")],
            stdout=subprocess.PIPE,
            text=True,
            env={k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")},
        )
        for _ in range(4)
    ]
    secrets = {p.communicate(timeout=120)[0].strip() for p in starts}
    assert [p.returncode for p in starts] == [0, 0, 0, 0]
    assert len(secrets) == 1 and len(secrets.pop()) == 64
