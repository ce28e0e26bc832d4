"""Drafts: the editor's code per user and problem, kept on the server while a logged-in
learner types, so it follows them from one browser to another."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from web.errors import Invalid
from web.judging import core_seam
from web.store.db import iso, put_row, utcnow
from web.store.models import Draft


def view(slug: str, draft: Draft | None) -> dict[str, Any]:
    return {
        "problem": slug,
        "code": draft.code if draft is not None else None,
        "updated_at": iso(draft.updated_at) if draft is not None else None,
    }


def load(db: Session, user_id: int, slug: str) -> dict[str, Any]:
    """The user's draft of the problem; code and updated_at are null when there is none."""
    return view(slug, db.get(Draft, (user_id, slug)))


def save(db: Session, user_id: int, slug: str, code: str) -> dict[str, Any]:
    """Store (or replace) the draft; it obeys the rules a submission's code does (size,
    no NUL byte, not empty), so a draft can always be submitted as it is."""
    reason = core_seam.source_problem(code)
    if reason is not None:
        raise Invalid("invalid_code", reason, field="code")
    # One upsert: two devices saving their first draft at once both succeed (the later wins).
    now = utcnow()
    keys = {"user_id": user_id, "problem_slug": slug}
    put_row(db, Draft, keys, {"code": code, "updated_at": now})
    db.commit()
    return {"problem": slug, "code": code, "updated_at": iso(now)}
