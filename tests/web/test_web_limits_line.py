"""The problem page's limits read as a sentence in each language."""

from __future__ import annotations

from flask.testing import FlaskClient


def test_the_limits_line_reads_naturally_in_chinese_and_in_english(client: FlaskClient) -> None:
    zh = client.get("/problems/add-two", headers={"Accept-Language": "zh-CN"}).get_data(
        as_text=True
    )
    en = client.get("/problems/add-two", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "限制：每个用例 " in zh and " 秒，内存 " in zh and "每个用例时限" not in zh
    assert "Limits: " in en and " s per case, " in en and " MB memory" in en
