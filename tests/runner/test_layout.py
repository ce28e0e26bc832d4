"""What the sandbox binds: the interpreter and the code, never the root, never problems/."""

from __future__ import annotations

import pytest

from runner.identity import SandboxIdentity, sandbox_identity
from runner.layout import SANDBOX_CODE, SCRATCH_MOUNTS, build_layout, site_entries


def test_binds_are_minimal_and_read_only() -> None:
    layout = build_layout(sandbox_identity())
    sources = [b.source for b in layout.binds]
    assert "/" not in sources
    assert not any("problems" in s for s in sources)
    assert not any(s in ("/etc", "/home", "/root", "/var") for s in sources)
    argv = layout.bwrap_argv(["3", "999", "999"], tmp_mb=16)
    assert "--bind" not in argv  # every bind is --ro-bind
    assert {
        "--unshare-all",
        "--unshare-user",
        "--clearenv",
        "--new-session",
        "--die-with-parent",
    } <= set(argv)
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    tmp = next(i for i, a in enumerate(argv) if a == "--tmpfs" and argv[i + 1] == "/tmp")
    assert argv[tmp - 1] == str(16 << 20)  # /tmp has a size


def test_the_sandboxs_site_packages_hold_torch_and_not_transformers() -> None:
    """Issue 20: transformers' caches, attention and generate would do a torch-tier exercise
    for a submission; the job's site-packages hold only what torch and the judge need."""
    layout = build_layout(sandbox_identity())
    if layout.site_packages is None:
        pytest.skip("no virtual environment: the whole base installation is bound")
    entries = set(layout.site_entries)
    assert {"torch", "safetensors", "numpy", "pyseccomp.py"} <= entries
    assert not entries & {"transformers", "tokenizers", "flask", "sqlalchemy", "celery"}
    argv = layout.bwrap_argv([], tmp_mb=8)
    site = layout.site_packages.target
    start = argv.index(site) - 1
    assert argv[start] == "--tmpfs"
    assert argv[argv.index("--remount-ro") + 1] == site  # read-only like the rest of the root


def test_code_is_bound_under_opt_judge_and_nothing_under_scratch_mounts() -> None:
    layout = build_layout(sandbox_identity())
    targets = [b.target for b in layout.binds]
    assert f"{SANDBOX_CODE}/judge" in targets and f"{SANDBOX_CODE}/runner" in targets
    for target in targets:
        assert not any(target == m or target.startswith(m + "/") for m in SCRATCH_MOUNTS)


def test_the_interpreter_runs_with_isolated_mode() -> None:
    argv = build_layout(sandbox_identity()).bwrap_argv([], tmp_mb=8)
    tail = argv[argv.index("--") + 1 :]
    assert tail[1:3] == ["-I", "-c"]


def test_a_checkout_the_sandbox_user_cannot_reach_is_refused_clearly(tmp_path) -> None:  # type: ignore[no-untyped-def]
    hidden = tmp_path / "private"
    (hidden / "judge").mkdir(parents=True)
    hidden.chmod(0o700)
    stranger = SandboxIdentity("judge-sandbox", 54321, 54321, switched=True)
    with pytest.raises(ValueError, match=r"cannot read .*private/judge"):
        build_layout(stranger, repo_root=hidden)


def _install(site, name: str, requires: tuple[str, ...] = ()) -> None:  # type: ignore[no-untyped-def]
    """A distribution as pip leaves it: its package folder and a dist-info with a RECORD."""
    (site / name).mkdir()
    (site / name / "__init__.py").write_text("")
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    lines = [f"Name: {name}", "Version: 1.0", *(f"Requires-Dist: {r}" for r in requires)]
    (info / "METADATA").write_text("\n".join(lines) + "\n")
    (info / "RECORD").write_text(f"{name}/__init__.py,,\n{info.name}/METADATA,,\n")


def test_site_entries_are_read_again_once_a_distribution_is_installed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The entries are kept per process (every app and launcher builds a layout, and reading
    each RECORD took 0.85 s of each web test's set-up); a package installed since, here one
    torch now requires, is in the next answer, and one nobody requires never is."""
    site = tmp_path / "site-packages"
    site.mkdir()
    _install(site, "torch", requires=("numpy",))
    assert site_entries(site, ("torch",)) == ("torch", "torch-1.0.dist-info")
    _install(site, "numpy")
    _install(site, "flask")
    assert site_entries(site, ("torch",)) == (
        "numpy",
        "numpy-1.0.dist-info",
        "torch",
        "torch-1.0.dist-info",
    )
