"""The kinds the judge knows, by name: problem.toml's `kind` names one of them.

`register` is the one place a new kind is added: it makes the kind's folders load
(judge.problem.spec.LOADERS, the hook the loader below this room reads) and answers for
it everywhere a kind is asked (kind_of). The built-in kinds are registered here.
"""

from __future__ import annotations

from judge.kinds.code_kind import CodeKind
from judge.kinds.kind import ProblemKindType
from judge.kinds.quiz_kind import QuizKind
from judge.problem.spec import LOADERS, ProblemSpec

_KINDS: dict[str, ProblemKindType] = {}


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
    return _KINDS[name]


def kind_of(problem: ProblemSpec) -> ProblemKindType:
    """The kind that loaded `problem`, which answers every question about it."""
    return _KINDS[problem.kind]


def known() -> tuple[str, ...]:
    """The registered kinds' names, in the order they were registered."""
    return tuple(_KINDS)


for _builtin in (CodeKind(), QuizKind()):
    register(_builtin)
