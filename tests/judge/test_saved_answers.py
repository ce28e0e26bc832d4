"""`judge run` keeps a checkpoint-loading torch problem's public cases and the reference's
answers between runs, and computes them again whenever anything they came from changed
(judge/run/answer_cache.py)."""

from __future__ import annotations

import json
import os
import pickle
import sys
from pathlib import Path

import pytest
from problem_factory import TOML, MakeProblem

from judge.commands.cli import main
from judge.problem.problemset import ProblemSet
from judge.run.answer_cache import AnswerCache

TORCH_TOML = TOML.replace('tier = "browser"', 'tier = "torch"\nmodels = ["tiny-checkpoint"]')
# cases.py and reference.py note every computation in a log outside the problem folder (a
# file inside it would be a new version of the problem). The helper module stands for the
# library code the cases import: the parent imports it, the child never needs it.
CASES = """\
import pathlib

LOG = pathlib.Path({log!r})


def public_cases():
    return [{{"name": "small", "args": [1, 2]}}, {{"name": "negative", "args": [-5, 3]}}]


def generated_cases(rng):
    import helper_for_cases

    with LOG.open("a") as f:
        f.write("built\\n")
    return [helper_for_cases.case(rng, i) for i in range(3)]


def run(sub, args):
    return sub.add(*args)
"""
HELPER = """\
def case(rng, i):
    return {"name": f"random-{i}", "args": [rng.randint(-99, 99), rng.randint(-99, 99)]}
"""
REFERENCE = """\
import pathlib

with pathlib.Path({log!r}).open("a") as f:
    f.write("reference\\n")


def add(a, b):
    return a + b
"""


class Setup:
    def __init__(self, tmp_path: Path, make_problem: MakeProblem) -> None:
        self.log = tmp_path / "computed.log"
        self.library = tmp_path / "library"
        self.library.mkdir()
        (self.library / "helper_for_cases.py").write_text(HELPER)
        self.checkpoint = tmp_path / "checkpoints" / "tiny-checkpoint" / "model.safetensors"
        self.checkpoint.parent.mkdir(parents=True)
        self.checkpoint.write_bytes(b"weights")
        self.folder = make_problem(
            files={
                "cases.py": CASES.format(log=str(self.log)),
                "reference.py": REFERENCE.format(log=str(self.log)),
            },
            toml=TORCH_TOML.format(slug="add", per_case=2.0, total=10.0),
        )
        self.cache = tmp_path / "answers"

    def checkpoints(self) -> list[Path]:
        return [self.checkpoint]

    def computed(self) -> list[str]:
        return self.log.read_text().split() if self.log.exists() else []


@pytest.fixture
def setup(tmp_path: Path, make_problem: MakeProblem, monkeypatch: pytest.MonkeyPatch) -> Setup:
    made = Setup(tmp_path, make_problem)
    monkeypatch.setenv("JUDGE_ANSWER_CACHE", str(made.cache))
    monkeypatch.syspath_prepend(str(made.library))
    # Each test imports its own copy (the judge runs in this process, as its tests do).
    monkeypatch.delitem(sys.modules, "helper_for_cases", raising=False)
    return made


def _run(
    setup: Setup, capsys: pytest.CaptureFixture[str], solution: str, *extra: str
) -> dict[str, object]:
    file = setup.folder.parent / "solution.py"
    file.write_text(solution)
    argv = ["--problems", str(setup.folder.parent), "run", "add", str(file), "--json", *extra]
    main(argv, checkpoints=setup.checkpoints)
    report: dict[str, object] = json.loads(capsys.readouterr().out)
    return report


RIGHT = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a - b\n"


def _names(report: dict[str, object]) -> list[tuple[str, str]]:
    cases = report["cases"]
    assert isinstance(cases, list)
    return [(c["name"], c["verdict"]) for c in cases]


def test_a_second_run_is_judged_with_the_answers_the_first_kept(
    setup: Setup, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _run(setup, capsys, RIGHT)
    assert setup.computed() == ["built", "reference"]
    second = _run(setup, capsys, WRONG)
    assert setup.computed() == ["built", "reference"]  # nothing computed again
    assert first["verdict"] == "AC" and second["verdict"] == "WA"
    assert [n for n, _ in _names(first)] == [n for n, _ in _names(second)]
    assert ("small", "WA") in _names(second)


@pytest.mark.parametrize(
    "change",
    ["the checkpoint", "the code the cases import", "the reference", "the cache file"],
)
def test_answers_are_computed_again_when_what_they_came_from_changed(
    setup: Setup, capsys: pytest.CaptureFixture[str], change: str
) -> None:
    assert _run(setup, capsys, RIGHT)["verdict"] == "AC"
    if change == "the checkpoint":
        setup.checkpoint.write_bytes(b"other weights")
    elif change == "the code the cases import":
        helper = setup.library / "helper_for_cases.py"
        helper.write_text(HELPER + "\n# edited\n")
    elif change == "the reference":
        reference = setup.folder / "reference.py"
        reference.write_text(reference.read_text() + "\n# edited\n")
    else:
        (file,) = setup.cache.iterdir()
        file.write_bytes(b"not a pickle")
    assert _run(setup, capsys, RIGHT)["verdict"] == "AC"
    assert setup.computed() == ["built", "reference"] * 2
    assert _run(setup, capsys, RIGHT)["verdict"] == "AC"  # and kept again
    assert setup.computed() == ["built", "reference"] * 2


def test_a_new_checkpoint_file_is_a_change_too(
    setup: Setup, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(setup, capsys, RIGHT)
    extra = setup.checkpoint.with_name("config.json")
    extra.write_text("{}")
    setup.checkpoints = lambda: [setup.checkpoint, extra]  # type: ignore[method-assign]
    _run(setup, capsys, RIGHT)
    assert setup.computed() == ["built", "reference"] * 2


def test_a_run_with_a_seed_keeps_nothing(setup: Setup, capsys: pytest.CaptureFixture[str]) -> None:
    for _ in range(2):
        assert _run(setup, capsys, RIGHT, "--seed", "7")["verdict"] == "AC"
    assert setup.computed() == ["built", "reference"] * 2
    assert not setup.cache.exists()


def test_a_cache_that_cannot_be_written_is_no_error(
    setup: Setup, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = setup.cache.parent / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("JUDGE_ANSWER_CACHE", str(blocked / "answers"))
    for _ in range(2):
        assert _run(setup, capsys, RIGHT)["verdict"] == "AC"
    assert setup.computed() == ["built", "reference"] * 2


def test_an_empty_setting_keeps_nothing(
    setup: Setup, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_ANSWER_CACHE", "")
    for _ in range(2):
        _run(setup, capsys, RIGHT)
    assert setup.computed() == ["built", "reference"] * 2


def test_the_cache_file_is_the_users_alone(
    setup: Setup, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(setup, capsys, RIGHT)
    (file,) = setup.cache.iterdir()
    assert os.stat(file).st_mode & 0o077 == 0
    assert os.stat(setup.cache).st_mode & 0o077 == 0


def test_a_reference_that_fails_keeps_nothing_and_is_reported_as_before(
    setup: Setup, capsys: pytest.CaptureFixture[str]
) -> None:
    reference = setup.folder / "reference.py"
    reference.write_text(reference.read_text().replace("return a + b", "return 1 // 0"))
    for _ in range(2):
        assert _run(setup, capsys, RIGHT)["verdict"] == "IE"
    assert not setup.cache.exists() or not any(setup.cache.iterdir())


def test_a_kept_file_of_the_right_header_and_a_wrong_shape_is_computed_again(
    setup: Setup, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file written by hand, or by another judge, whose first fields match: no traceback,
    the answers are computed again and kept whole."""
    _run(setup, capsys, RIGHT)
    (file,) = setup.cache.iterdir()
    kept = file.read_bytes()
    entry = pickle.loads(kept)
    cache = AnswerCache(setup.cache, setup.checkpoints)
    problem = ProblemSet(setup.folder.parent).get("add")
    assert cache.get(problem) is not None  # the file as the judge kept it
    shapes = [5, (5,), ("a path alone",), (["a", "list"], (1, 2, 3, 4))]
    for modules in shapes:
        file.write_bytes(pickle.dumps((*entry[:4], modules, *entry[5:])))
        assert cache.get(problem) is None, modules
    assert _run(setup, capsys, RIGHT)["verdict"] == "AC"
    assert setup.computed() == ["built", "reference"] * 2
    assert cache.get(problem) is not None  # kept whole again


def test_a_checkpoint_rewritten_while_the_answers_were_computed_is_a_change_on_the_next_run(
    setup: Setup, capsys: pytest.CaptureFixture[str]
) -> None:
    """The answers came from the checkpoint as it was when they were computed: stamped
    after the fact, the new file's stamp would vouch for answers of the old one."""
    flag = setup.log.with_name("rewrite-once")
    flag.write_text("")
    rewrite = (
        f"    if pathlib.Path({str(flag)!r}).exists():\n"
        f"        pathlib.Path({str(flag)!r}).unlink()\n"
        f"        pathlib.Path({str(setup.checkpoint)!r}).write_bytes(b'newer weights')\n"
    )
    cases = setup.folder / "cases.py"
    anchor = "    import helper_for_cases\n"
    cases.write_text(cases.read_text().replace(anchor, anchor + rewrite))
    assert _run(setup, capsys, RIGHT)["verdict"] == "AC"
    assert not flag.exists()  # rewritten during the first run, never again
    assert _run(setup, capsys, RIGHT)["verdict"] == "AC"
    assert setup.computed() == ["built", "reference"] * 2
    assert _run(setup, capsys, RIGHT)["verdict"] == "AC"  # kept with the stamps it saw
    assert setup.computed() == ["built", "reference"] * 2


def test_a_checkpoint_gone_while_it_is_stamped_is_no_error(
    setup: Setup, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(setup, capsys, RIGHT)
    gone = setup.checkpoint.with_name("deleted.safetensors")
    setup.checkpoints = lambda: [setup.checkpoint, gone]  # type: ignore[method-assign]
    assert _run(setup, capsys, RIGHT)["verdict"] == "AC"
    assert setup.computed() == ["built", "reference"] * 2
