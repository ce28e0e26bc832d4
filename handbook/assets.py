"""What the embeds load, copied into the built site, and the site checked for secrets.

Everything comes from the front end's build (Pyodide's files from its npm package, the
judge's zip, the embed's script and styles, the problems' public bundles): the site needs
no other origin. After copying, every page and file of the site is searched for the
distinctive lines of each embedded problem's reference, known-wrong solutions, answer key
and editorials (devtools/build_bundles.py's rule, the one the front-end build itself is
held to), so that a page an author wrote cannot publish what the platform keeps hidden.
"""

from __future__ import annotations

import html
import shutil
from collections.abc import Iterable
from pathlib import Path

# The front end's files an embed loads (folders copied whole), beside the bundles.
FILES = ("embed.js", "embed.css", "worker.js", "judge.zip")
FOLDERS = ("chunks", "fonts", "pyodide")
# Source maps and Pyodide's own files are not searched: third-party or derived text.
_NOT_SEARCHED = (".map", ".wasm", ".zip", ".woff", ".woff2", ".ttf")
ASSETS = "practice"  # the site's folder for them


class SecretInSite(ValueError):
    """A built file holds a line the platform keeps hidden."""


def copy_assets(dist: Path, site: Path, slugs: Iterable[str]) -> Path:
    """The embeds' files under site/practice/; returns that folder."""
    target = site / ASSETS
    if target.exists():
        shutil.rmtree(target)
    (target / "problems").mkdir(parents=True)
    for name in FILES:
        if (dist / name).is_file():
            shutil.copy2(dist / name, target / name)
    for name in FOLDERS:
        if (dist / name).is_dir():
            shutil.copytree(dist / name, target / name, ignore=shutil.ignore_patterns("*.map"))
    for slug in sorted(set(slugs)):
        shutil.copy2(dist / "problems" / f"{slug}.json", target / "problems" / f"{slug}.json")
    return target


def secrets_of(problems: Path, slugs: Iterable[str]) -> dict[str, str]:
    """Each embedded problem's hidden lines -> the file they come from."""
    from devtools.build_bundles import answer_lines, secret_lines

    found: dict[str, str] = {}
    for slug in sorted(set(slugs)):
        folder = problems / slug
        found.update(secret_lines(folder))
        found.update(answer_lines(folder))
    # A quiz's known-wrong answer sheets are made of its public question and option ids
    # (`"external-fragmentation",` is in its public bundle too): a wrong answer tells nothing.
    return {line: origin for line, origin in found.items() if not _wrong_sheet(origin)}


def _wrong_sheet(origin: str) -> bool:
    return "/solutions/" in origin and origin.endswith(".json")


def check_site(site: Path, secrets: dict[str, str], pages_may_quote: bool) -> None:
    """SecretInSite naming the first file (and line's origin) that holds a secret line.
    `pages_may_quote`: the author opted in to quoting references and editorials in their
    own pages (answers after the exercise); the embeds' files are searched always."""
    if not secrets:
        return
    for path in sorted(site.rglob("*")):
        if not path.is_file() or path.name.endswith(_NOT_SEARCHED):
            continue
        relative = path.relative_to(site)
        if relative.parts[0] == ASSETS and relative.parts[1:2] == ("pyodide",):
            continue
        if pages_may_quote and relative.parts[0] != ASSETS:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".html":
            text = html.unescape(text)  # a page says `a < b` as `a &lt; b`
        for line, origin in secrets.items():
            if line in text:
                raise SecretInSite(f"{relative} holds a line of {origin}: {line[:80]!r}")
