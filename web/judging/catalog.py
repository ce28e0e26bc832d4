"""The problems the platform serves: the core's ProblemSet plus the admin's hidden flags."""

from __future__ import annotations

import threading
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.problem.spec import ProblemSpec
from web.errors import Invalid, NotFound
from web.i18n import say
from web.judging import core_seam
from web.store.models import ProblemFlag


class ProblemCatalog:
    """Loads problems/ once (each load hashes every file for the version); `reload()` picks
    up edited folders, as a new version, before a rejudge."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._problems: list[ProblemSpec] = []
        self._by_slug: dict[str, ProblemSpec] = {}
        self.reload()

    def reload(self) -> None:
        problem_set = core_seam.load_problems(self.root)
        problems = problem_set.all()
        with self._lock:
            self._set = problem_set
            self._problems = problems
            self._by_slug = {p.slug: p for p in problems}

    def all(self) -> list[ProblemSpec]:
        return list(self._problems)

    def get(self, slug: str) -> ProblemSpec:
        """The spec; raises core_seam.UnknownProblem (with a did-you-mean) for an unknown slug."""
        problem = self._by_slug.get(slug)
        if problem is None:
            return self._set.get(slug)  # raises UnknownProblem, or loads a folder added since
        return problem

    def hidden(self, db: Session) -> set[str]:
        return set(db.scalars(select(ProblemFlag.slug).where(ProblemFlag.hidden.is_(True))))

    def visible(self, db: Session, *, admin: bool) -> list[ProblemSpec]:
        """Every problem for an admin; the others without hidden ones."""
        hidden = set() if admin else self.hidden(db)
        return [p for p in self.all() if p.slug not in hidden]

    def find(self, db: Session, slug: object, *, admin: bool) -> ProblemSpec:
        """A problem the viewer may see, or NotFound with the core's did-you-mean message."""
        if not isinstance(slug, str) or not slug:
            raise Invalid("missing_field", say("err_problem_slug"), field="problem")
        hidden = set() if admin else self.hidden(db)
        try:
            problem = self.get(slug)
        except core_seam.UnknownProblem as exc:
            hint = exc.suggestion if exc.suggestion not in hidden else None
            raise _unknown(slug, hint) from None
        if slug in hidden:
            raise _unknown(slug, None)  # the same answer as for a slug that never existed
        return problem


def _unknown(slug: str, suggestion: str | None) -> NotFound:
    if suggestion:
        message = say("err_unknown_problem_hint", slug=repr(slug), suggestion=repr(suggestion))
    else:
        message = say("err_unknown_problem", slug=repr(slug))
    return NotFound("unknown_problem", message, field="problem")
