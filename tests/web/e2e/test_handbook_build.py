"""`mkdocs build` with the practice plugin (handbook/plugin.py): with mkdocs-material and
with MkDocs' own theme, everything the embeds load is in the site and nothing hidden is;
a bad marker, or a page quoting what the platform hides, fails the build with one line
naming the page and the marker."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import PROBLEMS

REFERENCE_LINE = next(
    line.strip()
    for line in (PROBLEMS / "kv-capacity" / "reference.py").read_text("utf-8").splitlines()
    if "latency_ms" in line
)


def build(
    tmp_path: Path,
    page: str,
    theme: object = "mkdocs",
    extensions: tuple[str, ...] = (),
    **plugin: object,
) -> subprocess.CompletedProcess[str]:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "index.md").write_text("# Home\n", "utf-8")
    (docs / "chapter.md").write_text(page, "utf-8")
    config = {
        "site_name": "test",
        "docs_dir": "docs",
        "site_dir": "site",
        "theme": theme,
        "plugins": [{"practice": plugin}],
        "markdown_extensions": list(extensions),
    }
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), "utf-8")
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q"],
        cwd=tmp_path,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )


def error_lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stderr.splitlines() if "practice:" in line]


@pytest.mark.parametrize(
    "theme", ["mkdocs", {"name": "material", "language": "zh", "font": False}], ids=str
)
def test_a_site_of_either_theme_holds_the_embeds_and_what_they_load(
    dist: Path, tmp_path: Path, theme: object
) -> None:
    done = build(tmp_path, "# Chapter\n\n```practice\nkv-capacity\n```\n", theme)
    assert done.returncode == 0, done.stderr
    site = tmp_path / "site"
    html = (site / "chapter" / "index.html").read_text("utf-8")
    assert '<div class="practice-embed" data-problem="kv-capacity"' in html
    assert 'data-dist="../practice/"' in html
    assert '<script type="module" src="../practice/embed.js"></script>' in html
    want_lang = "zh" if isinstance(theme, dict) else "en"
    assert f'data-lang="{want_lang}"' in html
    assets = site / "practice"
    for name in ("embed.js", "embed.css", "worker.js", "judge.zip", "problems/kv-capacity.json"):
        assert (assets / name).is_file(), name
    assert (assets / "pyodide" / "pyodide.asm.wasm").is_file()
    # Only the embedded problem's bundle, and no other page links the embed's script.
    assert sorted(p.name for p in (assets / "problems").iterdir()) == ["kv-capacity.json"]
    assert "embed.js" not in (site / "index.html").read_text("utf-8")
    assert not list(assets.rglob("*.map"))  # the themes ship their own; ours stay out


@pytest.mark.parametrize(
    ("marker", "said"),
    [
        ("no-such-problem", "no such problem"),
        ("kv-cache", "a torch-tier problem cannot run in the browser"),
        ("Not A Slug", "is not a problem's slug"),
    ],
)
def test_a_bad_marker_fails_the_build_in_one_line_naming_the_page_and_marker(
    dist: Path, tmp_path: Path, marker: str, said: str
) -> None:
    done = build(tmp_path, f"# Chapter\n\nText.\n\n```practice\n{marker}\n```\n")
    assert done.returncode != 0
    (line,) = error_lines(done)
    assert "practice: chapter.md, line 5: " in line and said in line, done.stderr


def test_an_unpublished_problem_fails_the_build(dist: Path, tmp_path: Path) -> None:
    """A problem folder the front-end build did not publish (hidden from every page)."""
    problems = tmp_path / "problems"
    (problems / "draft-problem").mkdir(parents=True)
    (problems / "draft-problem" / "problem.toml").write_text('slug = "draft-problem"\n', "utf-8")
    done = build(tmp_path, "```practice\ndraft-problem\n```\n", problems=str(problems))
    assert done.returncode != 0
    (line,) = error_lines(done)
    assert "draft-problem" in line and "not published in the front-end build" in line


def test_a_page_quoting_a_reference_fails_the_build_unless_the_author_opts_in(
    dist: Path, tmp_path: Path
) -> None:
    page = f"```practice\nkv-capacity\n```\n\n## Answer\n\n    {REFERENCE_LINE}\n"
    done = build(tmp_path, page)
    assert done.returncode != 0
    (line,) = error_lines(done)
    assert "chapter/index.html holds a line of kv-capacity/reference.py" in line
    assert build(tmp_path, page, pages_may_quote_answers=True).returncode == 0


def test_a_platform_url_that_is_not_an_origin_fails_the_build(dist: Path, tmp_path: Path) -> None:
    done = build(tmp_path, "# Chapter\n", platform_url="javascript:alert(1)")
    assert done.returncode != 0
    (line,) = error_lines(done)
    assert "platform_url must be an origin like https://host[:port]" in line


def test_a_platform_that_cannot_be_read_fails_the_build(dist: Path, tmp_path: Path) -> None:
    """Its public index says what it hides; a site is not built blind to it."""
    done = build(tmp_path, "# Chapter\n", platform_url="http://127.0.0.1:9")
    assert done.returncode != 0
    (line,) = error_lines(done)
    assert "could not read the platform's problems at http://127.0.0.1:9/static/dist" in line


KV_CAPACITY = PROBLEMS / "kv-capacity"


def test_a_reference_quoted_in_highlighted_code_fails_the_build(dist: Path, tmp_path: Path) -> None:
    """Pygments splits each line into spans: the page's text is compared, not its HTML."""
    code = "\n".join(
        line
        for line in (KV_CAPACITY / "reference.py").read_text("utf-8").splitlines()
        if not line.lstrip().startswith("#")
    )
    page = f"```practice\nkv-capacity\n```\n\n```python\n{code}\n```\n"
    theme = {"name": "material", "font": False}
    extensions = ("pymdownx.highlight", "pymdownx.superfences")
    done = build(tmp_path, page, theme, extensions)
    assert done.returncode != 0, "a highlighted reference was published"
    (line,) = error_lines(done)
    assert "chapter/index.html holds a line of kv-capacity/reference.py" in line


def test_an_editorial_quoted_in_a_page_fails_the_build(dist: Path, tmp_path: Path) -> None:
    """Its Markdown (bold, code, math) is rendered into tags: compared without them."""
    editorial = (KV_CAPACITY / "editorial.en.md").read_text("utf-8")
    done = build(tmp_path, f"```practice\nkv-capacity\n```\n\n{editorial}\n")
    assert done.returncode != 0, "an editorial was published"
    (line,) = error_lines(done)
    assert "holds a line of kv-capacity/editorial.en.md" in line
