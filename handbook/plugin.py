"""The MkDocs plugin (`plugins: [practice]` in mkdocs.yml; entry point in pyproject.toml).

Per page: its ```practice``` markers become embeds (handbook.embed), and a page with one
links the embed's script and styles. After the build: the embeds' files go into the site
(handbook.assets), and the site is searched for what must stay hidden. Any marker that
cannot be an embed fails the build with one line naming the page and the marker.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mkdocs.config import config_options as options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.utils import get_relative_url

from handbook.assets import ASSETS, SecretInSite, check_site, copy_assets, secrets_of
from handbook.embed import LANGS, Published, check_marker, element
from handbook.marker import MarkerError, find_markers, replace_markers

ROOT = Path(__file__).resolve().parent.parent


class PracticeConfig(Config):
    # The platform a Submit goes to (its origin, e.g. https://practice.example.org); empty:
    # the embeds run in the browser only, and torch-tier problems need `offline`.
    platform_url = options.Type(str, default="")
    # The front end's build (`make frontend`) and the problems it was built from.
    dist = options.Type(str, default=str(ROOT / "web" / "static" / "dist"))
    problems = options.Type(str, default=str(ROOT / "problems"))
    # zh or en; empty: the theme's language (mkdocs-material's `language`, MkDocs' `locale`).
    lang = options.Type(str, default="")
    # The author's own pages may quote references and editorials (answers placed after
    # the exercise); the embeds' files are searched for them whatever this says.
    pages_may_quote_answers = options.Type(bool, default=False)


class PracticePlugin(BasePlugin[PracticeConfig]):
    def __init__(self) -> None:
        self.published: Published | None = None
        self.lang = "en"
        self.platform = ""
        self.embedded: dict[str, set[str]] = {}  # page source -> the slugs it embeds

    def on_config(self, config: Any) -> Any:
        try:
            self.published = Published.read(Path(self.config.dist), Path(self.config.problems))
        except (OSError, ValueError, KeyError) as exc:
            raise PluginError(f"practice: {exc}") from None
        self.platform = platform_origin(self.config.platform_url)
        if self.platform:
            self.published = self.published.with_platform(platform_index(self.platform))
        self.lang = page_language(self.config.lang, config.theme)
        self.embedded = {}
        return config

    def on_page_markdown(self, markdown: str, page: Any, config: Any, files: Any) -> str:
        assert self.published is not None
        where = page.file.src_uri
        try:
            markers = find_markers(markdown)
            embeds = [check_marker(m, self.published, self.platform) for m in markers]
        except MarkerError as exc:
            raise PluginError(f"practice: {where}, {exc}") from None
        if not markers:
            return markdown
        self.embedded[where] = {embed.slug for embed in embeds}
        dist_url = get_relative_url(f"{ASSETS}/", page.url)
        html = [element(embed, dist_url, self.lang, self.platform) for embed in embeds]
        return replace_markers(markdown, markers, html)

    def on_post_page(self, output: str, page: Any, config: Any) -> str:
        if page.file.src_uri not in self.embedded:
            return output
        base = get_relative_url(f"{ASSETS}/", page.url)
        head = (
            f'<link rel="stylesheet" href="{base}embed.css">'
            f'<script type="module" src="{base}embed.js"></script>'
        )
        return output.replace("</head>", f"{head}</head>", 1)

    def on_post_build(self, config: Any) -> None:
        assert self.published is not None
        slugs = {slug for page in self.embedded.values() for slug in page}
        site = Path(config.site_dir)
        if not slugs:
            return
        copy_assets(self.published.dist, site, slugs)
        try:
            secrets = secrets_of(self.published.problems, slugs)
            check_site(site, secrets, self.config.pages_may_quote_answers)
        except SecretInSite as exc:
            raise PluginError(f"practice: {exc}") from None


def platform_origin(url: str) -> str:
    """The platform's origin as the embeds use it (scheme://host[:port], no trailing slash);
    PluginError for anything more or less: the embeds call `<origin>/api/...`, so a path
    would be dropped, and credentials in a URL would be published in every page."""
    if not url:
        return ""
    parts = urlsplit(url.strip())
    bare = parts.path in ("", "/") and not (parts.query or parts.fragment)
    try:
        parts.port  # noqa: B018 - raises ValueError for a port that is not one
    except ValueError:
        bare = False
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or not bare:
        said = f"practice: platform_url must be an origin like https://host[:port], not {url!r}"
        raise PluginError(said)
    return f"{parts.scheme}://{parts.netloc}"


INDEX_TIMEOUT_S = 15.0


def platform_index(origin: str) -> dict[str, object]:
    """The platform's public problem index (slug -> version, hidden problems left out, as a
    visitor sees it); PluginError when it cannot be read: a site that promises Submit to a
    platform is not built blind to what that platform shows."""
    url = f"{origin}/static/dist/problems/index.json"
    try:
        with urllib.request.urlopen(url, timeout=INDEX_TIMEOUT_S) as answer:
            index = json.loads(answer.read(1_000_000))
    except (OSError, ValueError) as exc:
        said = f"practice: could not read the platform's problems at {url}: {exc}"
        raise PluginError(said) from None
    if not isinstance(index, dict):
        raise PluginError(f"practice: {url} is not a problem index")
    return index


def page_language(chosen: str, theme: Any) -> str:
    """zh or en: the plugin's `lang`, else the theme's language, else en."""
    if chosen:
        if chosen not in LANGS:
            raise PluginError(f"practice: lang must be one of {', '.join(LANGS)}, not {chosen!r}")
        return chosen
    said = theme.get("language") or theme.get("locale") or ""
    base = str(said).lower().replace("_", "-").split("-")[0]
    return base if base in LANGS else "en"
