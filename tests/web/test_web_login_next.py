"""The page a learner came from survives the detour from log-in to registration."""

from __future__ import annotations

import re
from urllib.parse import unquote

from flask.testing import FlaskClient
from web_helpers import PASSWORD, csrf_of


def _link_in_main(client: FlaskClient, url: str, to: str) -> str:
    """The page body's link to `to` (the nav bar has its own, without next)."""
    html = client.get(url).get_data(as_text=True)
    main = html[html.index("<main") :]
    found = re.search(rf'href="({to}[^"]*)"', main)
    assert found, main
    return unquote(found.group(1).replace("&amp;", "&"))


def _register_link(client: FlaskClient, url: str) -> str:
    return _link_in_main(client, url, "/register")


def test_registering_from_the_login_page_returns_to_the_page_asked_for(
    client: FlaskClient,
) -> None:
    link = _register_link(client, "/login?next=/problems/add-two")
    assert link == "/register?next=/problems/add-two"
    form = {"username": "ada", "password": PASSWORD, "csrf_token": csrf_of(client)}
    response = client.post(link, data=form)
    assert response.status_code == 303
    assert response.headers["Location"] == "/problems/add-two"


def test_a_next_page_off_the_site_is_not_carried_to_registration(client: FlaskClient) -> None:
    assert _register_link(client, "/login?next=//evil.example/x") == "/register"
    form = {"username": "bob", "password": PASSWORD, "csrf_token": csrf_of(client)}
    response = client.post("/register?next=//evil.example/x", data=form)
    assert response.status_code == 303
    assert "evil" not in response.headers["Location"]


def test_the_registration_page_links_back_to_log_in_with_the_same_page(
    client: FlaskClient,
) -> None:
    link = _link_in_main(client, "/register?next=/leaderboard", "/login")
    assert link == "/login?next=/leaderboard"
