"""GET /api/problems, GET /api/problems/<slug>, GET /api/problems/<slug>/starter."""

from __future__ import annotations

from flask.testing import FlaskClient
from test_web_api_accounts import error_of


def test_problem_list_is_in_chapter_order_with_metadata(client: FlaskClient) -> None:
    problems = client.get("/api/problems").json["problems"]
    assert [p["slug"] for p in problems] == ["add-two", "add-more"]
    first = problems[0]
    assert first["title"]["zh"].startswith("两数相加")
    assert (first["tier"], first["chapter"], first["order"], first["points"]) == (
        "browser",
        "basics",
        1,
        100,
    )
    assert first["tags"] == ["arith", "warm-up"]
    assert first["limits"] == {"time_per_case_s": 2.0, "total_time_s": 10.0, "memory_mb": 256}
    assert first["progress"] is None and first["hidden"] is False
    assert len(first["version"]) == 16


def test_problem_detail_has_both_statements_and_the_starter(client: FlaskClient) -> None:
    problem = client.get("/api/problems/add-two").json
    assert problem["statement"]["en"].startswith("# Add")
    assert problem["statement"]["zh"].startswith("# 相加")
    assert "raise NotImplementedError" in problem["starter"]
    assert problem["bundle_url"] == "/static/dist/problems/add-two.json"
    assert "reference" not in problem and "cases" not in problem


def test_starter_is_served_as_python_text(client: FlaskClient) -> None:
    response = client.get("/api/problems/add-two/starter")
    assert response.mimetype == "text/x-python"
    assert response.get_data(as_text=True).startswith("def add(a, b):")


def test_unknown_problem_is_404_everywhere(client: FlaskClient) -> None:
    for url in ("/api/problems/nope", "/api/problems/nope/starter", "/api/leaderboard/nope"):
        response = client.get(url)
        assert response.status_code == 404, url
        assert error_of(response)["code"] == "unknown_problem"
