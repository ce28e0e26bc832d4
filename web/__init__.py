"""The Flask platform: accounts, problems, submissions, live verdicts and leaderboards."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flask import Flask

    from web.config import WebConfig


def create_app(config: WebConfig | None = None) -> Flask:
    """The app factory (`flask --app web run` finds it); imports stay lazy so that
    migrations and the CLI can use web.store.db and web.store.models without loading Flask."""
    from web.app import build_app

    return build_app(config)
