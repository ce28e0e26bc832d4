"""A hidden problem's static bundle is for admins only (issue 22, section 6): hiding
roofline left /static/dist/problems/roofline.json answering 200, and index.json listing
it. Served here from a dist folder the test writes, so no front-end build is needed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from web_helpers import Account, make_config, make_user, state

from web import create_app

SLUGS = ("add-two", "add-more")
DETOURS = (
    "/static/dist/x/../problems/add-two.json",
    "/static/dist/./problems/add-two.json",
    "/static/dist/problems/./add-two.json",
    "/static/dist/%2e/problems/add-two.json",
    "/static/dist/problems/x/../add-two.json",
    "/static/dist/problems//add-two.json",
    "/static/dist//problems/add-two.json",
    "/static/dist/problems/../problems/index.json",
)


@pytest.fixture
def dist_app(tmp_path: Path, db_template: Path, problems_root: Path) -> Iterator[Flask]:
    static = tmp_path / "static"
    bundles = static / "dist" / "problems"
    bundles.mkdir(parents=True)
    for slug in SLUGS:
        (bundles / f"{slug}.json").write_text(json.dumps({"problem": {"slug": slug}}))
    (bundles / "index.json").write_text(json.dumps({slug: "v1" for slug in SLUGS}))
    (static / "dist" / "app.js").write_text("// the page\n")
    app = create_app(make_config(tmp_path, db_template, problems_root, start_workers=False))
    app.static_folder = str(static)
    yield app
    state(app).close()


def hide(app: Flask, root: Account, slug: str) -> None:
    response = app.test_client().post(
        f"/api/admin/problems/{slug}/hidden", json={"hidden": True}, headers=root.auth
    )
    assert response.status_code == 200, response.json


def fetch(app: Flask, path: str, who: Account | None = None) -> tuple[int, bytes]:
    response = app.test_client().get(path, headers=who.auth if who else {})
    try:
        return response.status_code, response.get_data()
    finally:
        response.close()


def test_a_hidden_problems_bundle_and_index_line_are_for_admins_only(dist_app: Flask) -> None:
    setup = dist_app.test_client()
    root, ada = make_user(setup, "root", admin=True), make_user(setup, "ada")
    assert fetch(dist_app, "/static/dist/problems/add-two.json")[0] == 200
    hide(dist_app, root, "add-two")
    for who in (None, ada):
        assert fetch(dist_app, "/static/dist/problems/add-two.json", who)[0] == 404
        status, body = fetch(dist_app, "/static/dist/problems/index.json", who)
        assert status == 200 and json.loads(body) == {"add-more": "v1"}
        assert fetch(dist_app, "/static/dist/problems/add-more.json", who)[0] == 200
    status, body = fetch(dist_app, "/static/dist/problems/add-two.json", root)
    assert status == 200 and json.loads(body)["problem"]["slug"] == "add-two"
    status, body = fetch(dist_app, "/static/dist/problems/index.json", root)
    assert json.loads(body) == {"add-two": "v1", "add-more": "v1"}
    response = dist_app.test_client().get("/static/dist/problems/add-more.json")
    assert response.headers["Cache-Control"] == "private, no-cache"  # no shared cache keeps it
    response.close()


@pytest.mark.parametrize("path", DETOURS)
def test_no_detour_through_the_static_route_reaches_a_hidden_bundle(
    dist_app: Flask, path: str
) -> None:
    """werkzeug's static route normalizes "x/../" in a file name, so a path around the
    bundle rules would have served the file without asking who is viewing."""
    setup = dist_app.test_client()
    root = make_user(setup, "root", admin=True)
    hide(dist_app, root, "add-two")
    response = dist_app.test_client().get(path, follow_redirects=True)
    try:
        body = response.get_data(as_text=True)
        assert response.status_code == 404 or "add-two" not in body, (response.status_code, body)
    finally:
        response.close()


def test_other_static_files_are_served_as_before(dist_app: Flask) -> None:
    status, body = fetch(dist_app, "/static/dist/app.js")
    assert status == 200 and body == b"// the page\n"
