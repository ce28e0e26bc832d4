"""Quiz problems on the platform: a form per question, answers judged by the same core,
explanations only after a right answer or after giving up, and giving up ends scoring."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import write_files
from web_helpers import csrf_of, make_config, make_user, page_login, state, submit, wait_judged

from web import create_app
from web.config import RateLimit
from web.state import EXTENSION

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database

QUESTIONS = """
[[question]]
id = "pick"
type = "choice"
prompt.en = "Which letter comes first?"
prompt.zh = "哪个字母在前？"

[[question.options]]
id = "a"
en = "the letter A"
zh = "字母 A"

[[question.options]]
id = "b"
en = "the letter B"
zh = "字母 B"

[[question]]
id = "count"
type = "number"
prompt.en = "How many forward tokens with a cache?"
prompt.zh = "用缓存时一共要算多少个 token？"
"""
ANSWERS = """
[pick]
answer = "a"
explanation.en = "EXPLAIN_PICK: A comes before B."
explanation.zh = "EXPLAIN_PICK：A 在 B 前面。"

[count]
answer = 1099
explanation.en = "EXPLAIN_COUNT: 100 for the prompt, then 999 steps of one."
explanation.zh = "EXPLAIN_COUNT：提示词 100 个，之后 999 步各 1 个。"
"""
RIGHT = json.dumps({"pick": "a", "count": 1099})
WRONG = json.dumps({"pick": "b", "count": 1099})


# A quiz with an expression, for Run at its public points (2 is its page number).
FORMULA_QUESTIONS = """
[[question]]
id = "size"
type = "number"
prompt.en = "How many bytes in a BF16 value?"
prompt.zh = "一个 BF16 数有几个字节？"

[[question]]
id = "tokens"
type = "expression"
variables = ["n", "p"]
prompt.en = "How many token positions without a cache?"
prompt.zh = "不用缓存时一共算多少个 token 位置？"
public_points = [{ n = 1, p = 5 }, { n = 3, p = 2 }]
"""
FORMULA_ANSWERS = """
[size]
answer = 2
rel_tol = 0
explanation.en = "EXPLAIN_SIZE"
explanation.zh = "EXPLAIN_SIZE"

[tokens]
answer = "n * p + n * (n - 1) / 2"
points = [{ n = 1000, p = 100 }]
explanation.en = "EXPLAIN_TOKENS"
explanation.zh = "EXPLAIN_TOKENS"
"""


def write_quiz(root: Path, slug: str = "warm-up-quiz") -> None:
    toml = (
        f'slug = "{slug}"\nkind = "quiz"\norder = 0\nchapter = "basics"\ntier = "browser"\n'
        'points = 50\ntags = ["quiz"]\n\n[title]\nzh = "热身问答"\nen = "Warm-up quiz"\n'
    )
    files = {
        "problem.toml": toml,
        "statement.en.md": "# Warm-up\n\nAnswer both.\n",
        "statement.zh.md": "# 热身\n\n回答两题。\n",
        "questions.toml": QUESTIONS,
        "answers.toml": ANSWERS,
    }
    write_files(root / slug, files)


@pytest.fixture
def quiz_app(tmp_path: Path, db_template: Path) -> Iterator[Flask]:
    root = tmp_path / "problems"
    write_quiz(root)
    write_files(
        root / "formula-quiz",
        {
            "problem.toml": 'slug = "formula-quiz"\nkind = "quiz"\norder = 1\nchapter = "basics"\n'
            'tier = "browser"\npoints = 10\ntags = ["quiz"]\n\n[title]\nzh = "公式"\nen = "Formulas"\n',
            "statement.en.md": "# Formulas\n\nRun first.\n",
            "statement.zh.md": "# 公式\n\n先运行。\n",
            "questions.toml": FORMULA_QUESTIONS,
            "answers.toml": FORMULA_ANSWERS,
        },
    )
    app = create_app(make_config(tmp_path, db_template, root))
    yield app
    state(app).close()


def _view(client: FlaskClient, sid: int, auth: dict[str, str]) -> dict:
    return client.get(f"/api/submissions/{sid}", headers=auth).json


def test_the_quiz_page_is_a_form_and_holds_no_answer_or_explanation(quiz_app: Flask) -> None:
    client = quiz_app.test_client()
    make_user(client, "ada")
    page_login(client, "ada")
    html = client.get("/problems/warm-up-quiz").get_data(as_text=True)
    assert 'name="answer-pick"' in html and 'value="a"' in html and 'name="answer-count"' in html
    assert "EXPLAIN_" not in html and "1099" not in html
    api = client.get("/api/problems/warm-up-quiz").get_data(as_text=True)
    assert '"questions"' in api and "EXPLAIN_" not in api and "1099" not in api


def test_answers_posted_from_the_form_are_judged_and_explained_when_right(
    quiz_app: Flask,
) -> None:
    client = quiz_app.test_client()
    ada = make_user(client, "ada")
    page_login(client, "ada")
    form = {"csrf_token": csrf_of(client), "answer-pick": "a", "answer-count": "1099"}
    response = client.post("/problems/warm-up-quiz/submit", data=form)
    assert response.status_code == 303
    sid = int(re.search(r"/submissions/(\d+)", response.headers["Location"]).group(1))
    wait_judged(quiz_app)
    view = _view(client, sid, ada.auth)
    assert (view["verdict"], view["points"]) == ("AC", 50)
    assert json.loads(view["code"]) == {"pick": "a", "count": 1099}
    explained = {c["name"]: c.get("explanation", {}).get("en", "") for c in view["cases"]}
    assert explained["pick"].startswith("EXPLAIN_PICK")
    page = client.get("/problems/warm-up-quiz").get_data(as_text=True)
    assert 'value="1099"' in page  # the form starts from the last answers


def test_a_wrong_answer_gets_no_explanation(quiz_app: Flask) -> None:
    client = quiz_app.test_client()
    ada = make_user(client, "ada")
    sid = submit(client, ada, WRONG, problem="warm-up-quiz")
    wait_judged(quiz_app)
    view = _view(client, sid, ada.auth)
    assert view["verdict"] == "WA"
    cases = {c["name"]: c for c in view["cases"]}
    assert cases["pick"]["verdict"] == "WA" and "explanation" not in cases["pick"]
    assert "EXPLAIN_PICK" not in json.dumps(view)


def test_a_sheet_nested_30000_deep_is_judged_ce_and_the_quiz_page_still_opens(
    quiz_app: Flask,
) -> None:
    """Regression (issue 22): the page read the learner's last sheet back with json.loads,
    whose RecursionError on a sheet nested 30,000 deep made the quiz page a 500 for that
    learner until their next submission."""
    client = quiz_app.test_client()
    ada = make_user(client, "ada")
    deep = '{"pick": ' + "[" * 30_000 + "]" * 30_000 + ', "count": 1}'
    sid = submit(client, ada, deep, problem="warm-up-quiz")
    wait_judged(quiz_app)
    assert _view(client, sid, ada.auth)["verdict"] == "CE"
    page_login(client, "ada")
    page = client.get("/problems/warm-up-quiz")
    assert page.status_code == 200
    assert 'name="answer-pick"' in page.get_data(as_text=True)  # an empty form, as with no sheet


def test_giving_up_shows_the_explanation_and_ends_the_quizs_scoring(quiz_app: Flask) -> None:
    client = quiz_app.test_client()
    ada = make_user(client, "ada")
    before = submit(client, ada, WRONG, problem="warm-up-quiz")
    wait_judged(quiz_app)
    shown = client.post("/api/problems/warm-up-quiz/questions/pick/reveal", headers=ada.auth)
    assert shown.status_code == 200
    assert shown.json["explanation"]["en"].startswith("EXPLAIN_PICK")
    after = submit(client, ada, RIGHT, problem="warm-up-quiz")
    wait_judged(quiz_app)
    assert _view(client, before, ada.auth)["verdict"] == "WA"
    assert _view(client, after, ada.auth)["verdict"] == "AC"  # still judged
    board = client.get("/api/leaderboard").json["entries"]
    assert all(entry["points"] == 0 for entry in board)  # but it earns nothing


def test_giving_up_on_an_unknown_question_is_404(quiz_app: Flask) -> None:
    client = quiz_app.test_client()
    ada = make_user(client, "ada")
    missing = client.post("/api/problems/warm-up-quiz/questions/nope/reveal", headers=ada.auth)
    assert missing.status_code == 404 and missing.json["error"]["code"] == "unknown_question"


def test_a_code_problem_has_no_question_to_give_up_on(client: FlaskClient) -> None:
    bob = make_user(client, "bob")
    response = client.post("/api/problems/add-two/questions/pick/reveal", headers=bob.auth)
    assert response.status_code == 400 and response.json["error"]["code"] == "not_a_quiz"


def _question(html: str, qid: str) -> str:
    """The <li> of question `qid` on a quiz page, as text."""
    start = html.index(f'id="q-{qid}"')
    return html[html.rindex("<li", 0, start) : html.index("</li>", start)]


def test_the_quiz_title_is_shown_once(quiz_app: Flask) -> None:
    """Issue 23: the page's heading and the statement's own `# Title` line both showed."""
    html = quiz_app.test_client().get("/problems/warm-up-quiz").get_data(as_text=True)
    assert html.count("<h1") == 1 and "Warm-up quiz</h1>" in html
    assert "Answer both." in html


def test_run_checks_an_expression_at_the_public_points_shown_with_it_and_marks_it_in_place(
    quiz_app: Flask,
) -> None:
    """Issue 23: the statement promised a Run at public points shown with each question; the
    page had neither. Run needs no account and stores nothing."""
    client = quiz_app.test_client()
    page = client.get("/problems/formula-quiz").get_data(as_text=True)
    assert 'id="run-button"' in page
    assert "Run checks your expression at: n=1, p=5; n=3, p=2" in _question(page, "tokens")
    form = {"csrf_token": csrf_of(client), "answer-size": "2", "answer-tokens": "n + p"}
    ran = client.post("/problems/formula-quiz/run", data=form)
    assert ran.status_code == 200
    html = ran.get_data(as_text=True)
    tokens = _question(html, "tokens")
    assert "wrong" in tokens and 'data-verdict="WA"' in tokens and 'value="n + p"' in tokens
    assert "differs from the expected value at n=1, p=5 (yours gives 6)" in tokens
    size = _question(html, "size")
    assert "wrong" not in size and "checked when you submit" in size and 'value="2"' in size
    assert "questions not right: 2" in html and 'id="quiz-ran"' in html
    assert "EXPLAIN_" not in html
    form["answer-tokens"] = "n * p + n * (n - 1) / 2"
    html = client.post("/problems/formula-quiz/run", data=form).get_data(as_text=True)
    assert "right at the public points" in _question(html, "tokens")
    assert "questions not right" not in html
    ada = make_user(client, "ada")
    assert client.get("/api/submissions", headers=ada.auth).json["submissions"] == []


def test_the_quiz_page_marks_the_questions_the_latest_submission_got_wrong(
    quiz_app: Flask,
) -> None:
    client = quiz_app.test_client()
    ada = make_user(client, "ada")
    sid = submit(client, ada, WRONG, problem="warm-up-quiz")
    wait_judged(quiz_app)
    page_login(client, "ada")
    html = client.get("/problems/warm-up-quiz").get_data(as_text=True)
    pick = _question(html, "pick")
    assert "wrong" in pick and "not the right option" in pick
    count = _question(html, "count")
    assert "wrong" not in count and "marked-AC" in count
    assert "questions not right: 1" in html and f'href="/submissions/{sid}"' in html


def test_the_verdict_names_questions_by_the_pages_numbers_and_links_back_to_the_quiz(
    quiz_app: Flask,
) -> None:
    """Issue 23: the verdict named answers by id while the page numbers them 1, 2, ..."""
    client = quiz_app.test_client()
    ada = make_user(client, "ada")
    sid = submit(client, ada, WRONG, problem="warm-up-quiz")
    wait_judged(quiz_app)
    page_login(client, "ada")
    html = client.get(f"/submissions/{sid}").get_data(as_text=True)
    assert '<a href="/problems/warm-up-quiz#q-pick">Question 1</a>' in html
    assert '<a href="/problems/warm-up-quiz#q-count">Question 2</a>' in html
    assert 'id="back-to-quiz" href="/problems/warm-up-quiz"' in html


def test_a_quiz_run_is_rate_limited_per_address(quiz_app: Flask) -> None:
    """A quiz's Run needs no account and evaluates formulas: one address gets
    `quiz_run_per_ip` of them a window, then the page's 429 in its language."""
    platform = state(quiz_app)
    config = dataclasses.replace(platform.config, quiz_run_per_ip=RateLimit(2, 60.0))
    quiz_app.extensions[EXTENSION] = dataclasses.replace(platform, config=config)
    client = quiz_app.test_client()
    client.get("/problems/formula-quiz")
    form = {"csrf_token": csrf_of(client), "answer-size": "2", "answer-tokens": "n + p"}
    for _ in range(2):
        assert client.post("/problems/formula-quiz/run", data=form).status_code == 200
    refused = client.post("/problems/formula-quiz/run", data=form)
    assert refused.status_code == 429
    assert "quiz checks from this IP" in refused.get_data(as_text=True)
