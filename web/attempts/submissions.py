"""Submissions as the platform sees them: stored, then queued; listed; shown."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, select, update
from sqlalchemy.orm import Session, defer

from judge.messages import case_message
from judge.verdict import Verdict
from web.accounts.auth import Viewer, username_key
from web.errors import Conflict, Invalid, NotFound
from web.i18n import current_language, say
from web.judging import core_seam
from web.serving.inputs import MAX_ID, int_arg, text_arg
from web.state import PlatformState
from web.store.db import iso
from web.store.models import Submission, SubmissionStatus, User

# Report fields an owner sees beyond the summary; anything else in a report stays private.
# `explanation`: a quiz question answered correctly, why it is right ({"zh", "en"}).
# `message_key`/`message_args`: the message as data (judge/messages.py), so the page can
# say it again in its reader's language; `message` itself is rendered in the viewer's.
# A hidden case's `time_ms` is its time rounded up to a tenth of the limit and its message
# the judge's one sentence for its verdict (judge/grading/case_grading.py, conceal).
CASE_FIELDS = (
    "name", "public", "verdict", "time_ms", "message", "message_key", "message_args",
    "explanation",
)  # fmt: skip
# Public cases only: the values, the input and its test, what the case printed, and where
# it raised (a hidden case's line would be the submission's choice: it knows the inputs).
VALUE_FIELDS = (
    "got", "expected", "diff", "input", "test", "stdout", "stderr", "line", "traceback",
)  # fmt: skip
# `speed`: a speed problem's accepted run, as the core wrote it (judge/problem/speed_spec.py).
REPORT_FIELDS = (
    "compile_error", "stdout", "stderr", "output_withheld", "seed", "environment", "speed",
)  # fmt: skip
# What hidden cases printed could carry their inputs: administrators only.
ADMIN_FIELDS = ("internal_error", "withheld_stdout", "withheld_stderr")


@dataclass(frozen=True, slots=True)
class SubmissionQuery:
    problem: str | None
    username: str | None
    before: int | None
    limit: int
    # Problems whose submissions are left out (hidden problems, for everyone but admins).
    exclude: tuple[str, ...] = ()
    user_id: int | None = None  # one user's, by id (their page's history)


def query_from_args(
    state: PlatformState, db: Session, viewer: Viewer | None, *, limit: int
) -> SubmissionQuery:
    """The list's filters from the request's query string (`problem`, `user`, `before`):
    the API and the page read them here, so the two lists never filter differently. The
    caller chooses the page size (the API lets `?limit=` choose it; the page does not)."""
    exclude = hidden_for(state, db, viewer)
    return SubmissionQuery(
        problem=problem_named(state, text_arg("problem"), exclude),
        username=text_arg("user"),
        before=int_arg("before", 0, low=0, high=2**62) or None,
        limit=limit,
        exclude=exclude,
    )


def problem_named(state: PlatformState, text: str | None, exclude: tuple[str, ...]) -> str | None:
    """The slug the problem filter names. Learners know a problem by its title, so besides
    a slug the filter takes a title in either language (any case), or a piece of one that
    only one problem's title holds; a hidden problem's title names nothing. Anything else
    stays as typed, and the list is then empty."""
    if not text:
        return text
    problems = [p for p in state.catalog.all() if p.slug not in exclude]
    if any(p.slug == text for p in problems):
        return text
    wanted = text.strip().casefold()
    titles = [(p.slug, [title.casefold() for title in p.title.values()]) for p in problems]
    exact = [slug for slug, names in titles if wanted in names]
    partial = [slug for slug, names in titles if any(wanted in name for name in names)]
    if len(exact) == 1:
        return exact[0]
    return partial[0] if len(partial) == 1 else text


def create(state: PlatformState, db: Session, viewer: Viewer, slug: Any, code: str, ip: str) -> int:
    """Validate, rate-limit, store as queued, commit, then enqueue; returns the new id."""
    problem = state.catalog.find(db, slug, admin=viewer.is_admin)
    reason = core_seam.source_problem(code)
    if reason is not None:
        raise Invalid("invalid_code", reason, field="code")
    scored = problem.speed is not None
    refuse_repeat(db, viewer.id, problem.slug, code, scored)  # before counting: a refusal is free
    limits = state.config
    state.limiter.hit(f"submit:user:{viewer.id}", limits.submit_per_user, say("what_submissions"))
    state.limiter.hit(f"submit:ip:{ip}", limits.submit_per_ip, say("what_submissions_ip"))
    # Two identical requests at once: the second waits here for the first to commit, then
    # sees its row and is refused.
    _hold_user(db, viewer.id)
    refuse_repeat(db, viewer.id, problem.slug, code, scored)
    submission = Submission(user_id=viewer.id, problem_slug=problem.slug, code=code)
    db.add(submission)
    db.commit()  # stored before it is queued: a crash now leaves a 'queued' row to recover
    state.queue.enqueue(submission.id)
    return submission.id


def refuse_repeat(db: Session, user_id: int, slug: str, code: str, scored: bool) -> None:
    """Conflict (409, `duplicate_submission`) when `code` is exactly the code of this user's
    latest submission to `slug` and that one is queued, running, or judged with any verdict
    but IE (an IE is the judge's failure: submitting again is how a learner retries it).
    On a speed problem (`scored`) an AC whose speed was not recorded (timed while the
    machine was too busy: "unsteady") may be submitted again too, since its report asks
    the learner to do exactly that. Only the latest counts: going back to an older version
    of the code is a new attempt."""
    latest = db.execute(
        select(
            Submission.id, Submission.code, Submission.status, Submission.verdict, Submission.metric
        )
        .where(Submission.user_id == user_id, Submission.problem_slug == slug)
        .order_by(Submission.id.desc())
        .limit(1)
    ).first()
    if latest is None or latest.code != code:
        return
    if latest.status in (SubmissionStatus.QUEUED, SubmissionStatus.RUNNING):
        message = say("err_repeat_pending", id=latest.id)
    elif scored and latest.verdict is Verdict.AC and latest.metric is None:
        return  # accepted, but no speed recorded: running it again is how it gets one
    elif latest.verdict is not None and latest.verdict is not Verdict.IE:
        message = say("err_repeat_judged", id=latest.id, verdict=latest.verdict.value)
    else:
        return
    raise Conflict("duplicate_submission", message, field="code")


def _hold_user(db: Session, user_id: int) -> None:
    """Take the write lock on this user's row until the transaction ends: an UPDATE that
    changes nothing (PostgreSQL locks the row; SQLite, a writer of one file, the database).
    A column that is no key, so that others' rows referring to the user are not held up."""
    stmt = update(User).where(User.id == user_id)
    db.execute(stmt.values(session_generation=User.session_generation))


def hidden_for(state: PlatformState, db: Session, viewer: Viewer | None) -> tuple[str, ...]:
    """The problems whose submissions this viewer's lists leave out."""
    if viewer is not None and viewer.is_admin:
        return ()
    return tuple(sorted(state.catalog.hidden(db)))


def find(db: Session, submission_id: int, hidden: tuple[str, ...] = ()) -> tuple[Submission, str]:
    """The submission and its author's name; 404 for an id no row can have and for one on
    a problem in `hidden` (the same answer as for a submission that never existed)."""
    row = None
    if 0 < submission_id <= MAX_ID:  # a larger id overflows the database's integer
        row = db.execute(
            select(Submission, User.username)
            .join(User, User.id == Submission.user_id)
            .where(Submission.id == submission_id)
        ).first()
    if row is None or row[0].problem_slug in hidden:
        message = say("err_unknown_submission", id=submission_id)
        raise NotFound("unknown_submission", message)
    return row[0], row[1]


def search(db: Session, query: SubmissionQuery) -> list[tuple[Submission, str]]:
    """Newest first, keyset-paged by id; every filter is served by an index."""
    return [(s, name) for s, name in db.execute(search_query(query)).all()]


def search_query(query: SubmissionQuery) -> Select[*tuple[Any, ...]]:
    # Lists show summaries: leave the code and the report (kilobytes each) in the table.
    stmt = (
        select(Submission, User.username)
        .join(User, User.id == Submission.user_id)
        .options(defer(Submission.code), defer(Submission.report_json))
    )
    if query.problem:
        stmt = stmt.where(Submission.problem_slug == query.problem)
    if query.username:
        stmt = stmt.where(User.username_key == username_key(query.username))
    if query.user_id is not None:
        stmt = stmt.where(Submission.user_id == query.user_id)
    if query.before is not None and query.before <= MAX_ID:  # every id is below a larger one
        stmt = stmt.where(Submission.id < query.before)
    if query.exclude:
        stmt = stmt.where(Submission.problem_slug.not_in(query.exclude))
    return stmt.order_by(Submission.id.desc()).limit(query.limit)


def summary(sub: Submission, username: str) -> dict[str, Any]:
    return {
        "id": sub.id,
        "problem": sub.problem_slug,
        "user": username,
        "status": sub.status,
        "verdict": sub.verdict,
        "points": sub.points,
        "passed": sub.passed,
        "total": sub.total,
        "time_ms": sub.time_ms,
        "problem_version": sub.problem_version,
        "created_at": iso(sub.created_at),
        "judged_at": iso(sub.judged_at),
        "progress": _progress(sub),
        "url": f"/api/submissions/{sub.id}",
    }


def _progress(sub: Submission) -> dict[str, object] | None:
    """Where judging has got to while running: cases done of all, and what runs now
    (`stage`, its `step` of `of`: "timed repetition 4 of 9"); None before the judge says
    and after."""
    if sub.status != SubmissionStatus.RUNNING or sub.progress_total is None:
        return None
    out: dict[str, object] = {"done": sub.progress_done or 0, "total": sub.progress_total}
    if sub.progress_stage is not None:
        out["stage"] = sub.progress_stage
        out["step"], out["of"] = sub.progress_step or 0, sub.progress_of or 0
    return out


def can_see_details(viewer: Viewer | None, sub: Submission) -> bool:
    return viewer is not None and (viewer.id == sub.user_id or viewer.is_admin)


def _case(case: dict[str, Any]) -> dict[str, Any]:
    # The core never puts values, lines or tracebacks on hidden cases; dropping them here
    # keeps that true even if a report from an older or buggy judge did.
    fields = CASE_FIELDS + VALUE_FIELDS if case.get("public") is True else CASE_FIELDS
    out = {k: case[k] for k in fields if k in case}
    out["message"] = case_message(case, current_language())
    return out


def details(sub: Submission, username: str, *, admin: bool = False) -> dict[str, Any]:
    """The summary plus code and per-case results, for the owner and admins only."""
    out = summary(sub, username)
    report = json.loads(sub.report_json) if sub.report_json else {}
    out["code"] = sub.code
    out["cases"] = [_case(case) for case in report.get("cases", [])]
    for key in REPORT_FIELDS + (ADMIN_FIELDS if admin else ()):
        if key in report:
            out[key] = report[key]
    return out
