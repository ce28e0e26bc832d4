"""Input that once made the server answer 500, or redirect off the site: each is now
refused where it enters, with the documented JSON error shape on /api and a page
elsewhere (issue 10, section 5)."""

from __future__ import annotations

import logging
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient
from test_web_api_accounts import error_of
from web_helpers import PASSWORD, csrf_of, make_user

from web.boards import leaderboard

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database

BIG = 2**63  # one past the largest integer SQLite (and a PostgreSQL BIGINT) can hold


def deep(levels: int) -> str:
    return '{"username": ' + "[" * levels + "]" * levels + ', "password": "x"}'


def test_submission_ids_past_the_database_integer_are_404(client: FlaskClient) -> None:
    """Pins: /api/submissions/9223372036854775808 (and /events, and the page) raised
    OverflowError in SQLite's driver: HTTP 500."""
    for path in (f"/api/submissions/{BIG}", f"/api/submissions/{BIG}/events"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert error_of(response)["code"] == "unknown_submission"
    page = client.get(f"/submissions/{BIG}")
    assert page.status_code == 404 and b"no submission" in page.data
    assert client.get("/api/submissions/0").status_code == 404


def test_deeply_nested_json_is_malformed_json(client: FlaskClient) -> None:
    """Pins: a body of 100,000 '[' raised RecursionError in web/serving/inputs.py: HTTP 500."""
    for body in ("[" * 100_000, deep(40), '{"a": ' + '{"b": ' * 5000 + "1" + "}" * 5001):
        response = client.post("/api/register", data=body, content_type="application/json")
        assert response.status_code == 400
        assert error_of(response)["code"] == "malformed_json"
        assert "nested deeper than 32" in error_of(response)["message"]
    shallow = client.post("/api/register", data=deep(5), content_type="application/json")
    assert error_of(shallow)["code"] == "invalid_field"  # depth is fine; a list is not a name


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/register", {"username": "ab\ud800c", "password": PASSWORD}, "username"),
        ("/api/register", {"username": "grace", "password": PASSWORD + "\udfff"}, "password"),
        ("/api/token", {"username": "ada", "password": "\ud800" * 9}, "password"),
        ("/api/token", {"username": "ada", "password": PASSWORD, "label": "\ud800"}, "label"),
        ("/api/register", {"username": "grace", "password": PASSWORD, "x": ["\ud800"]}, "x"),
        ("/api/register", {"username": "grace", "password": PASSWORD, "\ud800": 1}, "body"),
        ("/api/admin/problems/add-two/rejudge", {"version": "\ud800"}, "version"),
        ("/api/submissions", {"problem": "add\ud800", "code": "x = 1"}, "problem"),
    ],
)
def test_lone_surrogates_in_any_string_field_are_400(
    client: FlaskClient, path: str, body: dict[str, object], field: str
) -> None:
    """Pins: "\\ud800" decodes from JSON but cannot be encoded for the database, so a
    password (or a version, or any string) holding one was HTTP 500."""
    root = make_user(client, "root", admin=True)
    make_user(client, "ada")
    response = client.post(path, json=body, headers=root.auth)
    assert response.status_code == 400, response.json
    error = error_of(response)
    assert (error["code"], error["field"]) == ("invalid_field", field)
    assert "Unicode" in error["message"]


def test_nul_characters_in_text_fields_are_400(client: FlaskClient) -> None:
    """PostgreSQL refuses NUL in text: a label, version or slug holding one would be a 500
    there (SQLite stores it), so every JSON string but the code refuses it on entry."""
    root = make_user(client, "root", admin=True)
    cases = [
        ("/api/token", {"username": "root", "password": PASSWORD, "label": "a\x00b"}, "label"),
        ("/api/admin/problems/add-two/rejudge", {"version": "\x00"}, "version"),
        ("/api/submissions", {"problem": "add-two\x00", "code": "x = 1"}, "problem"),
    ]
    for path, body, field in cases:
        response = client.post(path, json=body, headers=root.auth)
        error = error_of(response)
        assert (response.status_code, error["field"]) == (400, field), path
        assert "NUL" in error["message"]
    code = client.post(
        "/api/submissions", json={"problem": "add-two", "code": "x = 1\x00"}, headers=root.auth
    )
    assert error_of(code)["code"] == "invalid_code"


def test_a_lone_surrogate_in_code_is_invalid_code(client: FlaskClient) -> None:
    ada = make_user(client, "ada")
    body = {"problem": "add-two", "code": "x = '\ud800'"}
    response = client.post("/api/submissions", json=body, headers=ada.auth)
    assert error_of(response)["code"] == "invalid_code"


@pytest.mark.parametrize("sent", ["é", "中文", "\x00", "x" * 5000])
def test_a_non_ascii_csrf_token_is_403(client: FlaskClient, sent: str) -> None:
    """Pins: hmac.compare_digest raised TypeError on a str holding non-ASCII: HTTP 500."""
    csrf_of(client)  # the session has a token to compare with
    form = client.post("/logout", data={"csrf_token": sent})
    assert form.status_code == 403
    latin1 = sent.encode("utf-8").decode("latin-1")  # what a raw UTF-8 header arrives as
    header = client.post("/api/submissions", json={}, headers={"X-CSRF-Token": latin1})
    assert header.status_code in (401, 403)  # no user: login_required is checked later


OFF_SITE = [
    "/%09/evil.com",  # arrives as "/\t/evil.com"; browsers drop the tab: "//evil.com"
    "/%0a/evil.com",
    "/%0d%0aSet-Cookie:%20x=1",  # CR/LF raised ValueError in the header: HTTP 500
    "//evil.com",
    "/\\evil.com",
    "/%5Cevil.com",
    "/a\\b",
    "https://evil.com/",
    "javascript:alert(1)",
    "evil.com",
    "/%252F/evil.com",  # "/%2F/evil.com", then "//evil.com" once decoded
    "/%2509/evil.com",
    "/%E2%80%AE/x",  # a bidi override: a format character
    "%2F%2Fevil.com",
]


@pytest.mark.parametrize("target", OFF_SITE)
def test_login_never_redirects_off_the_site(client: FlaskClient, target: str) -> None:
    """Pins: POST /login?next=/%09/evil.com redirected to "/\\t/evil.com", which a
    browser follows to //evil.com; CR/LF in next= was HTTP 500."""
    make_user(client, "ada")
    data = {"username": "ada", "password": PASSWORD, "csrf_token": csrf_of(client)}
    response = client.post(f"/login?next={target}", data=data)
    assert response.status_code == 303
    assert response.headers["Location"] == "/"


@pytest.mark.parametrize("target", OFF_SITE)
def test_the_language_switch_never_redirects_off_the_site(client: FlaskClient, target: str) -> None:
    response = client.get(f"/lang/zh?next={target}")
    assert response.status_code == 303
    assert response.headers["Location"] == "/"


@pytest.mark.parametrize(
    "target", ["/problems/add-two", "/submissions?user=ada&problem=add-two", "/a%20b", "/"]
)
def test_same_site_paths_are_kept(client: FlaskClient, target: str) -> None:
    response = client.get("/lang/zh?next=" + quote(target, safe=""))
    assert response.headers["Location"] == target


def test_text_query_parameters_must_be_printable(client: FlaskClient) -> None:
    for query in ("user=%00", "problem=a%0ab", "user=" + "x" * 65):
        response = client.get(f"/api/submissions?{query}")
        assert response.status_code == 400, query
        assert error_of(response)["code"] == "invalid_query"
    assert client.get("/submissions?user=%00").status_code == 400


def test_an_unexpected_error_is_the_json_shape_with_no_traceback(
    app: Flask,
    client: FlaskClient,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(leaderboard, "overall", broken)
    with caplog.at_level(logging.ERROR, logger="web.errors"):
        api = client.get("/api/leaderboard")
        page = client.get("/leaderboard")
    assert api.status_code == 500
    assert error_of(api)["code"] == "internal_error"
    for response in (api, page):
        body = response.get_data(as_text=True)
        assert "secret internal detail" not in body and "Traceback" not in body
    assert page.status_code == 500 and "text/html" in page.content_type
    assert "secret internal detail" in caplog.text  # the server's log has the whole story
