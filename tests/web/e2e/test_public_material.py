"""The browser receives only public material: the built bundle and every route of the
running app are searched for the references, the known-wrong solutions and the secret
seed of every problem."""

from __future__ import annotations

import json
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest

from .conftest import JUDGE_SEED, PROBLEMS, ROOT
from .secrets import (
    all_secret_lines,
    answer_key_text,
    hidden_case_text,
    leaks,
    problem_dirs,
    readable_text,
)

SEED_FORMS = (str(JUDGE_SEED), f"{JUDGE_SEED:x}", f"{JUDGE_SEED:X}")


def test_the_secret_search_finds_a_reference_line_where_one_is() -> None:
    """The search itself works: a bundle that did carry a reference would be caught."""
    secrets = all_secret_lines(PROBLEMS)
    assert secrets, "every problem has reference lines that no public file shares"
    line = next(iter(secrets))
    smuggled = json.dumps({"driver": f"x = 1\n{line}\n"}).encode()
    assert leaks(readable_text("x.json", smuggled), secrets)


def test_the_served_runtime_is_pyodide_as_published(dist: Path) -> None:
    """dist/pyodide/ is copied byte for byte from the npm package: third-party code,
    which the secret search below skips (the stdlib has lines like `self.extra = extra`)."""
    package = ROOT / "web" / "frontend" / "node_modules" / "pyodide"
    for path in (dist / "pyodide").iterdir():
        assert path.read_bytes() == (package / path.name).read_bytes(), path.name


def test_built_bundle_holds_no_reference_no_wrong_solution_and_no_seed(dist: Path) -> None:
    secrets = all_secret_lines(PROBLEMS)
    found = []
    ours = [p for p in dist.rglob("*") if p.is_file() and "pyodide" not in p.parts]
    for path in sorted(ours):
        text = readable_text(path.name, path.read_bytes())
        found += [f"{path.relative_to(dist)} has {leak}" for leak in leaks(text, secrets)]
        found += [f"{path.relative_to(dist)} shows the seed" for f in SEED_FORMS if f in text]
    assert not found


def test_judge_zip_holds_exactly_the_browsers_judge_modules(dist: Path) -> None:
    from devtools.build_bundles import browser_modules

    with zipfile.ZipFile(dist / "judge.zip") as archive:
        names = sorted(archive.namelist())
    expected = sorted(p.relative_to(ROOT).as_posix() for p in browser_modules(ROOT / "judge"))
    assert names == expected
    assert "judge/commands/cli.py" not in names and "judge/browser/public_run.py" in names


def test_no_served_file_holds_an_answer_an_editorial_or_a_hidden_case(dist: Path) -> None:
    """Regression (issue 22): judge.zip carried the self-test quiz's answer in a docstring
    of judge/quiz/expression.py. Every file of the built dist, judge.zip's modules included, is
    searched for every string of every answers.toml, the editorials' lines, the hidden
    points, and hidden cases' arguments drawn on other seeds. Unlike a reference line
    (test above), none of this may appear in the judge's own sources either."""
    secrets: dict[str, str] = {}
    for folder in problem_dirs(PROBLEMS):
        secrets |= answer_key_text(folder) | hidden_case_text(folder)
    origins = " ".join(secrets.values())
    assert "answers.toml" in origins and "editorial" in origins and "hidden case" in origins
    found = []
    for path in sorted(p for p in dist.rglob("*") if p.is_file() and "pyodide" not in p.parts):
        text = readable_text(path.name, path.read_bytes())
        found += [f"{path.relative_to(dist)} has {leak}" for leak in leaks(text, secrets)]
    assert not found


def test_every_problem_has_a_bundle_with_only_public_seed_cases(dist: Path) -> None:
    from judge.problem.cases import PUBLIC_SEED, build_cases
    from judge.problem.problemset import ProblemSet

    problems = ProblemSet(PROBLEMS)
    for folder in problem_dirs(PROBLEMS):
        bundle = json.loads((dist / "problems" / f"{folder.name}.json").read_text("utf-8"))
        assert bundle["problem"]["slug"] == folder.name
        spec = problems.get(folder.name)
        if spec.quiz is not None:  # a quiz's bundle: its questions, no cases
            assert bundle["kind"] == "quiz" and "cases" not in bundle
            continue
        if spec.tier != "browser":
            assert bundle["runnable"] is False and bundle["cases"] == []
            continue
        public = [(c.name, c.args) for c in build_cases(spec, PUBLIC_SEED)]
        assert [(c["name"], c["args"]) for c in bundle["cases"]] == public


def _get_routes(app: Any) -> list[Any]:
    return [rule for rule in app.url_map.iter_rules() if "GET" in rule.methods]


def _paths(app: Any, submission_id: int, run_id: str, dist: Path) -> list[str]:
    """A concrete path for every GET route, each parameter filled with real values."""
    slugs = [p.name for p in problem_dirs(PROBLEMS)]
    values: dict[str, list[str]] = {
        "slug": slugs,
        "submission_id": [str(submission_id)],
        "run_id": [run_id],
        "code": ["en", "zh"],
        "username": ["leakcheck"],  # the test's own account: its profile pages
        "filename": [
            str(p.relative_to(dist.parent))
            for p in dist.rglob("*")
            if p.is_file() and "pyodide" not in p.parts  # checked against npm above
        ]
        + ["favicon.svg"],
    }
    paths = []
    for rule in _get_routes(app):
        if not rule.arguments:
            paths.append(rule.rule)
            continue
        (name,) = rule.arguments  # every route here takes one parameter
        if name not in values:
            pytest.fail(f"route {rule.rule} takes {name!r}; teach this test a value for it")
        paths += [_fill(rule.rule, name, v) for v in values[name]]
    return paths


def _fill(rule: str, name: str, value: str) -> str:
    start = rule.index("<")
    end = rule.index(">", start)
    assert name in rule[start:end]
    return rule[:start] + value + rule[end + 1 :]


def _judged_submission(client: Any, token: str) -> int:
    """A submission judged on the secret seed's hidden cases (the starter: it fails every
    case with a traceback, the richest report). Not the reference: the owner is shown
    their own code, and that must not count as a leak."""
    auth = {"Authorization": f"Bearer {token}"}
    slug = problem_dirs(PROBLEMS)[0].name
    code = (PROBLEMS / slug / "starter.py").read_text("utf-8")
    created = client.post("/api/submissions", json={"problem": slug, "code": code}, headers=auth)
    assert created.status_code == 202, created.get_json()
    url = created.get_json()["url"]
    deadline = time.monotonic() + 60
    while client.get(url, headers=auth).get_json()["status"] != "done":
        assert time.monotonic() < deadline, "the submission was never judged"
        time.sleep(0.1)
    return int(created.get_json()["id"])


def _server_run(client: Any, token: str) -> str:
    """A finished server Run of a torch-tier problem's starter (public cases only)."""
    auth = {"Authorization": f"Bearer {token}"}
    code = (PROBLEMS / "attention-decode" / "starter.py").read_text("utf-8")
    started = client.post("/api/problems/attention-decode/run", json={"code": code}, headers=auth)
    assert started.status_code == 202, started.get_json()
    url = started.get_json()["url"]
    deadline = time.monotonic() + 120
    while client.get(url, headers=auth).get_json()["status"] != "done":
        assert time.monotonic() < deadline, "the run never finished"
        time.sleep(0.2)
    return str(started.get_json()["id"])


def test_no_route_shows_a_reference_a_wrong_solution_or_the_seed(
    live_server: Any, dist: Path
) -> None:
    app = live_server.app
    client = app.test_client()
    account = {"username": "leakcheck", "password": "correct horse battery staple"}
    assert client.post("/api/register", json=account).status_code in (200, 201)
    token = client.post("/api/token", json=account).get_json()["token"]
    submission_id = _judged_submission(client, token)
    run_id = _server_run(client, token)
    secrets = all_secret_lines(PROBLEMS)
    found = []
    for path in _paths(app, submission_id, run_id, dist):
        for headers in ({}, {"Authorization": f"Bearer {token}"}):
            with client.get(path, headers=headers) as response:  # closes static files
                json_body = response.mimetype == "application/json"
                data = response.get_data()
            text = readable_text(f"{path}.json" if json_body else path, data)
            found += [f"{path} has {leak}" for leak in leaks(text, secrets)]
            found += [f"{path} shows the seed" for form in SEED_FORMS if form in text]
    assert not found
