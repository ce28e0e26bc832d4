"""Hints and the editorial on the web: hints are public; the editorial is served only to a
user with an accepted submission on the problem, and never goes into the browser bundle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import GOOD, WRONG, write_web_problem
from web_helpers import make_user, page_login, submit, wait_judged

from devtools.build_bundles import BundleLeakError, check_no_leak, secret_lines
from judge.browser.bundle import public_bundle
from judge.problem.spec import load_problem

EDITORIAL_MARKER = "EDITORIAL_ONLY_51c7"


@pytest.fixture(scope="module")
def problems_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("guided")
    folder = write_web_problem(root, "add-two", order=1)
    (folder / "hints.en.md").write_text(
        "## Look at the signs\nNegative numbers add too.\n\n## Python has it\nUse `+`.\n"
    )
    (folder / "hints.zh.md").write_text("## 看符号\n负数也能相加。\n\n## Python 自带\n用 `+`。\n")
    (folder / "editorial.en.md").write_text(f"Add them: one step. {EDITORIAL_MARKER} in English\n")
    (folder / "editorial.zh.md").write_text(f"直接相加，一步即可。{EDITORIAL_MARKER} 中文\n")
    write_web_problem(root, "add-more", order=2)  # no hints, no editorial
    return root


def test_the_problem_page_shows_every_hint_but_not_the_editorial_before_ac(
    client: FlaskClient,
) -> None:
    page = client.get("/problems/add-two").get_data(as_text=True)
    assert "Hint 1: Look at the signs" in page and "Hint 2: Python has it" in page
    assert 'data-next-label="Show hint {n} of {total}"' in page
    assert EDITORIAL_MARKER not in page
    assert "opens once you have an accepted submission" in page


def test_a_chinese_reader_gets_the_chinese_hints(client: FlaskClient) -> None:
    page = client.get("/problems/add-two", headers={"Accept-Language": "zh"})
    text = page.get_data(as_text=True)
    assert "提示 1: 看符号" in text and "负数也能相加" in text and "Look at the signs" not in text


def test_the_api_lists_hints_in_both_languages(client: FlaskClient) -> None:
    problem = client.get("/api/problems/add-two").json
    assert problem["hints"][1] == {
        "title": {"zh": "Python 自带", "en": "Python has it"},
        "text": {"zh": "用 `+`。", "en": "Use `+`."},
    }
    assert problem["has_editorial"] is True and EDITORIAL_MARKER not in json.dumps(problem)


def test_the_editorial_opens_only_after_an_accepted_submission(
    app: Flask, client: FlaskClient
) -> None:
    assert client.get("/api/problems/add-two/editorial").json["error"]["code"] == "login_required"
    alice = make_user(client, "alice")
    refused = client.get("/api/problems/add-two/editorial", headers=alice.auth)
    assert refused.status_code == 403 and refused.json["error"]["code"] == "not_accepted"

    submit(client, alice, WRONG)
    wait_judged(app)
    assert client.get("/api/problems/add-two/editorial", headers=alice.auth).status_code == 403

    submit(client, alice, GOOD)
    wait_judged(app)
    opened = client.get("/api/problems/add-two/editorial", headers=alice.auth)
    assert opened.status_code == 200
    assert EDITORIAL_MARKER in opened.json["editorial"]["en"]
    assert "中文" in opened.json["editorial"]["zh"]
    page_login(client, "alice")
    assert EDITORIAL_MARKER in client.get("/problems/add-two").get_data(as_text=True)


def test_another_users_ac_does_not_open_the_editorial_for_you(
    app: Flask, client: FlaskClient
) -> None:
    alice, bob = make_user(client, "alice"), make_user(client, "bob")
    submit(client, alice, GOOD)
    wait_judged(app)
    assert client.get("/api/problems/add-two/editorial", headers=bob.auth).status_code == 403
    page_login(client, "bob")
    assert EDITORIAL_MARKER not in client.get("/problems/add-two").get_data(as_text=True)


def test_a_problem_without_an_editorial_says_so(client: FlaskClient) -> None:
    alice = make_user(client, "alice")
    missing = client.get("/api/problems/add-more/editorial", headers=alice.auth)
    assert missing.status_code == 404 and missing.json["error"]["code"] == "no_editorial"
    assert "Hints" not in client.get("/problems/add-more").get_data(as_text=True)


def test_the_public_bundle_carries_no_editorial_and_the_build_would_refuse_one(
    problems_root: Path,
) -> None:
    folder = problems_root / "add-two"
    bundle = public_bundle(load_problem(folder))
    assert EDITORIAL_MARKER not in json.dumps(bundle, ensure_ascii=False)
    secrets = secret_lines(folder)
    assert any(EDITORIAL_MARKER in line for line in secrets)
    with pytest.raises(BundleLeakError, match=r"editorial\.en\.md"):
        check_no_leak({**bundle, "extra": (folder / "editorial.en.md").read_text()}, secrets, "x")
