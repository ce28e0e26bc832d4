"""A throwaway problem folder that each test can bend out of shape."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

TOML = """\
slug = "{slug}"
order = 1
chapter = "test"
tier = "browser"
points = 10
tags = ["test"]

[title]
zh = "加法"
en = "Addition"

[limits]
time_per_case_s = {per_case}
total_time_s = {total}
memory_mb = 128

[submission]
names = ["add"]

[checker]
kind = "value"
"""

CASES = """\
def public_cases():
    return [{"name": "small", "args": [1, 2]}, {"name": "negative", "args": [-5, 3]}]


def generated_cases(rng):
    return [{"name": f"random-{i}", "args": [rng.randint(-99, 99), rng.randint(-99, 99)]}
            for i in range(5)]


def run(sub, args):
    return sub.add(*args)
"""

FILES = {
    "statement.zh.md": "# 加法\n返回 $a + b$。\n",
    "statement.en.md": "# Addition\nReturn $a + b$.\n",
    "starter.py": "def add(a, b):\n    raise NotImplementedError\n",
    "reference.py": "def add(a, b):\n    return a + b\n",
    "cases.py": CASES,
    "solutions/wrong/minus.py": (
        "# expect: WA at case small\n# differs: 1 line\ndef add(a, b):\n    return a - b\n"
    ),
    "solutions/wrong/crash.py": (
        "# expect: RE at case small\n# differs: 1 line\ndef add(a, b):\n    return 1 // 0\n"
    ),
}

MakeProblem = Callable[..., Path]
