"""Two real judged submissions of decode-throughput (the batched reference and a correct
solution that decodes each prompt on its own) land on the speed board, ranked by the
overlap rule from their own stored quartiles. Judged in the runner's sandbox, as the
server does, with the real problem and models: no report is made up."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sandbox_host import needs_sandbox
from web_helpers import (
    Account,
    make_config,
    make_user,
    state,
    submit,
    timed_repetitions,
    wait_judged,
)

from web import create_app

pytestmark = [pytest.mark.slow, pytest.mark.sandbox, needs_sandbox]
ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = ROOT / "problems"
SLUG = "decode-throughput"
REFERENCE = (PROBLEMS / SLUG / "reference.py").read_text(encoding="utf-8")
# Correct (every row is the batch's greedy continuation, token for token) and slower: eight
# batches of one, so every decode step reads all the weights for a single row.
ONE_BY_ONE = '''import torch

from mini_llm import generate


@torch.inference_mode()
def decode_batch(model, prompts, max_new_tokens):
    """Each prompt decoded on its own, as a batch of one."""
    return [generate(model, [p], max_new_tokens, stop_tokens=())[0] for p in prompts]
'''


def overlap_rank(entry: dict[str, float], others: list[dict[str, float]]) -> int:
    """docs/WEB.md: 1 + the number of entries whose q1 is above this entry's q3."""
    return 1 + sum(1 for other in others if other["q1"] > entry["q3"])


# A run whose paired ratios spread past the judge's limit is accepted but not recorded, and
# the learner is asked to submit again (docs/API.md, "unsteady"): on a loaded machine (the
# suite's other worker beside this one) that happens, and the test does what the learner does.
ATTEMPTS = 3


def scored_run(app: Flask, client: FlaskClient, account: Account, code: str) -> tuple[int, dict]:
    """Submit `code` until its speed is recorded; the submission's id and its speed."""
    unsteady = []
    for _ in range(ATTEMPTS):
        sid = submit(client, account, code, SLUG)
        wait_judged(app)
        view = client.get(f"/api/submissions/{sid}", headers=account.auth).json
        assert (view["verdict"], view["environment"]["launcher"]) == ("AC", "sandbox"), view
        speed = view["speed"]
        assert (speed["unit"], speed["repetitions"]) == ("tokens/s", timed_repetitions())
        assert speed["q1"] <= speed["value"] <= speed["q3"]
        if speed["state"] == "scored":
            return sid, speed
        assert speed["relative_spread"] > speed["spread_limit"], speed
        unsteady.append(speed["relative_spread"])
    pytest.fail(f"every run was too unsteady to record (spreads {unsteady})")


def test_two_real_speed_runs_are_ranked_by_whether_their_ranges_overlap(
    tmp_path: Path, db_template: Path
) -> None:
    # One judging thread: the runs are timed one after the other, not against each other.
    config = make_config(tmp_path, db_template, PROBLEMS, judge_backend="sandbox", workers=1)
    app = create_app(config)
    try:
        client = app.test_client()
        ada, bob = make_user(client, "ada"), make_user(client, "bob")
        ids, speeds = {}, {}
        for who, account, code in (("ada", ada, REFERENCE), ("bob", bob, ONE_BY_ONE)):
            ids[who], speeds[who] = scored_run(app, client, account, code)

        board = client.get(f"/api/leaderboard/{SLUG}").json["speed"][0]["entries"]
        assert [e["user"] for e in board] == sorted(speeds, key=lambda w: -speeds[w]["value"])
        for entry in board:
            mine = speeds[entry["user"]]
            assert entry["submission"] == ids[entry["user"]]
            assert (entry["value"], entry["q1"], entry["q3"]) == (
                mine["value"],
                mine["q1"],
                mine["q3"],
            )
            others = [s for who, s in speeds.items() if who != entry["user"]]
            assert entry["rank"] == overlap_rank(mine, others), (entry, speeds)
        # The page shows the same ranks, in board order.
        page = client.get(f"/leaderboard/{SLUG}").get_data(as_text=True)
        for entry in board:
            assert f'<tr data-user="{entry["user"]}"><td>{entry["rank"]}</td>' in page
        print(
            "decode-throughput on the board:",
            ", ".join(
                f"{e['user']} #{e['rank']} {e['value']:.1f} ({e['q1']:.1f}-{e['q3']:.1f})"
                for e in board
            ),
        )
    finally:
        state(app).close()
