"""The /submissions list (issue 23, section 8): its problem filter takes a title as well as
a slug, and its words (the filter's button, the times) are in the page's language."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import GOOD
from web_helpers import make_user, state, submit, wait_judged

# What it asserts rests on the database (stored rows, SQL, concurrent writes): it runs
# on PostgreSQL too in `make test` (docs/TESTING.md).
pytestmark = pytest.mark.database

ZH = {"Accept-Language": "zh-CN"}
EN = {"Accept-Language": "en"}


def listed_ids(html: str) -> set[int]:
    return {int(found) for found in re.findall(r'<tr data-id="(\d+)"', html)}


def submitted_to_two_problems(app: Flask, client: FlaskClient) -> tuple[int, int]:
    ada = make_user(client, "ada")
    first = submit(client, ada, GOOD, "add-two")
    second = submit(client, ada, GOOD, "add-more")
    wait_judged(app)
    return first, second


def test_the_problem_filter_finds_a_problem_by_its_title_in_either_language(
    app: Flask, client: FlaskClient
) -> None:
    add_two, add_more = submitted_to_two_problems(app, client)
    for typed in (
        "add-more",
        "Add two numbers add-more",
        "add TWO numbers ADD-MORE ",
        "两数相加 add-more",
    ):
        html = client.get("/submissions", query_string={"problem": typed}, headers=EN)
        assert listed_ids(html.get_data(as_text=True)) == {add_more}, typed
    # A piece of a title that one problem's title holds names it too.
    html = client.get("/submissions", query_string={"problem": "numbers add-t"}, headers=EN)
    assert listed_ids(html.get_data(as_text=True)) == {add_two}


def test_the_problem_filter_names_nothing_with_text_that_fits_several_titles_or_none(
    app: Flask, client: FlaskClient
) -> None:
    submitted_to_two_problems(app, client)
    for typed in ("Add two numbers", "no such problem"):
        html = client.get("/submissions", query_string={"problem": typed}, headers=EN)
        assert listed_ids(html.get_data(as_text=True)) == set(), typed


def test_the_api_filters_by_title_as_the_page_does(app: Flask, client: FlaskClient) -> None:
    _, add_more = submitted_to_two_problems(app, client)
    listed = client.get("/api/submissions", query_string={"problem": "两数相加 add-more"})
    assert [row["id"] for row in listed.json["submissions"]] == [add_more]


def test_the_chinese_list_says_its_button_and_its_times_in_chinese(
    app: Flask, client: FlaskClient
) -> None:
    submitted_to_two_problems(app, client)
    zh = client.get("/submissions", headers=ZH).get_data(as_text=True)
    assert '<button type="submit">筛选</button>' in zh
    assert ">OK<" not in zh
    assert re.search(r'<td class="time" title="[^"]+">\d+ 毫秒</td>', zh)
    assert not re.search(r">\d+ ms</td>", zh)
    en = client.get("/submissions", headers=EN).get_data(as_text=True)
    assert '<button type="submit">Filter</button>' in en
    assert re.search(r'<td class="time" title="[^"]+">\d+ ms</td>', en)


def test_the_list_names_each_problem_by_its_title_and_a_long_run_in_seconds(
    app: Flask, client: FlaskClient
) -> None:
    from sqlalchemy import update

    from web.store.models import Submission

    first, _ = submitted_to_two_problems(app, client)
    with state(app).sessions() as db:
        db.execute(update(Submission).where(Submission.id == first).values(time_ms=22000.0))
        db.commit()
    for headers, title, took in (
        (ZH, "两数相加 add-two", "22.0 秒"),
        (EN, "Add two numbers add-two", "22.0 s"),
    ):
        html = client.get("/submissions", headers=headers).get_data(as_text=True)
        row = html[html.index(f'<tr data-id="{first}"') :].split("</tr>")[0]
        assert f'data-slug="add-two">{title}</a>' in row
        assert f">{took}</td>" in row and "22000" not in row


def test_a_problem_page_says_its_points_as_a_unit(client: FlaskClient) -> None:
    zh = client.get("/problems/add-two", headers=ZH).get_data(as_text=True)
    assert "100 分" in zh and "100 分值" not in zh
    en = client.get("/problems/add-two", headers=EN).get_data(as_text=True)
    assert "100 points" in en
