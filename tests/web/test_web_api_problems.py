"""GET /api/problems, GET /api/problems/<slug>, GET /api/problems/<slug>/starter."""

from __future__ import annotations

from pathlib import Path

from flask.testing import FlaskClient
from problem_factory import write_web_problem
from test_web_api_accounts import error_of
from web_helpers import make_config, state

from judge.problem.spec import load_problem
from web import create_app


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
    assert first["limits"] == {
        "time_per_case_s": 2.0,
        "total_time_s": 10.0,
        "memory_mb": 256,
        "output_bytes": 1 << 20,
    }
    assert first["progress"] is None and first["hidden"] is False
    assert len(first["version"]) == 16


def test_problem_summary_carries_every_field_of_the_core_summary(
    tmp_path: Path, db_template: Path
) -> None:
    """One summary: the API's is the core's (`judge list --json`, the bundles) plus web state,
    so a field the core adds (difficulty, section, ...) reaches the API without a copy."""
    folder = write_web_problem(tmp_path / "problems", "add-two")
    toml = folder / "problem.toml"
    fields = 'difficulty = "easy"\nsection = "warm-up"\n'
    toml.write_text(fields + toml.read_text(encoding="utf-8"), encoding="utf-8")
    core = load_problem(folder).summary()
    app = create_app(make_config(tmp_path, db_template, folder.parent, start_workers=False))
    try:
        client = app.test_client()
        listed = client.get("/api/problems").json["problems"][0]
        detail = client.get("/api/problems/add-two").json
        for item in (listed, detail):
            assert {key: item[key] for key in core} == core
            assert (item["difficulty"], item["section"], item["devices"]) == (
                "easy",
                "warm-up",
                ["cpu"],
            )
    finally:
        state(app).close()


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
