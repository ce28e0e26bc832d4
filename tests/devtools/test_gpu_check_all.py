"""`make gpu-check` (devtools/gpu_check_all.py): where no GPU is it skips and exits 0; where
one is, it names what is missing before running anything, runs each step within its share
of the budget and records the figures. The steps themselves run only on a GPU machine;
here each part is driven with stand-ins."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from devtools import gpu_check_all as gc


def test_without_a_gpu_it_prints_skip_and_exits_0(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(gc, "gpu_nodes", lambda: [])
    assert gc.main(["--out", str(tmp_path)]) == gc.EXIT_OK
    assert capsys.readouterr().out.startswith("SKIP: no NVIDIA device nodes")
    assert list(tmp_path.iterdir()) == []  # nothing measured, nothing written


def test_the_make_target_skips_on_this_machine_without_a_gpu() -> None:
    import subprocess

    if gc.gpu_nodes():
        pytest.skip("this machine has a GPU: make gpu-check would run the whole check")
    done = subprocess.run(
        [sys.executable, "-m", "devtools.gpu_check_all"],
        cwd=gc.REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout.split(":")[0]) == (0, "SKIP")


def test_a_gpu_machine_missing_a_requirement_is_told_what_and_nothing_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(gc, "gpu_nodes", lambda: ["/dev/nvidia0"])
    found = [
        gc.Requirement("torch with CUDA", False, "torch 2.5.1 is a CPU-only build"),
        gc.Requirement("bubblewrap", True, "/usr/bin/bwrap"),
    ]
    monkeypatch.setattr(gc, "requirements", lambda: found)
    monkeypatch.setattr(gc, "run_step", lambda *a: pytest.fail("a step ran"))
    assert gc.main(["--out", str(tmp_path)]) == gc.EXIT_MISSING
    out = capsys.readouterr().out
    assert "MISSING torch with CUDA" in out and "CPU-only build" in out
    assert "missing: torch with CUDA; nothing was run" in out
    record = json.loads((tmp_path / "gpu_check.json").read_text(encoding="utf-8"))
    assert record["steps"] == [] and record["requirements"][0]["ok"] is False


def test_this_cpu_only_machine_reports_torch_without_cuda_and_no_nvml() -> None:
    """The real requirement probes, on this machine (no GPU, a CPU build of torch)."""
    found = {r.name: r for r in gc.requirements()}
    assert found["bubblewrap"].ok
    torch_cuda, nvml = found["torch with CUDA"], found["NVML"]
    if torch_cuda.ok:
        pytest.skip("this machine's torch sees a CUDA device")
    assert "CPU-only build" in torch_cuda.detail or "sees no device" in torch_cuda.detail
    assert nvml.ok or "not loadable" in nvml.detail


def test_the_steps_share_the_budget_and_judge_each_problem_on_cuda_at_once() -> None:
    steps = gc.plan("python3.12", 480.0, ["decode-throughput", "kv-cache"])
    names = [s.name for s in steps]
    assert names == [
        "sandbox",
        "gpu-tests",
        "problem decode-throughput",
        "problem kv-cache",
        "bandwidth",
        "speed",
    ]
    # The problems run at the same time: the group's share is counted once.
    once = {s.group or s.name: s.timeout_s for s in steps}
    assert sum(once.values()) == pytest.approx(480.0)
    problems = [s for s in steps if s.group == "problems"]
    assert problems[1].command == (
        "python3.12", "judge.py", "check", "--sandbox", "--json", "kv-cache"
    )  # fmt: skip
    assert all(s.env == {"JUDGE_DEVICE": "cuda"} for s in problems)
    tests = next(s for s in steps if s.name == "gpu-tests")
    assert "-m" in tests.command and "gpu" in tests.command


def test_the_steps_of_a_group_run_at_the_same_time_and_the_rest_in_order() -> None:
    def sleeper(name: str, group: str = "") -> gc.Step:
        return gc.Step(name, (sys.executable, "-c", "import time; time.sleep(1)"), 30, group=group)

    steps = [sleeper("a"), sleeper("p1", "g"), sleeper("p2", "g"), sleeper("p3", "g")]
    started = time.monotonic()
    results = gc.run_steps(steps, time.monotonic() + 60)
    assert [r.name for r in results] == ["a", "p1", "p2", "p3"]
    assert all(r.state is gc.StepState.PASSED for r in results)
    assert time.monotonic() - started < 3.5  # 1 s, then the group's three together in ~1 s


def test_a_step_is_stopped_at_its_timeout_and_one_past_the_budget_is_not_started() -> None:
    slow = gc.Step("slow", (sys.executable, "-c", "import time; time.sleep(30)"), 0.5)
    result = gc.run_step(slow, time.monotonic() + 60)
    assert result.state is gc.StepState.TIMED_OUT and result.seconds == pytest.approx(0.5)
    late = gc.run_step(slow, time.monotonic() + gc.MIN_START_S / 2)
    assert late.state is gc.StepState.NOT_RUN


def test_a_steps_output_becomes_its_figures() -> None:
    sandbox = "GPU device nodes: /dev/nvidia0\nok   cuda-init                    AC\n"
    sandbox += "FAIL device-memory                MLE\n"
    assert gc.sandbox_figures(sandbox) == {"cuda-init": "AC (ok)", "device-memory": "MLE (FAIL)"}
    checks = [{"problem": "kv-cache", "ok": True, "checks": [{"name": "reference", "ok": True}]}]
    assert gc.problem_figures(json.dumps(checks)) == {"kv-cache": ["reference: ok"]}
    assert gc.last_json_figures('x\n{"copy_gb_s": 3900.2}\n') == {"copy_gb_s": 3900.2}


def test_the_record_is_json_and_a_markdown_section_for_benchmarks(tmp_path: Path) -> None:
    found = [gc.Requirement("bubblewrap", True, "/usr/bin/bwrap")]
    results = [
        gc.StepResult("bandwidth", gc.StepState.PASSED, 3.2, "python -c ...", {"copy_gb_s": 3.9e3}),
        gc.StepResult("speed", gc.StepState.TIMED_OUT, 96.0, "python bench/..."),
    ]
    gc.write_record(tmp_path, found, results)
    record = json.loads((tmp_path / "gpu_check.json").read_text(encoding="utf-8"))
    assert [s["state"] for s in record["steps"]] == ["passed", "timed out"]
    assert record["total_s"] == 99.2
    text = (tmp_path / "gpu_check.md").read_text(encoding="utf-8")
    assert text.startswith("## GPU check")
    assert "| speed | timed out | 96.0 |" in text and '"copy_gb_s": 3900.0' in text
