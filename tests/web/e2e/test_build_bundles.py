"""devtools/build_bundles.py: what the browser gets is public by construction, and a leak
stops the build with a message naming the file and the line."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from devtools import build_bundles
from devtools.build_bundles import (
    BundleLeakError,
    answer_lines,
    browser_modules,
    check_no_leak,
    secret_lines,
    write_judge_zip,
)

from .conftest import PROBLEMS, ROOT

SLUG = "kv-bytes-per-token"


def test_judge_zip_holds_the_import_closure_of_the_browser_module_only(tmp_path: Path) -> None:
    """Regression (issue 22): judge.zip carried every module of judge/, the CLI's and the
    server's too. Imports inside functions count (they may run); `if TYPE_CHECKING:` ones
    never run. A module in a room brings its room's __init__.py, and a room is never
    taken whole for one of its modules."""
    judge = tmp_path / "judge"
    (judge / "__pycache__").mkdir(parents=True)
    (judge / "browser").mkdir()
    (judge / "room").mkdir()
    for init in (judge, judge / "browser", judge / "room"):
        (init / "__init__.py").write_text("")
    (judge / "browser" / "public_run.py").write_text(
        "import json\nfrom judge.core import X\nfrom judge import helpers\n"
        "from judge.room import inside\nfrom ..room.deeper import W\n"
        "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from judge.typing_only import T\n"
        "def later():\n    from .lazy import run\n    import judge.dotted\n"
    )
    (judge / "core.py").write_text("from .deep import Y\nX = 1\n")
    for name in ("helpers", "deep", "dotted", "typing_only", "cli", "session"):
        (judge / f"{name}.py").write_text("Z = 1\n")
    (judge / "browser" / "lazy.py").write_text("Z = 1\n")
    for name in ("inside", "deeper", "unused"):
        (judge / "room" / f"{name}.py").write_text("W = 1\n")
    (judge / "notes.txt").write_text("not code")
    (judge / "__pycache__" / "core.cpython-311.pyc").write_bytes(b"\0")
    target = tmp_path / "judge.zip"
    assert write_judge_zip(judge, target) == 11
    with zipfile.ZipFile(target) as archive:
        names = sorted(archive.namelist())
    flat = ("__init__", "core", "deep", "helpers", "dotted")
    rooms = ("browser/__init__", "browser/public_run", "browser/lazy", "room/__init__")
    rooms += ("room/inside", "room/deeper")
    assert names == sorted(f"judge/{n}.py" for n in (*flat, *rooms))


def _dotted(path: Path) -> str:
    """judge/grading/report.py -> judge.grading.report; judge/quiz/__init__.py -> judge.quiz."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_the_real_judge_zip_leaves_out_what_the_browser_never_imports() -> None:
    names = {_dotted(path) for path in browser_modules(ROOT / "judge")}
    assert {"judge", "judge.browser.public_run", "judge.grading.case_grading"} <= names
    assert {"judge.grading.quiz_grading", "judge.quiz.expression"} <= names
    never = {"commands.cli", "run.session", "run.launch", "run.judge_source"}
    never |= {"commands.selfcheck", "problem.problemset"}
    assert not names & {f"judge.{n}" for n in never}


BROWSER_RUN = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])  # judge.zip alone: run with -S, no site-packages
    import judge.browser.public_run
    for line in sys.stdin:
        bundle_path, source_path = json.loads(line)
        report = judge.browser.public_run.run_public(open(bundle_path).read(), open(source_path).read())
        print(json.dumps(json.loads(report)["verdict"]))
    print(json.dumps([judge.__file__, sorted(m for m in sys.modules if m.startswith("judge."))]))
    """
)


def test_judge_zip_alone_judges_every_browser_problem(tmp_path: Path) -> None:
    """The closure is complete: in an interpreter that has only the standard library and
    judge.zip, every browser-tier bundle judges its reference AC and its starter not AC
    (a failing case also draws its picture)."""
    summary = build_bundles.build(tmp_path, ROOT / "judge", PROBLEMS)
    runs: list[tuple[str, str, bool]] = []
    for slug in summary.problems:
        bundle = json.loads((tmp_path / "problems" / f"{slug}.json").read_text("utf-8"))
        if bundle.get("kind") == "quiz" or not bundle.get("runnable", True):
            continue
        runs.append((slug, str(PROBLEMS / slug / "reference.py"), True))
        runs.append((slug, str(PROBLEMS / slug / "starter.py"), False))
    lines = "".join(
        json.dumps([str(tmp_path / "problems" / f"{slug}.json"), source]) + "\n"
        for slug, source, _ in runs
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", BROWSER_RUN, str(tmp_path / "judge.zip")],
        input=lines,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    *verdicts, imported = done.stdout.splitlines()
    for (slug, source, good), verdict in zip(runs, verdicts, strict=True):
        assert (json.loads(verdict) == "AC") is good, (slug, source, verdict)
    assert runs, "there are browser-tier code problems"
    where, modules = json.loads(imported)
    assert where == str(tmp_path / "judge.zip" / "judge" / "__init__.py"), where
    assert set(modules) <= {_dotted(path) for path in browser_modules(ROOT / "judge")}


def test_a_judge_module_quoting_an_answer_key_stops_the_build(tmp_path: Path) -> None:
    """Regression (issue 22): judge/quiz/expression.py's docstring quoted the self-test quiz's
    answer (`n * p + n * (n - 1) / 2`), and judge.zip served it to every browser."""
    judge = tmp_path / "judge"
    judge.mkdir()
    (judge / "__init__.py").write_text("")
    (judge / "browser").mkdir()
    (judge / "browser" / "__init__.py").write_text("")
    (judge / "browser" / "public_run.py").write_text(
        '"""A formula such as `n * p + n * (n - 1) / 2`."""\n'
    )
    answers = answer_lines(PROBLEMS / "self-test")
    assert "n * p + n * (n - 1) / 2" in answers
    with pytest.raises(
        BundleLeakError, match=r"judge/browser/public_run.py holds self-test/answers.toml"
    ):
        write_judge_zip(judge, tmp_path / "judge.zip", answers)
    assert not (tmp_path / "judge.zip").exists()
    editorial = PROBLEMS / "kv-bytes-per-token" / "editorial.en.md"
    assert set(answer_lines(editorial.parent).values()) >= {"kv-bytes-per-token/editorial.en.md"}


def test_judge_zip_is_identical_across_builds(tmp_path: Path) -> None:
    write_judge_zip(ROOT / "judge", tmp_path / "a.zip")
    write_judge_zip(ROOT / "judge", tmp_path / "b.zip")
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()


def test_a_folder_without_init_or_browser_module_is_refused(tmp_path: Path) -> None:
    (tmp_path / "judge").mkdir()
    with pytest.raises(FileNotFoundError, match=r"no __init__\.py"):
        write_judge_zip(tmp_path / "judge", tmp_path / "judge.zip")
    (tmp_path / "judge" / "__init__.py").write_text("")
    with pytest.raises(FileNotFoundError, match=r"no browser\.public_run"):
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
    from judge.problem.spec import load_problem

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


def test_a_bundle_keeps_the_reference_key_order_so_the_browser_blames_the_first_wrong_field(
    tmp_path: Path,
) -> None:
    """Regression (issue 23): bundles were written with sorted keys, so the browser compared
    roofline's answer as decode, prefill, ridge and blamed ['prefill']['bound'] for a ridge
    1000x off. The statement's order is the reference's: ridge, prefill, decode."""
    from judge.browser.public_run import judge_bundle
    from judge.verdict import Verdict

    build_bundles.write_problem_bundles(PROBLEMS, tmp_path)
    bundle = json.loads((tmp_path / "roofline.json").read_text("utf-8"))
    assert list(bundle["cases"][0]["expected"]) == ["ridge", "prefill", "decode"]
    reference = (PROBLEMS / "roofline" / "reference.py").read_text("utf-8")
    wrong = reference.replace("ridge = peak / bandwidth", "ridge = peak / bandwidth * 1000")
    assert wrong != reference
    first = judge_bundle(bundle, wrong).cases[0]
    assert first.verdict is Verdict.WA
    assert "['ridge']" in first.message and "prefill" not in first.message
