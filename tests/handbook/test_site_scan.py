"""The built site searched for what must stay hidden (handbook/assets.py): a line is found
however the file says it, escaped in JSON or a script, compressed, or split by markup."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from handbook.assets import SecretInSite, check_site

SECRET = "usable_per_gpu = gpu_mem_gb * GB - weight_bytes"
ORIGIN = "kv-capacity/reference.py"


def site_with(tmp_path: Path, name: str, data: bytes) -> Path:
    site = tmp_path / "site"
    (site / "practice").mkdir(parents=True)
    (site / "practice" / name).write_bytes(data)
    return site


@pytest.mark.parametrize(
    ("name", "data"),
    [
        (
            "page.html",
            b'<span class="n">usable_per_gpu</span> <span class="o">=</span> '
            b'<span class="n">gpu_mem_gb</span> * GB - weight_bytes',
        ),
        ("bundle.json", json.dumps({"x": SECRET}, ensure_ascii=True).encode()),
        ("app.js", SECRET.replace("_", "\\u005f").encode()),
        ("index.json.gz", gzip.compress(json.dumps([SECRET]).encode())),
    ],
    ids=["highlighted", "json", "script-escapes", "gzip"],
)
def test_a_secret_line_is_found_however_the_file_says_it(
    tmp_path: Path, name: str, data: bytes
) -> None:
    with pytest.raises(SecretInSite, match=f"practice/{name} holds a line of {ORIGIN}"):
        check_site(site_with(tmp_path, name, data), {SECRET: ORIGIN}, pages_may_quote=False)


def test_an_answer_keys_line_is_matched_as_written(tmp_path: Path) -> None:
    """`[question-id]` in answers.toml is a public question's id once its brackets go."""
    site = site_with(tmp_path, "quiz.json", json.dumps({"id": "exercise-without-cache"}).encode())
    check_site(site, {"[exercise-without-cache]": "self-test/answers.toml"}, False)


def test_the_authors_pages_may_quote_answers_when_opted_in_but_never_the_embeds(
    tmp_path: Path,
) -> None:
    site = site_with(tmp_path, "bundle.json", b"{}")
    (site / "chapter.html").write_text(f"<pre>{SECRET}</pre>", "utf-8")
    check_site(site, {SECRET: ORIGIN}, pages_may_quote=True)
    with pytest.raises(SecretInSite):
        check_site(site, {SECRET: ORIGIN}, pages_may_quote=False)
    (site / "practice" / "bundle.json").write_text(json.dumps([SECRET]), "utf-8")
    with pytest.raises(SecretInSite):
        check_site(site, {SECRET: ORIGIN}, pages_may_quote=True)


def test_a_file_named_gz_that_is_not_gzip_is_searched_as_it_is(tmp_path: Path) -> None:
    site = site_with(tmp_path, "broken.gz", SECRET.encode())
    with pytest.raises(SecretInSite, match=r"broken\.gz"):
        check_site(site, {SECRET: ORIGIN}, pages_may_quote=False)
