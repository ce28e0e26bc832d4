"""One embedded exercise: its marker checked against the built front end, and its element.

The front end's build (web/static/dist, `make frontend`) holds each published problem's
public bundle (problems/<slug>.json); an embed is made only from those, so an embed can show
nothing the platform's own page would not.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path

from handbook.marker import Marker, MarkerError

LANGS = ("zh", "en")


@dataclass(frozen=True, slots=True)
class Published:
    """What the front-end build publishes: its folder and each problem's public summary."""

    dist: Path
    problems: Path  # the problems folder, to tell an unknown slug from an unpublished one
    summaries: dict[str, dict[str, object]]
    # What the configured platform shows a visitor (its public index.json): a problem its
    # admins hid is left out there, and may not be embedded. None: no platform.
    on_platform: frozenset[str] | None = None

    @classmethod
    def read(cls, dist: Path, problems: Path) -> Published:
        index = dist / "problems" / "index.json"
        if not (dist / "embed.js").is_file() or not index.is_file():
            raise FileNotFoundError(
                f"{dist} holds no front-end build with the embed (embed.js, problems/index.json):"
                " run `make frontend` first"
            )
        summaries = {}
        for slug in json.loads(index.read_text(encoding="utf-8")):
            bundle = json.loads((dist / "problems" / f"{slug}.json").read_text(encoding="utf-8"))
            summaries[slug] = bundle["problem"]
        return cls(dist, problems, summaries)

    def with_platform(self, index: dict[str, object]) -> Published:
        return Published(self.dist, self.problems, self.summaries, frozenset(index))


@dataclass(frozen=True, slots=True)
class Embed:
    slug: str
    kind: str  # "code" or "quiz"
    tier: str  # "browser": runs in Pyodide; "torch": through the platform, or offline
    offline: bool


def check_marker(marker: Marker, published: Published, platform_url: str) -> Embed:
    """The marker's embed, or MarkerError saying why it cannot be one."""
    summary = published.summaries.get(marker.slug)
    if summary is None:
        if (published.problems / marker.slug / "problem.toml").is_file():
            raise MarkerError(
                f"{marker.said()}: the problem is not published in the front-end build "
                f"({published.dist}); only a published problem's public material may be embedded"
            )
        known = ", ".join(sorted(published.summaries)[:6])
        raise MarkerError(f"{marker.said()}: no such problem (published: {known}, ...)")
    if published.on_platform is not None and marker.slug not in published.on_platform:
        raise MarkerError(
            f"{marker.said()}: the platform hides this problem (its admins' only): "
            "it may not be embedded"
        )
    embed = Embed(marker.slug, str(summary["kind"]), str(summary["tier"]), marker.offline)
    if embed.tier != "browser" and not platform_url and not embed.offline:
        raise MarkerError(
            f"{marker.said()}: a {embed.tier}-tier problem cannot run in the browser; set "
            "the plugin's platform_url, or write `offline` after the slug to show its "
            "`python practice/judge.py` command"
        )
    if embed.tier == "browser" and embed.offline:
        raise MarkerError(f"{marker.said()}: `offline` is for torch-tier problems only")
    return embed


def element(embed: Embed, dist_url: str, lang: str, platform_url: str) -> str:
    """The embed's element: the front end mounts the workspace on it; without scripts it
    says how to do the exercise offline."""
    attributes = {
        "class": "practice-embed",
        "data-problem": embed.slug,
        "data-kind": embed.kind,
        "data-tier": embed.tier,
        "data-dist": dist_url,
        "data-lang": lang,
        "data-platform": "" if embed.offline else platform_url,
    }
    said = " ".join(f'{name}="{html.escape(value)}"' for name, value in attributes.items())
    # The file `python practice/judge.py init <slug>` writes the starter to.
    command = f"python practice/judge.py run {embed.slug} {embed.slug.replace('-', '_')}.py"
    text = {
        "zh": "这里是一道练习题，需要 JavaScript 才能在页面里运行；也可以在本地判题：",
        "en": "An exercise runs here with JavaScript; you can also judge it locally:",
    }[lang]
    return (
        f"<div {said}>"
        f'<p class="practice-fallback">{html.escape(text)} <code>{html.escape(command)}</code></p>'
        "</div>"
    )
