"""The registration form shows its rules before anything is refused (issue 23, section 8),
in both languages, and the username pattern they describe is unchanged (the look-alike
protection of docs/WEB.md's threat model depends on it)."""

from __future__ import annotations

from flask.testing import FlaskClient

from web.accounts.auth import PASSWORD_MAX, PASSWORD_MIN, USERNAME_RE


def test_the_registration_form_shows_the_username_and_password_rules_before_a_failure(
    client: FlaskClient,
) -> None:
    en = client.get("/register", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert 'id="username-rule"' in en and 'aria-describedby="username-rule"' in en
    assert "3-32 characters: letters, digits, &#39;_&#39;, &#39;.&#39;, &#39;-&#39;" in en
    assert f"{PASSWORD_MIN}-{PASSWORD_MAX} characters." in en
    assert 'role="alert"' not in en, "nothing has been refused yet"
    zh = client.get("/register", headers={"Accept-Language": "zh-CN"}).get_data(as_text=True)
    assert "3-32 个字符，只能用字母、数字" in zh
    assert f"{PASSWORD_MIN}-{PASSWORD_MAX} 个字符。" in zh


def test_the_rules_describe_the_username_pattern_unchanged() -> None:
    assert USERNAME_RE.pattern == r"[A-Za-z0-9_][A-Za-z0-9_.-]{2,31}"
    assert (PASSWORD_MIN, PASSWORD_MAX) == (8, 128)
