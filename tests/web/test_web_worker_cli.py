"""`judge worker` refuses what cannot work, with one line naming the setting to fix."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _worker(tmp_path: Path, *args: str, broker: str = "redis://127.0.0.1:1/0") -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env |= {"JUDGE_INSTANCE": str(tmp_path / "instance")}
    if broker:
        env["JUDGE_BROKER_URL"] = broker
    done = subprocess.run(
        [sys.executable, str(REPO / "judge.py"), "worker", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )
    return done.returncode, done.stderr


@pytest.mark.skipif(bool(glob.glob("/dev/nvidia[0-9]*")), reason="this machine has a GPU")
def test_a_gpu_worker_on_a_machine_without_a_gpu_is_refused(tmp_path: Path) -> None:
    code, err = _worker(tmp_path, "--queues", "cpu,gpu")
    assert code == 2
    assert "has no NVIDIA GPU" in err and "--queues cpu" in err


@pytest.mark.parametrize(
    ("args", "broker", "message"),
    [
        (("--queues", "tpu"), "redis://127.0.0.1:1/0", "unknown queue 'tpu'"),
        (("--queues", ","), "redis://127.0.0.1:1/0", "at least one of: cpu, gpu"),
        (("--concurrency", "0"), "redis://127.0.0.1:1/0", "--concurrency must be at least 1"),
        ((), "", "needs JUDGE_BROKER_URL"),
    ],
)
def test_a_worker_that_cannot_work_says_why_and_exits_2(
    tmp_path: Path, args: tuple[str, ...], broker: str, message: str
) -> None:
    code, err = _worker(tmp_path, *args, broker=broker)
    assert code == 2, err
    assert message in err
    assert "Traceback" not in err


def test_a_server_with_an_unknown_queue_kind_says_why_and_exits_2(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env |= {"JUDGE_INSTANCE": str(tmp_path / "instance"), "JUDGE_QUEUE": "rabbit"}
    done = subprocess.run(
        [sys.executable, str(REPO / "judge.py"), "serve", "--port", "0"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert "JUDGE_QUEUE must be one of embedded, celery, not 'rabbit'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_server_with_an_unknown_device_policy_says_why_and_exits_2(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env |= {"JUDGE_INSTANCE": str(tmp_path / "instance"), "JUDGE_DEVICE": "gpu"}
    done = subprocess.run(
        [sys.executable, str(REPO / "judge.py"), "serve", "--port", "0"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert "JUDGE_DEVICE must be one of auto, cpu, cuda, not 'gpu'" in done.stderr
    assert "Traceback" not in done.stderr
