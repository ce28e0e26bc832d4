"""The tests' synthetic problem folders, written in one place: the judge's "add" problem
that each test can bend out of shape (`make_problem`), and the platform's "add-two" that
the web, cluster and benchmark suites serve (`write_web_problem`)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
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


def write_files(folder: Path, files: Mapping[str, str | None]) -> Path:
    """Each file's text under `folder`, or the file deleted where the text is None: the one
    writer of the tests' problem and quiz folders."""
    for name, text in files.items():
        path = folder / name
        if text is None:
            path.unlink(missing_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def write_add_problem(
    root: Path,
    files: Mapping[str, str | None] | None = None,
    per_case: float = 2.0,
    total: float = 10.0,
    slug: str = "add",
    toml: str | None = None,
) -> Path:
    """The "add" problem (TOML, FILES) as root/slug; `files` overrides or adds files (None
    deletes one). Every text is dedented, so a test may indent the source it passes."""
    merged: dict[str, str | None] = {
        "problem.toml": toml or TOML.format(slug=slug, per_case=per_case, total=total)
    }
    merged |= FILES
    merged |= files or {}
    dedented = {
        name: None if text is None else textwrap.dedent(text) for name, text in merged.items()
    }
    return write_files(root / slug, dedented)


# The platform's problem: arguments by name, 100 points, a title naming the slug, and
# markers that exist only in server-side files (no response or bundle may contain them).
REFERENCE_MARKER = "REFERENCE_ONLY_3f9c1a"
WRONG_MARKER = "WRONG_SOLUTION_ONLY_8b2d"

WEB_CASES = """
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

GOOD = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a - b\n"
SYNTAX_ERROR = "def add(a, b)\n    return a + b\n"


def write_web_problem(
    root: Path,
    slug: str,
    *,
    order: int = 1,
    chapter: str = "basics",
    reference: str | None = None,
    tier: str = "browser",
    devices: tuple[str, ...] = ("cpu",),
) -> Path:
    """The platform's add problem as root/slug (five cases: two public, three generated)."""
    # Only a problem that can run on a GPU names its devices, so every other problem.toml
    # stays as it was.
    listed = ", ".join(f'"{d}"' for d in devices)
    device_line = "" if devices == ("cpu",) else f"devices = [{listed}]\n"
    toml = (
        f'slug = "{slug}"\norder = {order}\nchapter = "{chapter}"\ntier = "{tier}"\n'
        f'{device_line}points = 100\ntags = ["arith", "warm-up"]\n\n'
        f'[title]\nzh = "两数相加 {slug}"\nen = "Add two numbers {slug}"\n\n'
        "[limits]\ntime_per_case_s = 2.0\ntotal_time_s = 10.0\nmemory_mb = 256\n\n"
        '[submission]\nnames = ["add"]\n\n[checker]\nkind = "value"\n'
    )
    files = {
        "problem.toml": toml,
        "statement.en.md": (
            "# Add\n\nReturn $a_b + c_d$ for *two* numbers.\n\n<script>alert(1)</script>\n"
        ),
        "statement.zh.md": "# 相加\n\n返回 $a+b$。\n",
        "starter.py": "def add(a, b):\n    raise NotImplementedError\n",
        "reference.py": reference
        or f"def add(a, b):\n    # {REFERENCE_MARKER}\n    return a + b\n",
        "cases.py": WEB_CASES,
        "solutions/wrong/off_by_one.py": (
            f"# expect: WA\n# {WRONG_MARKER}\ndef add(a, b):\n    return a + b + 1\n"
        ),
    }
    return write_files(root / slug, files)


PACED_TOML = """\
slug = "paced"
order = 1
chapter = "test"
tier = "browser"
points = 10
tags = ["test"]

[title]
zh = "计时"
en = "Paced"

[limits]
time_per_case_s = 10.0
total_time_s = 60.0
memory_mb = 256

[submission]
names = ["total"]

[checker]
kind = "value"

[speed]
unit = "items/s"
"""
PACED_CASES = """\
def public_cases():
    return [{"name": "check", "args": [3, 4]}]


def generated_cases(rng):
    cases = [{"name": "warm-up", "args": [rng.randint(1, 9), 5], "warm_up": True}]
    for i in range(4):
        n = 1000 + rng.randint(0, 99)
        cases.append(
            {"name": f"timed-{i}", "args": [rng.randint(1, 9), n],
             "timed": {"work": n, "min_bytes": 1}}
        )
    return cases


def run(sub, args):
    return sub.total(*args)
"""
# "paced": a speed problem whose reference takes 0.3 s on a timed case: long enough to see whether the submission ran
# meanwhile.
SLOW_REFERENCE = """\
import time


def total(a, n):
    if n >= 1000:
        time.sleep(0.3)
    return a * n
"""
# A thread that notes the longest stretch in which it could not run, said at every case. The
# stretch still open counts too: resumed, the main thread may answer before the watcher has
# been scheduled again.
PACED_WATCHER = """\
import threading
import time

_longest = [0.0]
_last = [time.monotonic()]


def _watch():
    while True:
        now = time.monotonic()
        _longest[0] = max(_longest[0], now - _last[0])
        _last[0] = now
        time.sleep(0.001)


threading.Thread(target=_watch, daemon=True).start()


def total(a, n):
    longest = max(_longest[0], time.monotonic() - _last[0])
    print(f"STOPPED {longest:.3f}", flush=True)
    _longest[0] = 0.0
    return a * n
"""


def write_paced_problem(root: Path) -> Path:
    """The speed problem "paced" (tests of judge/run/pacer.py), written under `root`."""
    return write_add_problem(
        root,
        {"cases.py": PACED_CASES, "reference.py": SLOW_REFERENCE},
        2.0,
        10.0,
        "paced",
        PACED_TOML,
    )
