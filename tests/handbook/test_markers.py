"""The marker an author writes, and what the plugin makes of it (handbook/marker.py and
handbook/embed.py), checked without building a site."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from handbook.embed import Published, check_marker, element
from handbook.marker import MarkerError, find_markers, replace_markers

PAGE = """# A chapter

Some text.

```practice
tokens-processed
```

More text, and a fence of another language:

```python
print("not a marker")
```

~~~~practice
kv-cache offline
~~~~
"""


def published(tmp_path: Path) -> Published:
    """A front-end build of three problems, and a problems folder with one more."""
    dist, problems = tmp_path / "dist", tmp_path / "problems"
    (dist / "problems").mkdir(parents=True)
    (dist / "embed.js").write_text("", "utf-8")
    tiers = {"tokens-processed": ("code", "browser"), "kv-cache": ("code", "torch")}
    tiers["self-test"] = ("quiz", "browser")
    for slug, (kind, tier) in tiers.items():
        summary = {"slug": slug, "kind": kind, "tier": tier}
        (dist / "problems" / f"{slug}.json").write_text(json.dumps({"problem": summary}), "utf-8")
        (problems / slug).mkdir(parents=True)
        (problems / slug / "problem.toml").write_text("", "utf-8")
    index = {slug: "v1" for slug in tiers}
    (dist / "problems" / "index.json").write_text(json.dumps(index), "utf-8")
    (problems / "unreleased").mkdir()
    (problems / "unreleased" / "problem.toml").write_text("", "utf-8")
    return Published.read(dist, problems)


def test_markers_are_found_in_order_with_their_lines_and_flags() -> None:
    markers = find_markers(PAGE)
    assert [(m.slug, m.line, m.offline) for m in markers] == [
        ("tokens-processed", 5, False),
        ("kv-cache", 15, True),
    ]


def test_each_marker_is_replaced_by_its_element_and_the_rest_kept() -> None:
    markers = find_markers(PAGE)
    out = replace_markers(PAGE, markers, ["<div>one</div>", "<div>two</div>"])
    assert "```practice" not in out and "~~~~practice" not in out
    assert out.index("<div>one</div>") < out.index("not a marker") < out.index("<div>two</div>")
    assert "\n\n<div>one</div>\n\n" in out  # a raw HTML block of its own


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("", "line 1: a ```practice``` block names no problem"),
        ("Tokens_Processed", "line 1: 'Tokens_Processed' is not a problem's slug"),
        ("tokens-processed quickly", "after the slug only offline may follow"),
    ],
)
def test_a_marker_that_does_not_parse_is_refused_naming_its_line(body: str, said: str) -> None:
    with pytest.raises(MarkerError) as refused:
        find_markers(f"```practice\n{body}\n```\n")
    assert said in str(refused.value)


@pytest.mark.parametrize(
    ("marker", "platform", "said"),
    [
        ("no-such-problem", "", "no such problem"),
        ("unreleased", "", "not published in the front-end build"),
        (
            "kv-cache",
            "",
            "a torch-tier problem cannot run in the browser; set the plugin's platform_url",
        ),
        ("tokens-processed offline", "", "`offline` is for torch-tier problems only"),
    ],
)
def test_a_marker_that_cannot_be_an_embed_says_why(
    tmp_path: Path, marker: str, platform: str, said: str
) -> None:
    (found,) = find_markers(f"```practice\n{marker}\n```\n")
    with pytest.raises(MarkerError) as refused:
        check_marker(found, published(tmp_path), platform)
    assert said in str(refused.value)
    assert str(refused.value).startswith(f"line 1: ```practice {found.slug}```")


def test_a_torch_problem_embeds_with_a_platform_or_offline(tmp_path: Path) -> None:
    known = published(tmp_path)
    (online,) = find_markers("```practice\nkv-cache\n```\n")
    assert check_marker(online, known, "https://practice.example.org").tier == "torch"
    (offline,) = find_markers("```practice\nkv-cache offline\n```\n")
    embed = check_marker(offline, known, "https://practice.example.org")
    html = element(embed, "../practice/", "en", "https://practice.example.org")
    assert 'data-platform=""' in html  # offline: no Submit, the command instead
    assert "python practice/judge.py run kv-cache kv_cache.py" in html


def test_the_element_carries_the_stable_hooks_and_escapes_what_it_says(tmp_path: Path) -> None:
    (marker,) = find_markers("```practice\nself-test\n```\n")
    embed = check_marker(marker, published(tmp_path), "")
    html = element(embed, '../"practice"/', "zh", "")
    assert html.startswith('<div class="practice-embed" data-problem="self-test" data-kind="quiz"')
    assert 'data-dist="../&quot;practice&quot;/"' in html
    assert 'data-lang="zh"' in html and "本地判题" in html


def test_a_folder_without_the_embed_build_is_refused_with_what_to_run(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="run `make frontend` first"):
        Published.read(tmp_path, tmp_path)


def test_a_problem_the_platform_hides_may_not_be_embedded(tmp_path: Path) -> None:
    """The platform's public index leaves out what its admins hid (web/pages/bundles.py)."""
    known = published(tmp_path).with_platform({"tokens-processed": "v1"})
    (shown,) = find_markers("```practice\ntokens-processed\n```\n")
    assert check_marker(shown, known, "https://practice.example.org").slug == "tokens-processed"
    (hidden,) = find_markers("```practice\nself-test\n```\n")
    with pytest.raises(MarkerError, match="the platform hides this problem"):
        check_marker(hidden, known, "https://practice.example.org")


def test_a_marker_shown_inside_another_fence_is_that_fences_text() -> None:
    page = "Write this:\n\n````markdown\n```practice\nkv-capacity\n```\n````\n\n```practice\nself-test\n```\n"
    markers = find_markers(page)
    assert [(m.slug, m.line) for m in markers] == [("self-test", 9)]
    out = replace_markers(page, markers, ["<div>quiz</div>"])
    assert "````markdown\n```practice\nkv-capacity\n```\n````" in out
    assert out.rstrip().endswith("<div>quiz</div>")


def test_an_unclosed_fence_runs_to_the_end_of_the_page() -> None:
    (marker,) = find_markers("# Page\n\n```practice\ntokens-processed\n")
    assert (marker.slug, marker.line) == ("tokens-processed", 3)
