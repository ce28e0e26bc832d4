"""One catalog per side: every sentence a learner reads in two languages is written in
judge/messages.py (the core) or web/i18n.py (the web platform), and the languages are
defined once, as judge.messages.LANGS.

Read from the sources with ast (nothing is imported for the scans): a dict keyed by both
"en" and "zh" whose values are text written in place, a string with Chinese in it, or an
assignment to LANGS anywhere in judge/ or web/ outside those two modules is a finding.
Pins issue 24: the same kind of table had grown in five places, each with its own say().
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from judge.messages import CATALOG, LANGS

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("judge", "web")
CATALOGS = {"judge/messages.py", "web/i18n.py"}
LANGS_HOME = "judge/messages.py"
# Han characters and CJK punctuation (full-width colon, corner quotes, ...).
CHINESE = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
# (file): why it writes Chinese outside a catalog.
ALLOWED = {
    "judge/textcap.py": "the note ending a cut text (both languages in one string) is written "
    "in the child process (judge/run/child.py), which imports textcap at every start: the "
    "catalog there would cost each start its import (about 5 ms, for dataclasses) or run an "
    "import after the submission's code has",
}


def _sources() -> list[Path]:
    files: list[Path] = []
    for package in PACKAGES:
        files += sorted((REPO / package).rglob("*.py"))
    return [f for f in files if "node_modules" not in f.parts]


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (prose about the code, not said)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _written(node: ast.expr | None) -> bool:
    """Text written in place: a literal, an f-string, or literals joined."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    return isinstance(node, ast.BinOp) and (_written(node.left) or _written(node.right))


def findings_in(rel: str, text: str) -> list[str]:
    """The learner-facing tables, Chinese text and LANGS definitions in one source file."""
    tree = ast.parse(text, filename=rel)
    found = []
    docstrings = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and rel != LANGS_HOME:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "LANGS" for t in targets):
                found.append(f"{rel}:{node.lineno}: LANGS defined again")
        if rel in CATALOGS:
            continue
        if isinstance(node, ast.Dict):
            texts = {
                k.value: v
                for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant) and k.value in LANGS
            }
            if texts.keys() == set(LANGS) and any(_written(v) for v in texts.values()):
                found.append(f"{rel}:{node.lineno}: a table in both languages")
        if rel in ALLOWED or id(node) in docstrings:
            continue
        if (
            isinstance(node, ast.Constant)
            and type(node.value) is str
            and CHINESE.search(node.value)
        ):
            found.append(f"{rel}:{node.lineno}: Chinese written in place")
    return found


def test_no_learner_facing_text_is_written_outside_the_catalogs() -> None:
    found = []
    for path in _sources():
        rel = path.relative_to(REPO).as_posix()
        found += findings_in(rel, path.read_text(encoding="utf-8"))
    assert found == []


def test_the_scan_finds_a_table_chinese_and_langs_but_not_data_or_docstrings() -> None:
    """Guards the scan above against passing because it checks nothing."""
    source = (
        '"""A docstring that says 你好."""\n'
        'LABELS = {"head": {"en": "block pool", "zh": "块池"}}\n'
        'NOTE = f"{n} more / 另有 {n} 个"\n'
        'LANGS = ("en", "zh")\n'
        'HINT = {"zh": parsed[0], "en": parsed[1]}\n'
    )
    found = sorted(set(findings_in("judge/pictures/example.py", source)))
    assert found == [
        "judge/pictures/example.py:2: Chinese written in place",
        "judge/pictures/example.py:2: a table in both languages",
        "judge/pictures/example.py:3: Chinese written in place",
        "judge/pictures/example.py:4: LANGS defined again",
    ]


def test_every_key_of_both_catalogs_has_every_language() -> None:
    from web.i18n import MESSAGES

    for name, catalog in (("judge.messages", CATALOG), ("web.i18n", MESSAGES)):
        for key, texts in catalog.items():
            assert set(texts) == set(LANGS), f"{name}: {key}"
            assert all(type(texts[lang]) is str and texts[lang] for lang in LANGS), key
