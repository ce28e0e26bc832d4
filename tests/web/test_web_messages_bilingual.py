"""Every message a learner or an admin reads from the server comes from the zh/en catalog
(web/i18n.py): no error is raised with text written in place, in one language."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from web_helpers import make_user

from web.i18n import MESSAGES

WEB = Path(__file__).resolve().parents[2] / "web"
# The errors and where their message is: ApiError(status, code, message), the domain
# errors (code, message), RateLimited(message, retry).
MESSAGE_AT = {"ApiError": 2, "Invalid": 1, "NotFound": 1, "Conflict": 1, "RateLimited": 0}


def _written_in_place(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def test_no_error_is_raised_with_a_message_written_in_place() -> None:
    found = []
    for path in sorted(WEB.rglob("*.py")):
        if "node_modules" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            at = MESSAGE_AT.get(node.func.id)
            if at is not None and len(node.args) > at and _written_in_place(node.args[at]):
                found.append(f"{path.relative_to(WEB.parent)}:{node.lineno}")
    assert found == []


def test_every_catalog_message_has_both_languages_with_the_same_fields() -> None:
    import string

    for key, entry in MESSAGES.items():
        assert set(entry) == {"en", "zh"}, key
        fields = [
            {f for _, f, _, _ in string.Formatter().parse(entry[lang]) if f} for lang in entry
        ]
        assert fields[0] == fields[1] or key == "err_http_other", key


@pytest.mark.parametrize(
    ("method", "path", "headers_of", "status", "zh_part"),
    [
        ("get", "/api/problems/kv-byte", None, 404, "没有题目"),
        ("post", "/api/admin/problems/add-two/hidden", "user", 403, "只有管理员"),
        ("put", "/api/problems", None, 405, "不允许使用 PUT"),
        ("get", "/api/no/such/thing", None, 404, "没有这个页面"),
        ("get", "/api/submissions/1/events", None, 404, "没有"),
    ],
)
def test_server_errors_speak_chinese_to_a_chinese_browser(
    client: FlaskClient,
    method: str,
    path: str,
    headers_of: str | None,
    status: int,
    zh_part: str,
) -> None:
    headers = {"Accept-Language": "zh-CN,zh;q=0.9", "Accept": "application/json"}
    if headers_of == "user":
        headers |= make_user(client, "ada").auth
    response = getattr(client, method)(path, headers=headers, json={})
    assert response.status_code == status
    assert zh_part in response.json["error"]["message"]
