"""What the embeds load, copied into the built site, and the site checked for secrets.

Everything comes from the front end's build (Pyodide's files from its npm package, the
judge's zip, the embed's script and styles, the problems' public bundles): the site needs
no other origin. After copying, every page and file of the site is searched for the
distinctive lines of each embedded problem's reference, known-wrong solutions, answer key
and editorials (devtools/build_bundles.py's rule, the one the front-end build itself is
held to), so that a page an author wrote cannot publish what the platform keeps hidden.
"""

from __future__ import annotations

import gzip
import html
import json
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

# The front end's files an embed loads (folders copied whole), beside the bundles.
FILES = ("embed.js", "embed.css", "worker.js", "judge.zip")
FOLDERS = ("chunks", "fonts", "pyodide")
# Source maps and Pyodide's own files are not searched: third-party or derived text.
_NOT_SEARCHED = (".map", ".wasm", ".zip", ".woff", ".woff2", ".ttf", ".png", ".ico", ".gif", ".jpg")
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
    # Code and Markdown change shape when rendered (highlighted, reflowed, marked up): they
    # are compared without their markup too. A data file's lines (an answer key's TOML) are
    # compared as written: without its brackets, `[question-id]` is a public question's id.
    wanted = [
        (line, compact(line) if origin.endswith((".py", ".md")) else "", origin)
        for line, origin in secrets.items()
    ]
    for path in sorted(site.rglob("*")):
        if not path.is_file() or path.name.endswith(_NOT_SEARCHED):
            continue
        relative = path.relative_to(site)
        if relative.parts[0] == ASSETS and relative.parts[1:2] == ("pyodide",):
            continue
        if pages_may_quote and relative.parts[0] != ASSETS:
            continue
        text = readable_text(path)
        squeezed = compact(text)
        for line, short, origin in wanted:
            if line in text or (len(short) >= MIN_COMPACT and short in squeezed):
                raise SecretInSite(f"{relative} holds a line of {origin}: {line[:80]!r}")


# A line compared without its markup is a run of letters and digits; shorter ones ("return
# total", "x = 1") are common enough to match by chance, and are matched as written only.
MIN_COMPACT = 20
_NOT_WORD = re.compile(r"[\W_]+")
_TAG = re.compile(r"<[^>]*>")
_JS_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})")


def compact(text: str) -> str:
    """Letters and digits only: a line as rendered (highlighted code split into spans,
    Markdown's ** and ` turned into tags, whitespace reflowed) compares with its source."""
    return _NOT_WORD.sub("", text).casefold()


def readable_text(path: Path) -> str:
    """What a reader (or a script) could get out of a built file: a page's text without its
    tags, a JSON file's strings decoded, a script's string escapes undone, a .gz unpacked."""
    data = path.read_bytes()
    name = path.name
    if name.endswith(".gz"):
        try:
            data, name = gzip.decompress(data), name[:-3]
        except (OSError, EOFError):
            pass  # not gzip after all: searched as it is
    text = data.decode("utf-8", errors="replace")
    if name.endswith((".html", ".xml")):
        return html.unescape(_TAG.sub(" ", text)) + "\n" + html.unescape(text)
    if name.endswith(".json"):
        from devtools.build_bundles import strings_in  # the bundle check's own reading

        try:
            return "\n".join(strings_in(json.loads(text)))
        except ValueError:
            return text
    return _JS_ESCAPE.sub(_unescaped, text)


def _unescaped(match: re.Match[str]) -> str:
    return chr(int(match.group(1) or match.group(2), 16))
