"""The site has its icon: linked from every page and answered at /favicon.ico."""

from __future__ import annotations

import re

from flask.testing import FlaskClient


def test_every_page_links_the_icon_and_the_icon_is_served(client: FlaskClient) -> None:
    for path in ("/", "/login", "/leaderboard"):
        html = client.get(path).get_data(as_text=True)
        found = re.search(r'<link rel="icon" type="image/svg\+xml" href="([^"]+)"', html)
        assert found, path
        icon = client.get(found.group(1))
        assert icon.status_code == 200 and icon.mimetype == "image/svg+xml"
        icon.close()


def test_the_default_icon_address_leads_to_the_icon(client: FlaskClient) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response.headers["Location"].endswith("/static/favicon.svg")
