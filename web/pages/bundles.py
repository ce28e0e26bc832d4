"""The problems' public bundles, as the build wrote them into static/dist/problems/: each
`<slug>.json` (what a problem page loads) and `index.json` (slug -> version). A hidden
problem's bundle and its line of the index are for admins only, as its page is.

These rules are more specific than the static route's `/static/<path:filename>`, so
werkzeug routes these paths here, where the viewer is known; every other file under
/static is still served as it is.
"""

from __future__ import annotations

import json
import posixpath
from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, g, request, send_from_directory
from werkzeug.exceptions import NotFound

from web.state import platform

bp = Blueprint("bundles", __name__)
PRIVATE = "private, no-cache"  # the answer depends on who asks: no shared cache keeps it
FOLDER = "dist/problems"  # under the static folder


@bp.before_app_request
def refuse_a_detour() -> None:
    """A path that reaches the bundles through the static route all the same
    ("/static/dist/x/../problems/roofline.json": werkzeug's safe_join normalizes it) is a
    404: they are served only by the two rules below, which know the viewer."""
    if request.endpoint != "static":
        return
    filename = posixpath.normpath(str((request.view_args or {}).get("filename", "")))
    if filename == FOLDER or filename.startswith(FOLDER + "/"):
        raise NotFound()


def _folder() -> Path:
    return Path(current_app.static_folder or "") / FOLDER


def _hidden_to_viewer() -> set[str]:
    viewer = g.get("viewer")
    if viewer is not None and viewer.is_admin:
        return set()
    return platform().catalog.hidden(g.db)


@bp.get("/static/dist/problems/index.json")
def index() -> Any:
    path = _folder() / "index.json"
    if not path.is_file():
        raise NotFound()
    versions = json.loads(path.read_text(encoding="utf-8"))
    hidden = _hidden_to_viewer()
    shown = {slug: version for slug, version in versions.items() if slug not in hidden}
    response = current_app.response_class(
        json.dumps(shown, sort_keys=True), mimetype="application/json"
    )
    response.headers["Cache-Control"] = PRIVATE
    return response


@bp.get("/static/dist/problems/<slug>.json")
def bundle(slug: str) -> Any:
    if slug in _hidden_to_viewer():
        raise NotFound()  # the same answer as for a bundle that was never built
    response = send_from_directory(_folder(), f"{slug}.json")
    response.headers["Cache-Control"] = PRIVATE
    return response
