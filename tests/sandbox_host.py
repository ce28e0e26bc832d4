"""Whether this host can run the runner's sandbox: the one rule every sandbox test skips by.

Only a missing bubblewrap or missing user namespaces skip; anything else that breaks the
sandbox (an import error in runner/, a probe job that fails) is a failure, not a skip.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


def sandbox_missing() -> str | None:
    """Why this host has no sandbox, or None when it has one."""
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed"
    if not Path("/proc/self/ns/user").exists():
        return "no user namespaces"
    return None


needs_sandbox = pytest.mark.skipif(sandbox_missing() is not None, reason=sandbox_missing() or "")
