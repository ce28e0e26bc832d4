"""Building the Flask app: config, database, problems, queue, request hooks, blueprints."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from flask import Flask, current_app, g, redirect, request, url_for
from sqlalchemy.orm import Session, sessionmaker
from werkzeug.exceptions import RequestEntityTooLarge

from web.accounts.auth import CSRF_FIELD, Viewer, check_csrf, csrf_token, load_viewer
from web.config import QueueKind, WebConfig, load_config
from web.errors import register_error_handlers
from web.i18n import pick_language, translate
from web.judging.catalog import ProblemCatalog
from web.judging.core_seam import Judge, LocalJudge, make_judge
from web.judging.jobqueue import EmbeddedQueue, JudgeQueue
from web.judging.jobs import JobContext, recover, run_job
from web.judging.runs import LocalRunDispatch, PublicRuns, RunDispatch
from web.serving import access_log, cors, csp, inputs, logsafe
from web.serving.ratelimit import make_limiter
from web.serving.streams import StreamSlots
from web.state import EXTENSION, PlatformState
from web.store import filemodes, migrate
from web.store.db import make_engine, make_sessions

log = logging.getLogger(__name__)
WEB_DIR = Path(__file__).resolve().parent
# Endpoints that take credentials in the body instead of a cookie, so no CSRF token.
CSRF_EXEMPT = frozenset({"api_accounts.register", "api_accounts.token"})


def build_app(config: WebConfig | None = None) -> Flask:
    logsafe.install()  # every log line of the process escapes what clients sent
    config = config or load_config()
    filemodes.create_private_database(config.database_url)  # 0600 before SQLite creates it
    migrate.upgrade(config.database_url)
    filemodes.create_private_database(config.database_url)  # the -wal/-shm migrations left
    app = Flask(__name__, static_folder=str(WEB_DIR / "static"), static_url_path="/static")
    app.config.update(
        SECRET_KEY=config.secret_key,
        MAX_CONTENT_LENGTH=config.max_request_bytes,
        MAX_FORM_MEMORY_SIZE=config.max_request_bytes,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=config.secure_cookies,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]  # keep documented field order
    app.extensions[EXTENSION] = _make_state(config)
    register_error_handlers(app)
    _register_hooks(app)
    inputs.register(app)  # its hook runs after open_request's: g.lang is set
    _register_blueprints(app)
    return app


def _make_state(config: WebConfig) -> PlatformState:
    engine = make_engine(config.database_url)
    sessions = make_sessions(engine)
    catalog = ProblemCatalog(config.problems_dir)
    judge: Judge | None = None
    queue: JudgeQueue
    dispatch: RunDispatch
    if config.queue is QueueKind.CELERY:
        # Workers judge; this process only stores and sends ids, so it needs no sandbox,
        # and a restart leaves the rows that live workers hold alone (no recover here).
        from web.judging.celery_queue import CeleryQueue, CeleryRunDispatch, make_celery, route

        celery = make_celery(config)
        queue = CeleryQueue(celery, lambda sid: route(sessions, catalog, sid))
        dispatch = CeleryRunDispatch(celery)
    else:
        judge = make_judge(
            config.judge_backend,
            launcher=config.launcher,
            # Room for every judging thread and every run slot at once: runs never take
            # the sandbox's workers from submissions.
            workers=config.workers + config.run_slots,
            problems_dir=config.problems_dir,
            ready_seeds=config.ready_seeds,
            device=config.device,
            speed_spread_limit=config.speed_spread_limit,
            # This process serves pages: what judging loads (torch) stays out of it.
            own_process=not config.runner_in_server,
        )
        _hide_from_submissions(judge, config)
        queue = _embedded_queue(config, sessions, catalog, judge)
        dispatch = LocalRunDispatch(sessions, catalog.get, judge, config.run_slots)
    streams = StreamSlots(
        config.max_event_streams,
        config.event_streams_per_client,
        config.event_streams_per_address,
    )
    runs = PublicRuns(
        sessions,
        dispatch,
        config.run_slots,
        waiting=config.run_waiting,
        problems=catalog.get,
        keep_s=config.run_keep_s,
    )
    if isinstance(dispatch, LocalRunDispatch):
        dispatch.then = runs.advance  # a run ended here: the next in line starts
    limiter = make_limiter(config)
    if config.queue is QueueKind.CELERY and not config.ratelimit_url:
        log.warning(
            "JUDGE_QUEUE=celery without JUDGE_RATELIMIT_URL: each server process counts its "
            "own rate limits; set it to a redis:// URL to share them"
        )
    return PlatformState(config, engine, sessions, catalog, queue, limiter, judge, streams, runs)


def _embedded_queue(
    config: WebConfig, sessions: sessionmaker[Session], catalog: ProblemCatalog, judge: Judge
) -> EmbeddedQueue:
    """Threads in this process judge; a restart queues again what the last one left."""
    pool_ref: list[EmbeddedQueue] = []
    ctx = JobContext(
        sessions=sessions,
        problems=catalog,
        judge_seed=config.judge_seed,
        judge=judge,
        max_attempts=config.max_job_attempts,
        requeue=lambda sid, delay_s: pool_ref[0].enqueue(sid, delay_s),
        retry_delay_s=config.retry_delay_s,
        lease_s=config.lease_s,
        judging_per_user=config.judging_per_user,
    )
    pool = EmbeddedQueue(lambda sid: run_job(ctx, sid), config.workers)
    pool_ref.append(pool)
    if config.start_workers:
        pool.start()
        for submission_id in recover(sessions):
            pool.enqueue(submission_id)
    return pool


def _hide_from_submissions(judge: Judge, config: WebConfig) -> None:
    """A root server's unsafe-local child runs as another uid: keep our files from it.

    (The sandbox never binds them; a non-root unsafe-local child is us and reads them.)"""
    if not isinstance(judge, LocalJudge) or judge.user is None:
        return
    private = [config.problems_dir, *filemodes.database_files(config.database_url)]
    if config.instance_dir is not None:
        private.append(config.instance_dir)
    try:
        filemodes.hide_from(judge.user.uid, judge.user.gid, private)
    except BaseException:
        judge.close()
        raise


def _register_hooks(app: Flask) -> None:
    access_log.register(app)  # first: its clock starts before, and its line is written after, all
    csp.register(app)
    cors.register(app, app.extensions[EXTENSION].config.cors_origins)

    @app.before_request
    def open_request() -> None:
        g.lang = pick_language()
        _refuse_a_body_past_the_limit()
        if request.endpoint == "static":
            g.viewer = None
            return
        state: PlatformState = app.extensions[EXTENSION]
        g.db = state.sessions()
        g.viewer = load_viewer(g.db)
        if request.method not in ("GET", "HEAD", "OPTIONS") and _needs_csrf(g.viewer):
            check_csrf()

    @app.teardown_request
    def close_request(_exc: BaseException | None) -> None:
        db: Session | None = g.pop("db", None)
        if db is not None:
            db.close()

    isolate = app.extensions[EXTENSION].config.cross_origin_isolation

    @app.after_request
    def security_headers(response: Any) -> Any:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("X-Frame-Options", "DENY")
        if isolate:
            response.headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
            response.headers.setdefault("Cross-Origin-Embedder-Policy", "require-corp")
        return response

    @app.context_processor
    def template_globals() -> dict[str, Any]:
        lang = g.get("lang", "en")
        return {
            "lang": lang,
            "t": lambda key: translate(key, lang),
            "viewer": g.get("viewer"),
            "csrf_token": csrf_token,
            "csrf_field": CSRF_FIELD,
            "app_js": (WEB_DIR / "static" / "dist" / "app.js").is_file(),
            "app_css": (WEB_DIR / "static" / "dist" / "app.css").is_file(),
        }


def _refuse_a_body_past_the_limit() -> None:
    """A declared length past the limit is a 413 before any view runs, whatever the route,
    so that no server spools such a body (web/serving/server.py answers from the head alone and
    gives a chunked body cut off at the limit the length it reached)."""
    if (request.content_length or 0) > current_app.config["MAX_CONTENT_LENGTH"]:
        raise RequestEntityTooLarge()


def _needs_csrf(viewer: Viewer | None) -> bool:
    if request.endpoint in CSRF_EXEMPT:
        return False
    if request.path.startswith("/api/"):
        # API calls with a bearer token carry no ambient credential; cookie calls do.
        return viewer is not None and not viewer.via_token
    return True  # every page form, logged in or not (log-in CSRF included)


def _favicon() -> Any:
    # Browsers ask for /favicon.ico before (or without) reading the page's icon link.
    return redirect(url_for("static", filename="favicon.svg"), code=301)


def _register_blueprints(app: Flask) -> None:
    app.add_url_rule("/favicon.ico", "favicon", _favicon)
    from web.api import accounts, admin, leaderboard, problems, runs, submissions
    from web.pages import accounts as page_accounts
    from web.pages import admin as page_admin
    from web.pages import bundles as page_bundles
    from web.pages import leaderboard as page_leaderboard
    from web.pages import problems as page_problems
    from web.pages import submissions as page_submissions

    for module in (accounts, admin, leaderboard, problems, runs, submissions):
        app.register_blueprint(module.bp, url_prefix="/api")
    for module in (
        page_accounts,
        page_admin,
        page_bundles,
        page_leaderboard,
        page_problems,
        page_submissions,
    ):
        app.register_blueprint(module.bp)
