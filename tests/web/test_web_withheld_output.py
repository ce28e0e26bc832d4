"""Output printed during hidden cases reaches admins only (issue 10, section 8).

A submission could print its arguments inside the hidden cases, read them in its own
report and hard-code the answers for the secret seed.
"""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient
from web_helpers import make_user, submit, wait_judged

PRINTS_ITS_ARGS = "def add(a, b):\n    print('ARGS', a, b)\n    return a + b\n"


def test_the_owner_sees_public_output_and_that_the_rest_was_withheld(
    app: Flask, client: FlaskClient
) -> None:
    ada = make_user(client, "ada")
    sid = submit(client, ada, PRINTS_ITS_ARGS)
    wait_judged(app)
    view = client.get(f"/api/submissions/{sid}", headers=ada.auth).json
    assert view["verdict"] == "AC"
    public = sum(1 for c in view["cases"] if c["public"])
    assert view["stdout"].count("ARGS") == public
    assert view["output_withheld"] is True
    assert "withheld_stdout" not in view and "withheld_stderr" not in view


def test_an_admin_sees_what_the_hidden_cases_printed(app: Flask, client: FlaskClient) -> None:
    ada = make_user(client, "ada")
    root = make_user(client, "root", admin=True)
    sid = submit(client, ada, PRINTS_ITS_ARGS)
    wait_judged(app)
    view = client.get(f"/api/submissions/{sid}", headers=root.auth).json
    hidden = sum(1 for c in view["cases"] if not c["public"])
    assert hidden and view["withheld_stdout"].count("ARGS") == hidden


def test_the_owner_sees_each_public_cases_output_input_and_test_and_no_hidden_ones(
    app: Flask, client: FlaskClient
) -> None:
    """A submission's failing public cases show their input and a test that reproduces
    them, and each public case its own output; a hidden case shows none of the three."""
    ada = make_user(client, "ada")
    sid = submit(client, ada, "def add(a, b):\n    print('ARGS', a, b)\n    return a - b\n")
    wait_judged(app)
    view = client.get(f"/api/submissions/{sid}", headers=ada.auth).json
    small = next(c for c in view["cases"] if c["name"] == "small")
    assert small["stdout"] == "ARGS 1 2\n"
    assert small["input"] == {"args": {"a": 1, "b": 2}} and "expected = 3" in small["test"]
    hidden = [c for c in view["cases"] if not c["public"]]
    assert hidden and all(c["verdict"] == "WA" for c in hidden)
    assert not any({"stdout", "stderr", "input", "test"} & set(c) for c in hidden)
