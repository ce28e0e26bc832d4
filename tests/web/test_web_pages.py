"""Server-rendered pages: problem list, problem page hooks, language, CSRF on forms."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient
from problem_factory import GOOD, WRONG
from web_helpers import PASSWORD, csrf_of, make_user, page_login, submit, wait_judged


def test_problem_list_shows_problems_in_chapter_order(client: FlaskClient) -> None:
    html = client.get("/").get_data(as_text=True)
    assert html.index("Add two numbers add-two") < html.index("Add two numbers add-more")
    assert 'class="tag">arith' in html


def test_problem_list_shows_progress_for_the_logged_in_user(
    app: Flask, client: FlaskClient
) -> None:
    ada = make_user(client, "ada")
    for code, slug in ((GOOD, "add-two"), (WRONG, "add-more")):
        body = {"problem": slug, "code": code}
        client.post("/api/submissions", json=body, headers=ada.auth)
    wait_judged(app)
    page_login(client, "ada")
    html = client.get("/").get_data(as_text=True)
    assert "progress-solved" in html and "progress-tried" in html
    problems = client.get("/api/problems", headers=ada.auth).json["problems"]
    assert {p["slug"]: p["progress"] for p in problems} == {
        "add-two": "solved",
        "add-more": "tried",
    }


def test_language_follows_accept_language_then_the_cookie(client: FlaskClient) -> None:
    zh = client.get("/", headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.5"})
    assert "题目" in zh.get_data(as_text=True)
    assert "两数相加" in zh.get_data(as_text=True)
    en = client.get("/", headers={"Accept-Language": "en-US"})
    assert "Problems" in en.get_data(as_text=True)
    switched = client.get("/lang/zh?next=/problems/add-two")
    assert switched.status_code == 303
    assert switched.headers["Location"] == "/problems/add-two"
    page = client.get("/problems/add-two", headers={"Accept-Language": "en"})
    assert "相加" in page.get_data(as_text=True)


def test_language_switch_never_redirects_off_site(client: FlaskClient) -> None:
    for target in ("https://evil.example/", "//evil.example/x", "evil"):
        response = client.get(f"/lang/en?next={target}")
        assert response.headers["Location"] == "/"
    assert client.get("/lang/fr").status_code == 404


def test_problem_page_has_the_editor_hooks_and_a_safe_statement(client: FlaskClient) -> None:
    html = client.get("/problems/add-two").get_data(as_text=True)
    assert 'id="editor"' in html
    assert 'data-slug="add-two"' in html
    assert 'data-starter-url="/api/problems/add-two/starter"' in html
    assert 'data-bundle-url="/static/dist/problems/add-two.json"' in html
    assert '<span class="math inline">$a_b + c_d$</span>' in html
    assert "<script>alert(1)</script>" not in html
    assert "raise NotImplementedError" in html  # the starter in the no-script form


def test_unknown_problem_page_is_404(client: FlaskClient) -> None:
    response = client.get("/problems/nope")
    assert response.status_code == 404
    assert "unknown problem" in response.get_data(as_text=True)


def test_login_form_needs_its_csrf_token(client: FlaskClient) -> None:
    make_user(client, "ada")
    forged = client.post("/login", data={"username": "ada", "password": PASSWORD})
    assert forged.status_code == 403
    assert "CSRF" in forged.get_data(as_text=True)
    page_login(client, "ada")
    assert client.get("/api/me").json["user"]["username"] == "ada"


def test_wrong_password_on_the_form_shows_an_error(client: FlaskClient) -> None:
    make_user(client, "ada")
    data = {"username": "ada", "password": "wrong-one", "csrf_token": csrf_of(client)}
    response = client.post("/login", data=data)
    assert response.status_code == 401
    assert "wrong username or password" in response.get_data(as_text=True)


def test_register_page_creates_and_logs_in(client: FlaskClient) -> None:
    data = {"username": "grace", "password": PASSWORD, "csrf_token": csrf_of(client)}
    assert client.post("/register", data=data).status_code == 303
    assert client.get("/api/me").json["user"]["username"] == "grace"
    short = {"username": "hopper", "password": "x", "csrf_token": csrf_of(client)}
    response = client.post("/register", data=short)
    assert response.status_code == 400
    assert "password must be" in response.get_data(as_text=True)


def test_logout_needs_csrf_and_ends_the_session(client: FlaskClient) -> None:
    make_user(client, "ada")
    page_login(client, "ada")
    assert client.post("/logout").status_code == 403
    assert client.post("/logout", data={"csrf_token": csrf_of(client)}).status_code == 303
    assert client.get("/api/me").json["user"] is None


def test_cookie_api_calls_need_the_csrf_header(app: Flask, client: FlaskClient) -> None:
    make_user(client, "ada")
    page_login(client, "ada")
    body = {"problem": "add-two", "code": GOOD}
    assert client.post("/api/submissions", json=body).status_code == 403
    headers = {"X-CSRF-Token": csrf_of(client)}
    assert client.post("/api/submissions", json=body, headers=headers).status_code == 202
    wait_judged(app)


def test_no_script_form_submits_and_the_page_shows_the_verdict(
    app: Flask, client: FlaskClient
) -> None:
    make_user(client, "ada")
    page_login(client, "ada")
    data = {"code": GOOD, "csrf_token": csrf_of(client)}
    response = client.post("/problems/add-two/submit", data=data)
    assert response.status_code == 303
    wait_judged(app)
    html = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "verdict-AC" in html
    assert "return a + b" in html  # the owner sees the code


def test_submission_page_hides_code_from_others(app: Flask, client: FlaskClient) -> None:
    ada = make_user(client, "ada")
    sid = client.post(
        "/api/submissions", json={"problem": "add-two", "code": GOOD}, headers=ada.auth
    ).json["id"]
    wait_judged(app)
    html = client.get(f"/submissions/{sid}").get_data(as_text=True)
    assert "verdict-AC" in html
    assert "return a + b" not in html


def test_lists_and_boards_render(app: Flask, client: FlaskClient) -> None:
    ada = make_user(client, "ada")
    client.post("/api/submissions", json={"problem": "add-two", "code": GOOD}, headers=ada.auth)
    wait_judged(app)
    for url in ("/submissions", "/submissions?user=ada", "/leaderboard", "/leaderboard/add-two"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "ada" in response.get_data(as_text=True), url


def test_the_submissions_page_filters_exactly_as_the_api_does(
    app: Flask, client: FlaskClient
) -> None:
    root = make_user(client, "root", admin=True)
    ada, bob = make_user(client, "ada"), make_user(client, "bob")
    ids = [submit(client, ada, WRONG), submit(client, bob, WRONG)]
    ids.append(submit(client, ada, WRONG, problem="add-more"))
    wait_judged(app)
    hide = {"hidden": True}
    client.post("/api/admin/problems/add-more/hidden", json=hide, headers=root.auth)
    listed = {}
    for args in (
        "",
        "user=ada",
        "problem=add-two&user=bob",
        f"before={ids[1]}",
        "problem=add-more",
    ):
        api = [s["id"] for s in client.get(f"/api/submissions?{args}").json["submissions"]]
        html = client.get(f"/submissions?{args}").get_data(as_text=True)
        assert [int(i) for i in re.findall(r'<tr data-id="(\d+)"', html)] == api, args
        listed[args] = api
    # Not vacuous: the filters and the hidden problem did leave rows out of both lists.
    assert listed[""] == [ids[1], ids[0]]
    assert listed["user=ada"] == [ids[0]]
    assert listed["problem=add-more"] == []


def test_pages_are_cross_origin_isolated_and_not_framed(client: FlaskClient) -> None:
    for url in ("/", "/problems/add-two", "/api/problems"):
        headers = client.get(url).headers
        assert headers["Cross-Origin-Opener-Policy"] == "same-origin"
        assert headers["Cross-Origin-Embedder-Policy"] == "require-corp"
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["X-Content-Type-Options"] == "nosniff"
