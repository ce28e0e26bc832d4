"""The kinds the judge knows, by name: problem.toml's `kind` names one of them.

`register` is the one place a new kind is added: it makes the kind's folders load
(judge.problem.spec.LOADERS, the hook the loader below this room reads) and answers for
it everywhere a kind is asked (kind_of). The built-in kinds are known here by a function
that imports and builds each the first time it is asked for: `judge run` on a code problem
never imports the quiz's judging (about 6 ms of a 90 ms run), and their loaders are
already in LOADERS.
"""

from __future__ import annotations

from collections.abc import Callable

from judge.kinds.kind import ProblemKindType
from judge.problem.spec import LOADERS, ProblemSpec


def _code() -> ProblemKindType:
    from judge.kinds.code_kind import CodeKind

    return CodeKind()


def _quiz() -> ProblemKindType:
    from judge.kinds.quiz_kind import QuizKind

    return QuizKind()


_KINDS: dict[str, ProblemKindType] = {}
# The built-in kinds, built on first use (their loaders are spec's load_code and load_quiz).
_BUILTIN: dict[str, Callable[[], ProblemKindType]] = {"code": _code, "quiz": _quiz}


def register(kind: ProblemKindType) -> None:
    """Make `kind` known by its name: its folders load, its problems are judged, bundled,
    checked and shown by it. A name registered again is replaced (a test's kind, reloaded)."""
    _KINDS[kind.name] = kind
    LOADERS[kind.name] = kind.load


def unregister(name: str) -> None:
    """Forget the kind `name` (a test's own kind, once the test is over)."""
    _KINDS.pop(name, None)
    LOADERS.pop(name, None)


def kind_named(name: str) -> ProblemKindType:
    """The registered kind called `name`; KeyError for a name no kind has."""
    if name not in _KINDS and name in _BUILTIN:
        register(_BUILTIN[name]())
    return _KINDS[name]


def kind_of(problem: ProblemSpec) -> ProblemKindType:
    """The kind that loaded `problem`, which answers every question about it."""
    return kind_named(problem.kind)


def known() -> tuple[str, ...]:
    """The kinds' names: the built-in ones first, then those registered since."""
    return tuple(dict.fromkeys([*_BUILTIN, *_KINDS]))
