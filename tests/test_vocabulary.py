"""Verdicts and submission statuses are spelled as enum members, never as bare strings.

Read from the sources with ast (nothing is imported): any string constant in judge/,
runner/, web/ or the entry point that equals a verdict name ("AC", "WA", ...) or a
submission status ("queued", "running", "done") is a finding, outside the enums' own
modules, docstrings and the few places listed below with the reason. Pins issue 14: the
same fixed sets travelled as strings in about twenty places, so mypy could not find a
missing case.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("judge", "runner", "web")
VERDICTS = {"AC", "WA", "TLE", "MLE", "OLE", "RE", "CE", "IE"}
STATUSES = {"queued", "running", "done"}
ENUM_MODULES = {"judge/verdict.py", "web/store/status.py"}
# (file, literal): why that literal is not a verdict or a status.
ALLOWED = {
    ("runner/worker.py", "done"): "a field of the worker's message to the runner",
    ("runner/job.py", "done"): "reads that field",
    ("web/attempts/submissions.py", "done"): "the progress field's cases done so far, not a status",
    ("judge/run/phase.py", "done"): "the same field, as the judge writes it",
    ("judge/pictures/bar_art.py", "running"): "the scheduler problem's list of running requests",
}


def _sources() -> list[Path]:
    files = [REPO / "practice_judge.py"]
    for package in PACKAGES:
        files += sorted((REPO / package).rglob("*.py"))
    return [f for f in files if "migrations" not in f.parts and "node_modules" not in f.parts]


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _i18n_texts(tree: ast.AST) -> set[int]:
    """Translations ({"en": "done", "zh": ...}) are words for people, not states."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            if set(keys) >= {"en", "zh"}:
                found.update(id(v) for v in node.values)
    return found


def findings_in(rel: str, text: str) -> list[str]:
    """The bare verdicts and statuses in one source file (`rel` as in ENUM_MODULES)."""
    if rel in ENUM_MODULES:
        return []
    tree = ast.parse(text, filename=rel)
    skip = _docstrings(tree) | _i18n_texts(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            continue
        if id(node) in skip or (rel, node.value) in ALLOWED:
            continue
        if node.value in VERDICTS or node.value in STATUSES:
            found.append(f"{rel}:{node.lineno}: {node.value!r}")
    return found


def test_no_verdict_or_status_is_spelled_as_a_string_outside_its_enum() -> None:
    found = []
    for path in _sources():
        rel = path.relative_to(REPO).as_posix()
        found += findings_in(rel, path.read_text(encoding="utf-8"))
    assert found == []


def test_the_scan_finds_bare_literals_but_not_docstrings_or_translations() -> None:
    source = (
        '"""A docstring that says AC."""\n'
        'if report.verdict == "AC":\n'
        '    STATE = "queued"\n'
        'WORDS = {"en": "done", "zh": "已完成"}\n'
    )
    assert findings_in("web/example.py", source) == [
        "web/example.py:2: 'AC'",
        "web/example.py:3: 'queued'",
    ]
    assert findings_in("judge/verdict.py", source) == []
