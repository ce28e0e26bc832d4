"""A problem's hints (public) and its editorial (only for a user with an accepted
submission on it), rendered for a page or the API."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.problem.spec import ProblemSpec
from judge.verdict import Verdict
from web.accounts.auth import Viewer, require_user
from web.errors import ApiError
from web.i18n import say
from web.store.models import Submission
from web.store.status import SubmissionStatus


def has_accepted(db: Session, user_id: int, slug: str) -> bool:
    """Whether the user has a judged AC on the problem now (a rejudge that took it back
    takes the editorial back too: the row's current verdict decides)."""
    found = db.scalar(
        select(Submission.id)
        .where(
            Submission.user_id == user_id,
            Submission.problem_slug == slug,
            Submission.status == SubmissionStatus.DONE,
            Submission.verdict == Verdict.AC,
        )
        .limit(1)
    )
    return found is not None


def may_read_editorial(db: Session, viewer: Viewer | None, problem: ProblemSpec) -> bool:
    return (
        problem.has_editorial and viewer is not None and has_accepted(db, viewer.id, problem.slug)
    )


def editorial_or_refuse(db: Session, problem: ProblemSpec) -> dict[str, str]:
    """Both languages' editorial for the API, or the error that says why not."""
    viewer = require_user()
    if not problem.has_editorial:
        raise ApiError(404, "no_editorial", say("err_no_editorial", slug=problem.slug))
    if not has_accepted(db, viewer.id, problem.slug):
        raise ApiError(403, "not_accepted", say("err_not_accepted"))
    return {lang: problem.editorial(lang) or "" for lang in ("zh", "en")}
