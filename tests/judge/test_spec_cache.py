"""The command line's spec cache: a problem loads from it while nothing it came from has
changed, and from its folder otherwise; a broken or unwritable cache is never an error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from problem_factory import MakeProblem, write_add_problem

import judge.problem.problemset as problemset
from judge.problem.problemset import ProblemSet
from judge.problem.spec import ProblemSpec, load_problem
from judge.problem.spec_cache import SpecCache, default_folder

REPO = Path(__file__).resolve().parents[2]


def _no_loading(folder: Path) -> ProblemSpec:
    raise AssertionError(f"{folder} was loaded from its files")


def test_a_spec_stored_once_is_read_back_without_loading_the_folder(
    make_problem: MakeProblem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = make_problem()
    first = ProblemSet(folder.parent, cache=SpecCache(tmp_path / "cache")).get("add")
    monkeypatch.setattr(problemset, "load_problem", _no_loading)
    again = ProblemSet(folder.parent, cache=SpecCache(tmp_path / "cache")).get("add")
    assert again == first == load_problem(folder)


def test_an_edited_problem_is_loaded_again_with_its_new_version(
    make_problem: MakeProblem, tmp_path: Path
) -> None:
    folder = make_problem()
    cache = tmp_path / "cache"
    before = ProblemSet(folder.parent, cache=SpecCache(cache)).get("add")
    toml = folder / "problem.toml"
    toml.write_text(toml.read_text().replace("points = 10", "points = 20"))
    after = ProblemSet(folder.parent, cache=SpecCache(cache)).get("add")
    assert (before.points, after.points) == (10, 20)
    assert after.version != before.version


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not a pickle",
        b"\x80\x05N.",  # a pickle of None
        b"\x80\x05\x95",  # cut short
        b"\x80\x05\x8c\x0bno_such_mod\x94\x8c\x01X\x94\x93\x94.",  # a class nowhere
        b"(" * 100_000,  # nested past any stack
    ],
)
def test_a_damaged_cache_file_is_passed_over(
    make_problem: MakeProblem, tmp_path: Path, content: bytes
) -> None:
    folder = make_problem()
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "add.pickle").write_bytes(content)
    assert ProblemSet(folder.parent, cache=SpecCache(cache)).get("add") == load_problem(folder)


def test_a_problem_of_another_checkout_with_the_same_slug_is_not_taken(tmp_path: Path) -> None:
    cache = SpecCache(tmp_path / "cache")
    one = write_add_problem(tmp_path / "one", per_case=1.0)
    two = write_add_problem(tmp_path / "two", per_case=3.0)
    for _ in range(2):  # each stores its own, then finds the other's under its slug
        assert ProblemSet(one.parent, cache=cache).get("add").limits.time_per_case_s == 1.0
        assert ProblemSet(two.parent, cache=cache).get("add").limits.time_per_case_s == 3.0


def test_a_cache_folder_that_cannot_be_written_is_no_error(
    make_problem: MakeProblem, tmp_path: Path
) -> None:
    folder = make_problem()
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    spec = ProblemSet(folder.parent, cache=SpecCache(blocked / "specs")).get("add")
    assert spec == load_problem(folder)


def test_the_cache_folder_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("JUDGE_SPEC_CACHE", str(tmp_path / "mine"))
    assert default_folder() == tmp_path / "mine"
    monkeypatch.setenv("JUDGE_SPEC_CACHE", "")
    assert default_folder() is None
    monkeypatch.delenv("JUDGE_SPEC_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_folder() == tmp_path / "xdg" / "practice-judge" / "specs"


def test_a_second_judge_run_reads_neither_toml_nor_hashes_files(tmp_path: Path) -> None:
    """What the cache is for: the learner's loop of `judge run` on one problem."""
    env = dict(os.environ, JUDGE_SPEC_CACHE=str(tmp_path / "specs"))
    argv = [sys.executable, "-X", "importtime", "judge.py", "run", "kv-bytes-per-token"]
    argv.append("problems/kv-bytes-per-token/reference.py")
    runs = [subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True) for _ in "12"]
    assert [r.returncode for r in runs] == [0, 0]
    imported = [{line.split("|")[-1].strip() for line in r.stderr.splitlines()} for r in runs]
    assert {"tomllib", "hashlib"} <= imported[0]
    assert not {"tomllib", "hashlib"} & imported[1]
    assert (tmp_path / "specs" / "kv-bytes-per-token.pickle").stat().st_mode & 0o077 == 0
