"""A throwaway quiz folder with one question of each type, for tests to bend."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from problem_factory import write_files

QUIZ_TOML = """\
slug = "{slug}"
kind = "quiz"
order = 0
chapter = "test"
tier = "browser"
points = 30
tags = ["test"]

[title]
zh = "小测"
en = "A quiz"
"""

QUESTIONS = """\
[[question]]
id = "sum"
type = "number"
unit = "tokens"
prompt.zh = "1 + 2 等于几？"
prompt.en = "What is 1 + 2?"

[[question]]
id = "pick"
type = "choice"
prompt.zh = "哪个是偶数？"
prompt.en = "Which is even?"
options = [{ id = "one", zh = "一", en = "one" }, { id = "two", zh = "二", en = "two" }]

[[question]]
id = "picks"
type = "choices"
prompt.zh = "哪些是质数？"
prompt.en = "Which are prime?"
options = [
  { id = "two", zh = "二", en = "two" },
  { id = "three", zh = "三", en = "three" },
  { id = "four", zh = "四", en = "four" },
]

[[question]]
id = "formula"
type = "expression"
variables = ["n", "p"]
prompt.zh = "求和"
prompt.en = "The sum"
public_points = [{ n = 1, p = 5 }, { n = 3, p = 2 }]
"""

ANSWERS = """\
[sum]
answer = 3
rel_tol = 0
explanation.zh = "一加二得三。"
explanation.en = "One and two make three."

[pick]
answer = "two"
explanation.zh = "二能被二整除。"
explanation.en = "Two divides by two."

[picks]
answer = ["two", "three"]
explanation.zh = "二和三只有两个因数。"
explanation.en = "Two and three have two divisors each."

[formula]
answer = "n * p + n * (n - 1) / 2"
points = [{ n = 1000, p = 100 }]
draw = { count = 5, n = [1, 5000], p = [1, 5000] }
explanation.zh = "逐步相加。"
explanation.en = "Add up the steps."
"""

RIGHT = {"sum": 3, "pick": "two", "picks": ["three", "two"], "formula": "n*p + n*(n-1)//2"}

QUIZ_FILES = {
    "statement.zh.md": "# 小测\n",
    "statement.en.md": "# A quiz\n",
    "questions.toml": QUESTIONS,
    "answers.toml": ANSWERS,
    "solutions/wrong/bad-sum.json": json.dumps(
        {"_expect": "WA at case sum", **RIGHT, "sum": 4}, indent=2
    ),
    "solutions/wrong/bad-formula.json": json.dumps(
        {"_expect": "WA at case formula", **RIGHT, "formula": "n * n / 2"}, indent=2
    ),
}

MakeQuiz = Callable[..., Path]


def write_quiz(root: Path, files: dict[str, str | None] | None = None, slug: str = "quiz") -> Path:
    """The quiz folder under `root`; `files` overrides or adds files (None deletes one)."""
    folder = root / slug
    merged: dict[str, str | None] = {"problem.toml": QUIZ_TOML.format(slug=slug), **QUIZ_FILES}
    merged |= files or {}
    return write_files(folder, merged)
