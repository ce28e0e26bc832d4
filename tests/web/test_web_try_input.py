"""A code problem's page says how to try one's own input (`judge run --input`), in the
reader's language, naming the problem and the file `judge init` writes."""

from __future__ import annotations

from flask.testing import FlaskClient


def test_a_code_problem_page_names_the_command_that_runs_your_own_input(
    client: FlaskClient,
) -> None:
    en = client.get("/problems/add-two", headers={"Accept-Language": "en"}).get_data(as_text=True)
    zh = client.get("/problems/add-two", headers={"Accept-Language": "zh-CN"}).get_data(
        as_text=True
    )
    command = "<code>judge run add-two add_two.py --input args.json</code>"
    assert "Try your own input:" in en and command in en
    assert "试试你自己的输入：" in zh and command in zh
