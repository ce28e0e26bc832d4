"""The landing page at `/` above the problem list, the list's difficulty, solved-by and
acceptance columns (one query over the submissions), and the tier legend."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient
from web_helpers import make_config, make_user, state

from web import create_app
from web.boards.leaderboard import ProblemStats, problem_stats
from web.content import handbook
from web.store.db import transaction
from web.store.models import Submission, User

T0 = datetime(2026, 11, 1, 12, 0, 0)


def store(app: Flask, username: str, verdict: str | None, slug: str = "add-two") -> None:
    """A submission as a worker leaves it: judged with `verdict`, or still queued (None)."""
    with transaction(state(app).sessions) as db:
        user = db.query(User).filter_by(username=username).one()
        db.add(
            Submission(
                user_id=user.id,
                problem_slug=slug,
                code="pass",
                status="done" if verdict else "queued",
                verdict=verdict,
                points=100 if verdict == "AC" else 0,
                created_at=T0 + timedelta(minutes=1),
            )
        )


def stats(app: Flask) -> dict[str, ProblemStats]:
    with transaction(state(app).sessions) as db:
        return problem_stats(db)


def test_stats_count_distinct_solvers_and_accepted_over_judged(
    app: Flask, client: FlaskClient
) -> None:
    make_user(client, "ada"), make_user(client, "bob")
    for who, verdict in [("ada", "WA"), ("ada", "AC"), ("ada", "AC"), ("bob", "WA")]:
        store(app, who, verdict)
    store(app, "bob", "TLE", slug="add-more")
    assert stats(app) == {
        "add-two": ProblemStats(solved=1, accepted=2, judged=4),
        "add-more": ProblemStats(solved=0, accepted=0, judged=1),
    }
    assert stats(app)["add-two"].acceptance == 0.5


def test_stats_leave_out_queued_submissions_and_the_judges_own_failures(
    app: Flask, client: FlaskClient
) -> None:
    make_user(client, "ada")
    store(app, "ada", None)
    store(app, "ada", "IE")
    assert stats(app) == {}
    store(app, "ada", "AC")
    assert stats(app) == {"add-two": ProblemStats(solved=1, accepted=1, judged=1)}


def test_the_list_shows_solved_by_and_acceptance_per_problem(
    app: Flask, client: FlaskClient
) -> None:
    make_user(client, "ada"), make_user(client, "bob")
    for who, verdict in [("ada", "AC"), ("bob", "WA"), ("bob", "WA"), ("bob", "AC")]:
        store(app, who, verdict)
    html = client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    row = re.search(r'<tr data-slug="add-two">(.*?)</tr>', html, re.S)
    assert row is not None
    assert '<td class="solved-count">2</td>' in row.group(1)
    assert '<td class="acceptance">50%</td>' in row.group(1)
    other = re.search(r'<tr data-slug="add-more">(.*?)</tr>', html, re.S)
    assert other is not None and '<td class="acceptance">–</td>' in other.group(1)


def test_the_landing_page_starts_with_the_first_problem_and_the_chapters_sections(
    client: FlaskClient,
) -> None:
    for lang, heading in (("en", "The chapter, section by section"), ("zh", "本章各节")):
        client.get(f"/lang/{lang}")
        html = client.get("/").get_data(as_text=True)
        assert f"<h2>{heading}</h2>" in html
        assert 'id="start-link" href="/problems/add-two"' in html
        for section in handbook.SECTIONS:
            assert f'id="{section.anchor}"' in html and section.title[lang] in html
        # The list stays at `/` below the landing content: every old link still lands on it.
        assert html.index('id="landing"') < html.index('class="problem-list"')


def test_the_tier_column_is_explained_in_both_languages(client: FlaskClient) -> None:
    client.get("/lang/zh")
    zh = client.get("/").get_data(as_text=True)
    assert "浏览器题只用标准库，直接在你的浏览器里运行" in zh
    client.get("/lang/en")
    en = client.get("/").get_data(as_text=True)
    assert "torch problems need PyTorch, so Run and Submit go to the server" in en
    assert 'title="runs in your browser (standard library only)"' in en


def test_every_real_problem_names_a_section_the_chapter_has() -> None:
    """A problem page links to its section; an id the chapter lacks would link nowhere."""
    from pathlib import Path

    from judge.problem.problemset import ProblemSet

    root = Path(__file__).resolve().parents[2] / "problems"
    unknown = {
        p.slug: p.section for p in ProblemSet(root).all() if handbook.section_of(p.section) is None
    }
    assert unknown == {}


def test_the_real_capstone_is_the_chapters_last_step_with_its_four_stages(
    tmp_path: Path, db_template: Path
) -> None:
    """Issue 25: the landing page names serve-engine (tagged `capstone`) after the sections,
    then its four stages in order, each linking to its own judged problem (the problems
    tagged `capstone`, serve-engine the last), in both languages; the list also has it last."""
    root = Path(__file__).resolve().parents[2] / "problems"
    app = create_app(make_config(tmp_path, db_template, root, start_workers=False))
    stages = ["serve-static", "serve-continuous", "serve-paged", "serve-engine"]
    try:
        client = app.test_client()
        for lang, lead, first, last in (
            (
                "en",
                "The chapter&#39;s last step puts it all together",
                "static batching: admit a batch when nothing runs",
                "prefix sharing: full prompt",
            ),
            (
                "zh",
                "本章的最后一步，把这些合成一个你自己的推理引擎",
                "静态批处理：没有请求在运行时接纳一批",
                "前缀共享：提示词的完整块",
            ),
        ):
            client.get(f"/lang/{lang}")
            html = client.get("/").get_data(as_text=True)
            capstone = html.index('id="capstone"')
            assert lead in html[capstone:]
            assert '<a href="/problems/serve-engine">' in html[capstone:]
            assert html.index('class="chapter-sections"') < capstone < html.index('id="problems"')
            listed = html[html.index('class="capstone-stages"') : html.index('id="problems"')]
            items = re.findall(r'<li data-slug="([^"]+)"><a href="/problems/([^"]+)">', listed)
            assert items == [(slug, slug) for slug in stages]
            assert listed.index(first) < listed.index(last)
            slugs = re.findall(r'<tr data-slug="([^"]+)"', html)
            assert slugs[-1] == "serve-engine"
            assert [s for s in slugs if s in stages] == stages
    finally:
        state(app).close()


def test_the_chapters_own_two_exercises_are_marked_and_the_offline_command_is_the_handbooks(
    tmp_path: Path, db_template: Path
) -> None:
    """本章练习题（2 道）: tokens-processed and kv-capacity, named on the landing page, in
    the list and on their pages; the command is the one the handbook gives its readers."""
    root = Path(__file__).resolve().parents[2] / "problems"
    app = create_app(make_config(tmp_path, db_template, root, start_workers=False))
    try:
        client = app.test_client()
        for lang, lead, badge in (
            ("en", "The chapter&#39;s own exercises (2):", "Chapter exercise {n}"),
            ("zh", "本章练习题（2 道）：", "本章练习 {n}"),
        ):
            client.get(f"/lang/{lang}")
            html = client.get("/").get_data(as_text=True)
            assert "python practice/judge.py run" in html and "python judge.py" not in html
            line = html[html.index('id="chapter-exercises"') : html.index('class="start"')]
            assert lead in line
            marked = re.findall(r'href="/problems/([^"]+)" data-exercise="(\d)"', line)
            assert marked == [("tokens-processed", "1"), ("kv-capacity", "2")]
            for slug, n in marked:
                row = html[html.index(f'<tr data-slug="{slug}"') :].split("</tr>")[0]
                assert badge.format(n=n) in row
                page = client.get(f"/problems/{slug}").get_data(as_text=True)
                assert f'<span class="tag exercise-badge">{badge.format(n=n)}</span>' in page
            others = re.findall(
                r'<tr data-slug="([^"]+)"[^>]*>(?:(?!</tr>).)*exercise-badge', html, re.S
            )
            assert sorted(others) == ["kv-capacity", "tokens-processed"]
    finally:
        state(app).close()
