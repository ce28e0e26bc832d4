"""The landing page and problem list, a problem's page, the no-script submit form and the
language switch."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, g, redirect, render_template, request, url_for

from judge.messages import LANGS
from judge.problem.spec import ProblemSpec
from web.accounts.auth import require_user
from web.attempts import submissions
from web.boards.leaderboard import problem_stats, progress, speed_board_of
from web.content import guidance, handbook, quiz_marks, quiz_sheets
from web.content.markdown import render_inline_markdown, render_markdown
from web.errors import ApiError
from web.i18n import COOKIE, say
from web.serving.inputs import client_address, safe_next
from web.state import platform

bp = Blueprint("problems", __name__)
YEAR_S = 365 * 24 * 3600
# The chapter's last step and the stages that lead to it (problem.toml tags each one), in
# the list's order: named after the sections, each stage linking to its problem.
CAPSTONE_TAG = "capstone"
SPEED_ROWS = 20  # the problem page's speed board: the top; the board's page has 100


@bp.get("/")
def index() -> str:
    """The landing page: what this is, the first problem, the chapter's sections with their
    problems, then the full list. The list stays at `/`, where every link and redirect
    already points, so the landing content goes above it instead of moving it."""
    state, viewer = platform(), g.viewer
    admin = viewer is not None and viewer.is_admin
    problems = state.catalog.visible(g.db, admin=admin)
    return render_template(
        "problems/problems.html",
        chapters=_by_chapter(problems),
        hidden=state.catalog.hidden(g.db),
        progress=progress(g.db, viewer.id) if viewer is not None else {},
        stats=problem_stats(g.db),
        first=problems[0] if problems else None,
        chapter_title=handbook.CHAPTER["title"],
        sections=[(s, [p for p in problems if p.section == s.id]) for s in handbook.SECTIONS],
        capstone=[p for p in problems if CAPSTONE_TAG in p.tags],
        exercises=sorted((p for p in problems if p.exercise), key=lambda p: p.exercise),
    )


def _by_chapter(problems: list[Any]) -> list[tuple[str, list[Any]]]:
    # ProblemSet.all() is already in chapter order; keep that order, group adjacent runs.
    groups: list[tuple[str, list[Any]]] = []
    for problem in problems:
        if not groups or groups[-1][0] != problem.chapter:
            groups.append((problem.chapter, []))
        groups[-1][1].append(problem)
    return groups


@bp.get("/problems/<slug>")
def show(slug: str) -> str:
    state, viewer = platform(), g.viewer
    problem = state.catalog.find(g.db, slug, admin=viewer is not None and viewer.is_admin)
    history = []
    if viewer is not None:
        query = submissions.SubmissionQuery(slug, None, None, 20, user_id=viewer.id)
        history = [sub for sub, _ in submissions.search(g.db, query)]
    if problem.quiz is not None:
        return _quiz_page(problem, history)
    return render_template(
        "problems/problem.html",
        problem=problem,
        statement_html=render_markdown(problem.statement(g.lang)),
        starter=problem.starter_source(),
        history=history,
        speed=speed_board_of(g.db, problem, limit=SPEED_ROWS),
        section=handbook.section_of(problem.section),
        hints=[(hint.title[g.lang], render_markdown(hint.text[g.lang])) for hint in problem.hints],
        editorial_html=_editorial_html(problem),
    )


def _editorial_html(problem: ProblemSpec) -> str | None:
    """The editorial, rendered, for a viewer with an accepted submission; else None (the
    page then only says that solving it opens the editorial)."""
    if not guidance.may_read_editorial(g.db, g.viewer, problem):
        return None
    return render_markdown(problem.editorial(g.lang) or "")


def _quiz_page(
    problem: ProblemSpec,
    history: list[Any],
    *,
    answers: dict[str, object] | None = None,
    marks: quiz_marks.QuizMarks | None = None,
) -> str:
    """A quiz is a form: each question with its input, the learner's last answers filled
    in, each question marked in place by the latest judged submission (or by the Run that
    posted `answers`), and the explanation of any question they gave up on."""
    viewer = g.viewer
    quiz = quiz_sheets.quiz_of(problem)
    given_up: set[str] = set()
    if viewer is not None:
        if answers is None:
            answers = quiz_sheets.last_answers(g.db, viewer.id, problem.slug)
            marks = quiz_marks.of_last_submission(g.db, viewer.id, quiz, problem.slug, g.lang)
        given_up = quiz_sheets.revealed(g.db, viewer.id, problem.slug)
    answers = answers or {}
    questions = quiz.questions
    explanations = {q: quiz.keys[q].explanation for q in given_up}
    return render_template(
        "problems/quiz.html",
        problem=problem,
        statement_html=render_markdown(_without_title(problem.statement(g.lang))),
        questions=questions,
        prompts={q.id: render_markdown(q.prompt[g.lang]) for q in questions},
        options={
            f"{q.id}/{o.id}": render_inline_markdown(o.text[g.lang])
            for q in questions
            for o in q.options
        },
        filled={q.id: quiz_sheets.shown(q, answers.get(q.id)) for q in questions},
        public_points={
            q.id: [", ".join(f"{k}={v}" for k, v in p.items()) for p in q.public_points]
            for q in questions
        },
        marks=marks,
        explanations={q: render_markdown(text[g.lang]) for q, text in explanations.items()},
        field_prefix=quiz_sheets.FIELD_PREFIX,
        history=history,
        section=handbook.section_of(problem.section),
    )


def _without_title(statement: str) -> str:
    """The statement without its leading `# Title` line: the page's own heading already
    shows the title (the statement keeps it for `judge show` in a terminal)."""
    lines = statement.lstrip("\n").split("\n", 1)
    if lines[0].startswith("# "):
        return lines[1] if len(lines) > 1 else ""
    return statement


@bp.post("/problems/<slug>/run")
def run_quiz(slug: str) -> str:
    """A quiz's Run (the form's Run button, no account needed): the answers checked at the
    public points, as the browser's judge checks a quiz bundle, and the page shown again
    with each question marked. Nothing is stored and nothing counts."""
    state, viewer = platform(), g.viewer
    limit = state.config.quiz_run_per_ip
    state.limiter.hit(f"quiz-run:ip:{client_address()}", limit, say("what_quiz_runs_ip"))
    problem = state.catalog.find(g.db, slug, admin=viewer is not None and viewer.is_admin)
    quiz = quiz_sheets.quiz_of(problem)
    sheet = quiz_sheets.sheet_from_form(quiz, request.form.to_dict(flat=False))
    history = []
    if viewer is not None:
        query = submissions.SubmissionQuery(slug, None, None, 20, user_id=viewer.id)
        history = [sub for sub, _ in submissions.search(g.db, query)]
    marks = quiz_marks.of_run(quiz, sheet, g.lang)
    return _quiz_page(problem, history, answers=json.loads(sheet), marks=marks)


@bp.post("/problems/<slug>/submit")
def submit(slug: str) -> Any:
    """The form fallback for browsers without scripts (the editor posts to the API), and a
    quiz's form: its fields become the JSON answer sheet here."""
    viewer = require_user()
    state = platform()
    problem = state.catalog.find(g.db, slug, admin=viewer.is_admin)
    code: str | None = request.form.get("code")
    if problem.quiz is not None:
        code = quiz_sheets.sheet_from_form(problem.quiz, request.form.to_dict(flat=False))
    if code is None:
        raise ApiError(400, "missing_field", say("err_code_required"), field="code")
    new_id = submissions.create(state, g.db, viewer, slug, code, client_address())
    return redirect(url_for("submissions.show", submission_id=new_id), code=303)


@bp.post("/problems/<slug>/questions/<question_id>/reveal")
def reveal(slug: str, question_id: str) -> Any:
    """Give up on a quiz question (the page's button): see its explanation on the page."""
    viewer = require_user()
    problem = platform().catalog.find(g.db, slug, admin=viewer.is_admin)
    quiz_sheets.reveal(g.db, viewer.id, problem, question_id)
    g.db.commit()
    target = url_for("problems.show", slug=slug) + f"#q-{question_id}"
    return redirect(target, code=303)


@bp.get("/lang/<code>")
def set_language(code: str) -> Any:
    if code not in LANGS:
        raise ApiError(404, "unknown_language", say("err_unknown_language", langs=", ".join(LANGS)))
    response = redirect(safe_next(request.args.get("next")), code=303)
    response.set_cookie(COOKIE, code, max_age=YEAR_S, samesite="Lax")
    return response
