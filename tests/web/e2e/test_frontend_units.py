"""The front end's own unit tests (node's test runner), run as part of the suite."""

from __future__ import annotations

import subprocess

from .conftest import FRONTEND, npm_command


def test_frontend_unit_tests_pass() -> None:
    done = subprocess.run(
        [npm_command(), "test", "--prefix", str(FRONTEND)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "# fail 0" in done.stdout
