"""Every browser-tier problem works through the real page: its reference passes the
public cases in Pyodide and its starter does not."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from .conftest import PROBLEMS
from .pages import RUN, open_problem, reference_source, replace_code, shoot, wait_until_python_ready
from .secrets import problem_dirs

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def browser_tier_slugs() -> list[str]:
    slugs = []
    for folder in problem_dirs(PROBLEMS):
        spec = tomllib.loads((folder / "problem.toml").read_text("utf-8"))
        if spec.get("tier") == "browser" and spec.get("kind", "code") == "code":  # quizzes:
            # test_quiz.py (a form, not the editor)
            slugs.append(folder.name)
    return slugs


def test_each_reference_is_accepted_and_each_starter_is_not(page: Any) -> None:
    slugs = browser_tier_slugs()
    assert slugs
    for slug in slugs:
        open_problem(page, slug)  # the same context: later opens restore the snapshot
        wait_until_python_ready(page)
        page.click(RUN)
        starter = page.wait_for_selector(".report")
        assert starter.get_attribute("data-verdict") not in ("AC", "IE"), slug
        replace_code(page, reference_source(slug))
        page.click(RUN)
        page.wait_for_selector(".report[data-verdict=AC]")
        shoot(page, f"problem-{slug}")
