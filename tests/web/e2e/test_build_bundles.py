"""web/build_bundles.py: what the browser gets is public by construction, and a leak
stops the build with a message naming the file and the line."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from web import build_bundles
from web.build_bundles import BundleLeakError, check_no_leak, secret_lines, write_judge_zip

from .conftest import PROBLEMS, ROOT

SLUG = "kv-bytes-per-token"


def test_judge_zip_holds_only_top_level_modules(tmp_path: Path) -> None:
    judge = tmp_path / "judge"
    (judge / "__pycache__").mkdir(parents=True)
    (judge / "__init__.py").write_text("")
    (judge / "core.py").write_text("X = 1\n")
    (judge / "notes.txt").write_text("not code")
    (judge / "__pycache__" / "core.cpython-311.pyc").write_bytes(b"\0")
    target = tmp_path / "judge.zip"
    assert write_judge_zip(judge, target) == 2
    with zipfile.ZipFile(target) as archive:
        assert sorted(archive.namelist()) == ["judge/__init__.py", "judge/core.py"]


def test_judge_zip_is_identical_across_builds(tmp_path: Path) -> None:
    write_judge_zip(ROOT / "judge", tmp_path / "a.zip")
    write_judge_zip(ROOT / "judge", tmp_path / "b.zip")
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()


def test_a_folder_without_init_is_refused(tmp_path: Path) -> None:
    (tmp_path / "judge").mkdir()
    with pytest.raises(FileNotFoundError, match=r"no __init__\.py"):
        write_judge_zip(tmp_path / "judge", tmp_path / "judge.zip")


def test_secret_lines_skip_what_the_starter_shares_with_the_reference() -> None:
    secrets = secret_lines(PROBLEMS / SLUG)
    starter = (PROBLEMS / SLUG / "starter.py").read_text("utf-8")
    shared = [line for line in secrets if line in starter]
    assert secrets and not shared
    origins = set(secrets.values())
    assert f"{SLUG}/reference.py" in origins
    assert any("/solutions/wrong/" in origin for origin in origins)


def test_a_bundle_carrying_a_reference_line_is_refused() -> None:
    secrets = secret_lines(PROBLEMS / SLUG)
    line, origin = next(iter(secrets.items()))
    bundle = {"driver": "def run(sub, args):\n    " + line + "\n", "cases": []}
    with pytest.raises(BundleLeakError, match=f"problems/x.json would contain a line of {origin}"):
        check_no_leak(bundle, secrets, "problems/x.json")


def test_the_real_bundles_pass_the_leak_check(tmp_path: Path) -> None:
    summary = build_bundles.build(tmp_path, ROOT / "judge", PROBLEMS)
    assert SLUG in summary.problems
    index = json.loads((tmp_path / "problems" / "index.json").read_text("utf-8"))
    assert set(index) == set(summary.problems)


def test_the_command_reports_a_leak_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pins the last line of defence: a core bug that put the reference into the
    public bundle must stop the build, not ship."""
    honest = build_bundles.page_bundle

    def leaky(problem: object) -> dict[str, object]:
        bundle = honest(problem)
        bundle["driver"] = (PROBLEMS / SLUG / "reference.py").read_text("utf-8")
        return bundle

    monkeypatch.setattr(build_bundles, "page_bundle", leaky)
    code = build_bundles.main(["--out", str(tmp_path / "dist"), "--problems", str(PROBLEMS)])
    assert code == 1
    assert f"problems/{SLUG}.json would contain a line of {SLUG}/reference.py" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "dist" / "problems" / f"{SLUG}.json").exists()


def test_a_scaffold_line_the_starter_carries_with_a_comment_is_public(tmp_path: Path) -> None:
    """Pins a false alarm: block-table's starter has the reference's
    `self._tables: dict[int, list[int]] = {}` with a comment after it, and the build
    refused the problem as leaking."""
    problem = tmp_path / "demo"
    problem.mkdir()
    scaffold = "self._tables: dict[int, list[int]] = {}"
    secret = "return sum(len(table) for table in self._tables.values())"
    (problem / "starter.py").write_text(f"{scaffold}  # seq_id -> blocks\n")
    (problem / "reference.py").write_text(f"{scaffold}\n{secret}\n")
    assert secret_lines(problem) == {secret: "demo/reference.py"}


def test_a_quiz_answer_key_in_a_bundle_stops_the_build() -> None:
    """answers.toml holds its secrets in TOML strings whose lines end in a backslash
    continuation, so its lines alone never matched a bundle: its string values count too."""
    from judge.spec import load_problem

    quiz = PROBLEMS / "self-test"
    secrets = secret_lines(quiz)
    bundle = build_bundles.page_bundle(load_problem(quiz))
    check_no_leak(bundle, secrets, "problems/self-test.json")  # the real bundle is clean
    assert "questions" in bundle and "answers.toml" not in json.dumps(bundle)
    key = load_problem(quiz).quiz
    assert key is not None
    leaks = [key.keys["batched-decode"].explanation["en"], "n * p + n * (n - 1) / 2"]
    leaks.append(json.loads((quiz / "solutions/wrong/caches-queries.json").read_text())["_mistake"])
    for leak in leaks:
        bundle["statements"] = {"en": f"see: {leak}"}
        with pytest.raises(BundleLeakError, match="self-test/"):
            check_no_leak(bundle, secrets, "problems/self-test.json")
