"""The browser receives only public material: no route ever serves a reference, a wrong
solution, the secret seed or a hidden case's inputs or values."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import REFERENCE_MARKER, WRONG, WRONG_MARKER
from web_helpers import (
    SECRET_SEED,
    make_config,
    make_user,
    page_login,
    state,
    submit,
    wait_judged,
)

from judge.problem.cases import build_cases
from judge.problem.problemset import ProblemSet
from web import create_app

REPO = Path(__file__).resolve().parents[2]
SAMPLE_ARGS = {"slug": "add-two", "code": "zh"}


def every_get_url(app: Flask, submission_id: int) -> list[str]:
    urls = []
    with app.test_request_context():
        for rule in app.url_map.iter_rules():
            if "GET" not in (rule.methods or ()) or rule.endpoint == "static":
                continue
            args = {name: SAMPLE_ARGS.get(name, submission_id) for name in rule.arguments}
            urls.append(rule.build(args, append_unknown=False)[1])  # type: ignore[index]
    return urls


def forbidden_strings(problems_dir: Path) -> list[str]:
    hidden_args = []
    for problem in ProblemSet(problems_dir).all():
        public = {c.name for c in build_cases(problem, None) if c.public}
        for case in build_cases(problem, SECRET_SEED):
            if case.name in public:
                continue
            for separators in ((", ", ": "), (",", ":")):  # pretty and compact JSON
                text = json.dumps(case.args, separators=separators)
                hidden_args += [text, html.escape(text)]
    return [REFERENCE_MARKER, WRONG_MARKER, str(SECRET_SEED), hex(SECRET_SEED), *hidden_args]


def test_no_route_serves_private_material(app: Flask, client: FlaskClient) -> None:
    make_user(client, "root", admin=True)
    ada = make_user(client, "ada")
    sid = submit(client, ada, WRONG)
    wait_judged(app)
    urls = every_get_url(app, sid)
    assert "/api/problems/add-two" in urls and f"/api/submissions/{sid}" in urls
    forbidden = forbidden_strings(state(app).config.problems_dir)
    for login in (None, "ada", "root"):
        if login:
            page_login(client, login)
        for url in urls:
            response = client.get(url, headers={"Accept-Language": "en"})
            text = response.get_data(as_text=True)
            for secret in forbidden:
                assert secret not in text, (url, login, secret)


PUBLIC_FILES = ("starter.py", "cases.py", "questions.toml", "statement.en.md", "statement.zh.md")
# reference.py for a code problem; answers.toml (answers, explanations) for a quiz.
SECRET_FILES = ("reference.py", "answers.toml")


def distinctive_lines(folder: Path) -> list[str]:
    """Secret lines long enough to be telling and absent from the public files."""
    public = "".join(
        (folder / name).read_text(encoding="utf-8")
        for name in PUBLIC_FILES
        if (folder / name).is_file()
    )
    lines = [
        line
        for name in SECRET_FILES
        if (folder / name).is_file()
        for line in (folder / name).read_text(encoding="utf-8").splitlines()
    ]
    return [s.strip() for s in lines if len(s.strip()) > 24 and s.strip() not in public]


@pytest.mark.skipif(not (REPO / "problems").is_dir(), reason="no problems/ folder in this tree")
def test_real_problems_serve_no_reference_lines(tmp_path: Path, db_template: Path) -> None:
    app = create_app(make_config(tmp_path, db_template, REPO / "problems", start_workers=False))
    try:
        client = app.test_client()
        for problem in ProblemSet(REPO / "problems").all():
            telling = distinctive_lines(problem.path)
            for url in (
                f"/problems/{problem.slug}",
                f"/api/problems/{problem.slug}",
                f"/api/problems/{problem.slug}/starter",
                "/api/problems",
                "/",
            ):
                text = client.get(url).get_data(as_text=True)
                for line in telling:
                    assert line not in text, (url, line)
    finally:
        state(app).close()
