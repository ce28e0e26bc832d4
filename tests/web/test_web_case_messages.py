"""A stored report's case messages are said in the viewer's language, whichever it is."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient
from problem_factory import WRONG
from web_helpers import make_user, submit, wait_judged


def test_a_judged_submission_reads_in_the_language_of_whoever_views_it(
    app: Flask, client: FlaskClient
) -> None:
    ada = make_user(client, "ada")
    sid = submit(client, ada, WRONG)
    wait_judged(app)
    zh = client.get(f"/api/submissions/{sid}", headers=ada.auth | {"Accept-Language": "zh-CN"})
    en = client.get(f"/api/submissions/{sid}", headers=ada.auth | {"Accept-Language": "en"})
    wrong_zh = [c for c in zh.json["cases"] if c["verdict"] == "WA"]
    wrong_en = [c for c in en.json["cases"] if c["verdict"] == "WA"]
    assert wrong_zh and all(c["message_key"] for c in wrong_zh)
    assert all(
        c["message"] == "值不同" for c in wrong_zh if c["message_key"] == "check.values_differ"
    )
    assert {c["message"] for c in wrong_en} & {
        "values differ",
        "outside the tolerance (rel 1e-09, abs 0)",
    }
    assert not {c["message"] for c in wrong_zh} & {c["message"] for c in wrong_en}
    page = client.get(f"/submissions/{sid}", headers=ada.auth | {"Accept-Language": "zh-CN"})
    assert wrong_zh[0]["message"] in page.get_data(as_text=True)
