"""Try your own input: POST /api/problems/<slug>/try-input runs the reference on the learner's
arguments on the server (and, for a torch-tier problem, their code beside it), polled as a
run, rate limited with the runs, never an attempt; and the page says how to do it offline."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import GOOD, WRONG, write_web_problem
from sqlalchemy import select
from test_web_api_accounts import error_of
from test_web_runs import TORCH, run_app, stored_rows, wait_run
from web_helpers import Account, make_user, state

from web.config import RateLimit
from web.judging.runs import LocalRunDispatch, PublicRuns
from web.store.models import User

ONE_TWO = '{"a": 1, "b": 2}'
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def try_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("try-problems")
    write_web_problem(root, "add-two", order=1)
    write_web_problem(root, TORCH, order=2, tier="torch")
    picky = "def add(a, b):\n    if a > 100:\n        raise ValueError('REFERENCE_ONLY')\n"
    write_web_problem(root, "add-picky", order=3, reference=picky + "    return a + b\n")
    # A real problem, with its declared input rules (problem.toml [input]).
    shutil.copytree(REPO / "problems" / "tokens-processed", root / "tokens-processed")
    return root


@pytest.fixture
def app(tmp_path: Path, db_template: Path, try_root: Path) -> Iterator[Flask]:
    app = run_app(tmp_path, db_template, try_root)
    yield app
    state(app).close()


def try_input(
    client: FlaskClient, who: Account, body: dict[str, Any], slug: str = "add-two", lang: str = "en"
) -> Any:
    headers = {**who.auth, "Accept-Language": lang}
    return client.post(f"/api/problems/{slug}/try-input", json=body, headers=headers)


def tried(client: FlaskClient, who: Account, body: dict[str, Any], slug: str = "add-two") -> Any:
    started = try_input(client, who, body, slug)
    assert started.status_code == 202, started.json
    return wait_run(client, who, started.json["url"])["custom"]


def test_a_code_problem_page_names_the_tab_and_the_offline_command(
    client: FlaskClient,
) -> None:
    en = client.get("/problems/add-two", headers={"Accept-Language": "en"}).get_data(as_text=True)
    zh = client.get("/problems/add-two", headers={"Accept-Language": "zh-CN"}).get_data(
        as_text=True
    )
    # The handbook's own command (its readers have this repository as practice/).
    command = "<code>python practice/judge.py run add-two add_two.py --input args.json</code>"
    assert "Try your own input in the “Try your input” tab" in en and command in en
    assert "试试你自己的输入：在结果旁的“自定义输入”标签页里运行" in zh and command in zh
    assert 'data-try-url="/api/problems/add-two/try-input"' in en


def test_the_reference_answers_a_browser_problem_input_and_sends_the_case_to_run_here(
    app: Flask, client: FlaskClient
) -> None:
    ada = make_user(client, "ada")
    custom = tried(client, ada, {"input": '{"a": 20.0, "b": 22}'})
    assert custom["answered"] and custom["reference"] == "42.0"
    # The case the page's Python runs the learner's code on: exact numbers, as text.
    case = json.loads(custom["case"])
    assert (case["name"], case["args"], case["expected"]) == ("custom", {"a": 20.0, "b": 22}, 42.0)
    assert "20.0" in custom["case"] and "report" not in custom
    assert stored_rows(app) == (0, 0, 0)
    assert client.get("/api/submissions?user=ada").json["submissions"] == []


def test_a_torch_problem_input_runs_the_code_beside_the_reference_on_the_server(
    client: FlaskClient,
) -> None:
    ada = make_user(client, "ada")
    wrong = tried(client, ada, {"input": ONE_TWO, "code": WRONG}, slug=TORCH)
    assert wrong["reference"] == "3"
    assert wrong["report"]["verdict"] == "WA"
    (case,) = wrong["report"]["cases"]
    assert (case["name"], case["got"], case["expected"]) == ("custom", "-1", "3")
    right = tried(client, ada, {"input": ONE_TWO, "code": GOOD}, slug=TORCH)
    assert right["report"]["verdict"] == "AC"


def test_an_input_shaped_unlike_a_public_case_is_refused_in_the_readers_language(
    client: FlaskClient,
) -> None:
    ada = make_user(client, "ada")
    custom = tried(client, ada, {"input": '{"a": 1}'})
    assert not custom["answered"] and "reference" not in custom
    assert custom["refused"]["en"].startswith("your input is not shaped like a public case's")
    assert custom["refused"]["zh"].startswith("你的输入和公开用例的参数形状不一样")


def test_an_input_outside_the_problems_declared_rules_is_refused_naming_the_rule(
    client: FlaskClient,
) -> None:
    ada = make_user(client, "ada")
    body = {"input": '{"prompt_len": 7, "new_tokens": 3.5}'}
    custom = tried(client, ada, body, slug="tokens-processed")
    assert not custom["answered"] and "reference" not in custom
    assert custom["refused"]["en"].endswith("new_tokens must be an integer (got 3.5)")
    assert custom["refused"]["zh"].endswith("new_tokens 应是整数（实际是 3.5）")


def test_an_input_the_reference_cannot_take_says_so_without_its_traceback(
    client: FlaskClient,
) -> None:
    ada = make_user(client, "ada")
    custom = tried(client, ada, {"input": '{"a": 101, "b": 1}'}, slug="add-picky")
    failure = custom["reference_failure"]["en"]
    assert failure.startswith("the reference gave no answer on your input")
    # The reference's own reason is said (it names what the input broke); never where in
    # the reference's code it was raised.
    assert "ValueError: REFERENCE_ONLY" in failure
    assert "Traceback" not in json.dumps(custom) and "line" not in failure


@pytest.mark.parametrize(
    ("slug", "body", "code", "field", "says"),
    [
        ("add-two", {}, "missing_field", "input", "input"),
        ("add-two", {"input": 3}, "invalid_field", "input", "input must be a string"),
        ("add-two", {"input": "[1,"}, "invalid_input", "input", "your input is not JSON (line 1"),
        ("add-two", {"input": "NaN"}, "invalid_input", "input", "your input is not JSON"),
        ("add-two", {"input": "[" * 100_000}, "invalid_input", "input", "larger than"),
        ("add-two", {"input": '{"a": "\\ud800", "b": 1}'}, "invalid_input", "input", "Unicode"),
        ("add-two", {"input": '{"a": 1e400, "b": 1}'}, "invalid_input", "input", "(1e400)"),
        ("add-two", {"input": ONE_TWO, "code": GOOD}, "runs_in_browser", "code", "input alone"),
        ("add-two", {"input": ONE_TWO, "code": 7}, "invalid_field", "code", "code"),
        (TORCH, {"input": ONE_TWO, "code": " \n"}, "invalid_code", "code", ""),
        (TORCH, {"input": ONE_TWO}, "code_required", "code", "send your code with the input"),
    ],
)
def test_bad_requests_get_a_precise_400_and_start_nothing(
    app: Flask,
    client: FlaskClient,
    slug: str,
    body: dict[str, Any],
    code: str,
    field: str,
    says: str,
) -> None:
    ada = make_user(client, "ada")
    response = try_input(client, ada, body, slug)
    assert response.status_code == 400, response.json
    error = error_of(response)
    assert (error["code"], error.get("field")) == (code, field)
    assert says in error["message"]
    assert state(app).runs.running() == 0


def test_an_unknown_problem_is_404_and_a_visitor_must_log_in(client: FlaskClient) -> None:
    ada = make_user(client, "ada")
    assert try_input(client, ada, {"input": ONE_TWO}, slug="no-such").status_code == 404
    anonymous = client.post("/api/problems/add-two/try-input", json={"input": ONE_TWO})
    assert anonymous.status_code == 401


def test_inputs_are_counted_with_the_runs_per_user(
    tmp_path: Path, db_template: Path, try_root: Path
) -> None:
    app = run_app(tmp_path, db_template, try_root, run_per_user=RateLimit(1, 60.0))
    try:
        client = app.test_client()
        ada = make_user(client, "ada")
        tried(client, ada, {"input": ONE_TWO})
        again = try_input(client, ada, {"input": ONE_TWO}, lang="zh")
        assert again.status_code == 429 and error_of(again)["code"] == "rate_limited"
    finally:
        state(app).close()


class _UnstorableJudge:
    """A judge whose answer no strict JSON holds (as Infinity or a lone surrogate would be)."""

    def try_input(self, problem: object, args: object, code: object) -> dict[str, Any]:
        return {"args": args, "answered": True, "reference": float("inf")}

    def close(self) -> None:
        pass


def test_a_result_that_cannot_be_stored_ends_the_run_as_the_judges_failure(
    app: Flask, client: FlaskClient
) -> None:
    """Before, the write raised in the run's thread, silently: the run held its slot, and
    every other learner's run was refused as busy, until it was given up minutes later."""
    st = state(app)
    make_user(client, "ada")
    with st.sessions() as db:
        user_id = db.scalar(select(User.id).where(User.username == "ada"))
    dispatch = LocalRunDispatch(st.sessions, st.catalog.get, _UnstorableJudge(), 1)  # type: ignore[arg-type]
    runs = PublicRuns(st.sessions, dispatch, 1)
    try:
        started = runs.start(user_id, st.catalog.get("add-two"), None, ONE_TWO)
        deadline = time.monotonic() + 30
        while (view := runs.get(user_id, started["id"]))["status"] != "done":
            assert time.monotonic() < deadline, "the run was never finished"
            time.sleep(0.05)
        assert view["custom"]["reference_failure"]["en"].startswith("the judge could not run")
        assert runs.running() == 0
    finally:
        dispatch.close()
