"""Every per-address limit counts an IPv6 client by its /64 (issue 36, section 5): one
machine is handed a whole /64, and 15 registrations from 15 addresses of one /64 were all
accepted where one address is stopped at 10. Registrations, log-ins, submissions, runs and
quiz runs each allow two here; a third from another address of the same /64 is refused,
and one from another /64 is not."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from problem_factory import GOOD, write_web_problem
from quiz_factory import write_quiz
from web_helpers import PASSWORD, csrf_of, make_config, make_user, state

from web import create_app
from web.config import RateLimit
from web.serving.client_address import client_key

TWO = RateLimit(2, 3600.0)
LOTS = RateLimit(10**6, 3600.0)
ONE_NET = ("2001:db8:7:1::1", "2001:db8:7:1::abcd", "2001:db8:7:1:ffff:ffff:ffff:fffe")
OTHER_NET = "2001:db8:7:2::1"
_n = itertools.count()


@pytest.fixture
def app(tmp_path: Path, db_template: Path) -> Iterator[Flask]:
    problems = tmp_path / "problems"
    write_web_problem(problems, "add-two")
    write_web_problem(problems, "add-torch", order=2, tier="torch")
    write_quiz(problems)
    limits = ("register_per_ip", "login_per_ip", "submit_per_ip", "run_per_ip", "quiz_run_per_ip")
    config = make_config(
        tmp_path,
        db_template,
        problems,
        start_workers=False,
        run_slots=64,
        **{name: TWO for name in limits},
        **{name: LOTS for name in ("submit_per_user", "run_per_user", "login_per_user")},
    )
    app = create_app(config)
    app.testing = True
    yield app
    state(app).close()


def _from(address: str) -> dict[str, Any]:
    return {"environ_base": {"REMOTE_ADDR": address}}


def _register(client: FlaskClient, address: str) -> int:
    body = {"username": f"v6user{next(_n)}", "password": PASSWORD}
    return client.post("/api/register", json=body, **_from(address)).status_code


def _login(client: FlaskClient, address: str) -> int:
    body = {"username": "ada", "password": PASSWORD}
    return client.post("/api/token", json=body, **_from(address)).status_code


def _submit(client: FlaskClient, address: str) -> int:
    token = client.application.config["ADA"]
    body = {"problem": "add-two", "code": f"{GOOD}# {next(_n)}\n"}
    return client.post("/api/submissions", json=body, headers=token, **_from(address)).status_code


def _run(client: FlaskClient, address: str) -> int:
    # A learner of their own each time (one run per learner at a time), registered from an
    # IPv4 address of its own (registrations have their own limit).
    n = next(_n)
    name = f"runner{n}"
    ipv4 = _from(f"10.0.{n // 250}.{n % 250 + 1}")
    client.post("/api/register", json={"username": name, "password": PASSWORD}, **ipv4)
    login = {"username": name, "password": PASSWORD}
    token = client.post("/api/token", json=login, **ipv4).json["token"]
    headers = {"Authorization": f"Bearer {token}"}
    body = {"code": GOOD}
    return client.post(
        "/api/problems/add-torch/run", json=body, headers=headers, **_from(address)
    ).status_code


def _quiz_run(client: FlaskClient, address: str) -> int:
    data = {"code": '{"sum": 3}', "csrf_token": csrf_of(client)}
    return client.post("/problems/quiz/run", data=data, **_from(address)).status_code


SENDERS: dict[str, Callable[[FlaskClient, str], int]] = {
    "registration": _register,
    "log-in": _login,
    "submission": _submit,
    "run": _run,
    "quiz run": _quiz_run,
}


@pytest.mark.parametrize("what", sorted(SENDERS))
def test_addresses_of_one_ipv6_64_share_one_limit(app: Flask, what: str) -> None:
    client = app.test_client()
    app.config["ADA"] = make_user(client, "ada").auth
    send = SENDERS[what]
    codes = [send(client, address) for address in ONE_NET]
    assert codes[:2] != [429, 429] and codes[2] == 429, codes
    assert send(client, OTHER_NET) != 429


def test_a_client_is_its_ipv4_address_or_its_ipv6_64() -> None:
    assert client_key("2001:db8:1:2:aaaa::1") == client_key("2001:db8:1:2:bbbb::2")
    assert client_key("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert client_key("fe80::1%eth0") == "fe80::/64"
    assert client_key("::ffff:192.0.2.7") == client_key("192.0.2.7") == "192.0.2.7"
    assert client_key("unknown") == "unknown"
