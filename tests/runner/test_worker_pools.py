"""Which warm worker a job is forked from, and how many jobs run at once."""

from __future__ import annotations

import json
import threading

from judge.problem.spec import ProblemSpec
from runner.launchers.sandbox import SandboxLauncher


def _report_json(report) -> dict:  # type: ignore[no-untyped-def]
    line = next(x for x in report.stdout.splitlines() if x.startswith("REPORT "))
    return json.loads(line.removeprefix("REPORT "))


def test_a_browser_tier_job_is_forked_from_a_worker_without_torch(harness) -> None:  # type: ignore[no-untyped-def]
    """The shared launcher preloads torch, as on the server; a browser-tier job's worker
    must not carry it (a fork and exit of a torch worker cost such a job ~20 ms)."""
    assert "torch" in harness.launcher.inner.preload
    report = harness.judge(
        """
        import json, sys
        print("REPORT " + json.dumps({"torch": "torch" in sys.modules}))
        def add(a, b):
            return a + b
        """
    )
    assert report.verdict.value == "AC", report.to_dict()
    assert _report_json(report) == {"torch": False}


def test_no_more_jobs_run_at_once_than_the_pool_size_across_both_pools(
    add_problem: ProblemSpec,
) -> None:
    # A cheap module stands in for torch: the two tiers still get pools of their own.
    launcher = SandboxLauncher(pool_size=1, preload=("json",))
    limits = add_problem.limits
    try:
        assert launcher.pools["browser"] is not launcher.pools["torch"]
        first = launcher.launch_tier("browser", limits)
        second: list[object] = []
        waiting = threading.Thread(
            target=lambda: second.append(launcher.launch_tier("torch", limits)), daemon=True
        )
        waiting.start()
        waiting.join(1.0)
        assert second == [], "a second job started while the only slot was taken"
        first.cleanup()
        waiting.join(30)
        assert len(second) == 1
        second[0].cleanup()  # type: ignore[attr-defined]
    finally:
        launcher.close()
