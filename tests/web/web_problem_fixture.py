"""Tiny problem folders written by the tests, so the web suite does not depend on problems/."""

from __future__ import annotations

from pathlib import Path

# Strings that only exist in server-side files; no response or bundle may contain them.
REFERENCE_MARKER = "REFERENCE_ONLY_3f9c1a"
WRONG_MARKER = "WRONG_SOLUTION_ONLY_8b2d"

CASES = """
def public_cases():
    return [
        {"name": "small", "args": {"a": 1, "b": 2}},
        {"name": "negative", "args": {"a": -5, "b": 3}},
    ]


def generated_cases(rng):
    return [
        {"name": f"random-{i}", "args": {"a": rng.randint(-999, 999), "b": rng.randint(-999, 999)}}
        for i in range(3)
    ]


def run(sub, args):
    return sub.add(args["a"], args["b"])
"""


def write_problem(
    root: Path,
    slug: str,
    *,
    order: int = 1,
    chapter: str = "basics",
    reference: str | None = None,
    tier: str = "browser",
) -> Path:
    folder = root / slug
    (folder / "solutions" / "wrong").mkdir(parents=True)
    (folder / "problem.toml").write_text(
        f'slug = "{slug}"\norder = {order}\nchapter = "{chapter}"\ntier = "{tier}"\n'
        'points = 100\ntags = ["arith", "warm-up"]\n\n'
        f'[title]\nzh = "两数相加 {slug}"\nen = "Add two numbers {slug}"\n\n'
        "[limits]\ntime_per_case_s = 2.0\ntotal_time_s = 10.0\nmemory_mb = 256\n\n"
        '[submission]\nnames = ["add"]\n\n[checker]\nkind = "value"\n',
        encoding="utf-8",
    )
    (folder / "statement.en.md").write_text(
        "# Add\n\nReturn $a_b + c_d$ for *two* numbers.\n\n<script>alert(1)</script>\n",
        encoding="utf-8",
    )
    (folder / "statement.zh.md").write_text("# 相加\n\n返回 $a+b$。\n", encoding="utf-8")
    (folder / "starter.py").write_text(
        "def add(a, b):\n    raise NotImplementedError\n", encoding="utf-8"
    )
    (folder / "reference.py").write_text(
        reference or f"def add(a, b):\n    # {REFERENCE_MARKER}\n    return a + b\n",
        encoding="utf-8",
    )
    (folder / "cases.py").write_text(CASES, encoding="utf-8")
    (folder / "solutions" / "wrong" / "off_by_one.py").write_text(
        f"# expect: WA\n# {WRONG_MARKER}\ndef add(a, b):\n    return a + b + 1\n",
        encoding="utf-8",
    )
    return folder


GOOD = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a - b\n"
SYNTAX_ERROR = "def add(a, b)\n    return a + b\n"
