"""Every starter's comments and docstrings are in English and in Chinese: the starter is
the code the learner opens in the editor, in either language of the UI, and one file with
both is simpler to keep true than a starter per language (the code itself is the same)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from judge.problem.problemset import ProblemSet

CJK = re.compile(r"[\u4e00-\u9fff]")
ENGLISH = re.compile(r"[A-Za-z]{3,}")
STARTERS = sorted(p.path / "starter.py" for p in ProblemSet().all() if p.quiz is None)


def comment_blocks(source: str) -> list[tuple[int, list[str]]]:
    """(first line, texts) of each run of comments on consecutive lines; a comment after
    code on its line is a block of its own."""
    blocks: list[tuple[int, list[str]]] = []
    last_line, alone_before = -2, False
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.COMMENT:
            continue
        line = token.start[0]
        alone = token.line.strip().startswith("#")
        if alone and alone_before and line == last_line + 1:
            blocks[-1][1].append(token.string)
        else:
            blocks.append((line, [token.string]))
        last_line, alone_before = line, alone
    return blocks


def docstrings(source: str) -> list[tuple[int, list[str]]]:
    nodes = [n for n in ast.walk(ast.parse(source)) if isinstance(n, DOCUMENTED)]
    return [
        (getattr(n, "lineno", 1), doc.splitlines())
        for n in nodes
        if (doc := ast.get_docstring(n)) is not None
    ]


DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def bilingual(lines: list[str]) -> bool:
    """Some line in Chinese and some line in English alone (not a Chinese line that names
    an identifier)."""
    chinese = any(CJK.search(line) for line in lines)
    english = any(ENGLISH.search(line) and not CJK.search(line) for line in lines)
    return chinese and english


def test_every_code_problem_has_a_starter() -> None:
    assert STARTERS and all(path.is_file() for path in STARTERS)


@pytest.mark.parametrize("path", STARTERS, ids=lambda p: p.parent.name)
def test_every_starter_comment_and_docstring_is_in_english_and_chinese(path: Path) -> None:
    """Pins the issue "starter comments are English only in the zh UI"."""
    source = path.read_text(encoding="utf-8")
    blocks = comment_blocks(source) + docstrings(source)
    assert blocks, "a starter says what to fill in"
    one_language = [f"line {line}: {texts[0]}" for line, texts in blocks if not bilingual(texts)]
    assert not one_language, "\n".join(one_language)


def test_a_comment_after_code_is_its_own_block() -> None:
    source = "x = 1  # one\n# two\n# 二\n"
    assert comment_blocks(source) == [(1, ["# one"]), (2, ["# two", "# 二"])]
