"""The whole site works under its Content-Security-Policy in Chromium, and the policy is
really enforced (issue 10, section 6: no CSP, so an injected script would have run)."""

from __future__ import annotations

from typing import Any

import pytest

from .pages import (
    RUN,
    SUBMIT,
    open_problem,
    reference_source,
    register,
    replace_code,
    wait_until_python_ready,
)

pytestmark = pytest.mark.browser

# Collected in every document before its own scripts run.
LISTEN = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(`${e.effectiveDirective} blocked ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}`);
});
"""


def watch(page: Any) -> list[str]:
    """Every CSP complaint Chromium prints (page or worker), from now on."""
    complaints: list[str] = []
    page.add_init_script(LISTEN)

    def on_console(message: Any) -> None:
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            complaints.append(message.text)

    page.on("console", on_console)
    page.on("worker", lambda worker: worker.on("console", on_console))
    return complaints


def violations(page: Any) -> list[str]:
    return list(page.evaluate("() => window.__cspViolations || []"))


def test_the_main_pages_and_a_run_in_the_editor_raise_no_csp_violation(page: Any) -> None:
    complaints = watch(page)
    seen: list[str] = []
    register(page, prefix="csp")
    for path in ["/", "/leaderboard", "/submissions", "/register", "/problems/kv-bytes-per-token"]:
        response = page.goto(path)
        assert "script-src 'self' 'nonce-" in response.headers["content-security-policy"]
        page.wait_for_load_state("networkidle")
        seen += violations(page)
    open_problem(page)
    wait_until_python_ready(page)
    assert page.locator(".statement .katex").count() > 0  # KaTeX's inline styles applied
    replace_code(page, reference_source())
    page.click(RUN)
    page.wait_for_selector(".report[data-verdict=AC]")
    page.click(SUBMIT)
    page.wait_for_selector(".live .submission[data-verdict]:not([data-verdict=''])")
    seen += violations(page)
    page.goto("/submissions")
    page.locator("a[href^='/submissions/']").first.click()
    page.wait_for_load_state("networkidle")
    seen += violations(page)
    assert seen == [] and complaints == []


def test_an_injected_inline_script_does_not_run(page: Any) -> None:
    """The policy is enforced, not only sent: script without the nonce is blocked."""
    watch(page)
    page.goto("/")
    ran = page.evaluate(
        """() => {
        const script = document.createElement("script");
        script.textContent = "window.__injected = true";
        document.body.appendChild(script);
        return window.__injected === true;
    }"""
    )
    assert ran is False
    page.wait_for_function("() => window.__cspViolations.length > 0")
    assert violations(page)[0].startswith("script-src-elem blocked inline")
