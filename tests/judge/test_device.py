"""Each job's device: chosen by the trusted parent from the policy, the problem's devices and
the host's GPU nodes, sent to the child in the load message, read there by the driver, and
named in the report. No GPU here: a CUDA job is faked by a launcher that chooses CUDA (the
child only records the choice and drops the address-space limit; the drivers below never
import torch), and the selection is a pure function of its three inputs."""

from __future__ import annotations

import itertools

import pytest
from problem_factory import MakeProblem

from judge.errors import SpecError
from judge.problem.checkers import CheckSpec, Tolerance
from judge.problem.device import (
    Device,
    DevicePolicy,
    DeviceUnavailable,
    choose_device,
    parse_policy,
)
from judge.problem.limits import Limits
from judge.problem.spec import ProblemSpec, load_problem, parse_check
from judge.run.job_device import job_device, on_cpu
from judge.run.judge_source import judge_source
from judge.run.launch import LocalLauncher, LocalProcess
from judge.run.load_message import load_message
from judge.verdict import Verdict

CPU, CUDA = Device.CPU, Device.CUDA

# (policy, the problem's devices, GPU nodes present) -> the device, or the message key of
# the DeviceUnavailable it raises: every combination, so none is left to chance.
MATRIX = {
    (DevicePolicy.AUTO, (CPU,), False): CPU,
    (DevicePolicy.AUTO, (CPU,), True): CPU,
    (DevicePolicy.AUTO, (CPU, CUDA), False): CPU,
    (DevicePolicy.AUTO, (CPU, CUDA), True): CUDA,
    (DevicePolicy.AUTO, (CUDA,), False): "device.no_gpu",
    (DevicePolicy.AUTO, (CUDA,), True): CUDA,
    (DevicePolicy.CPU, (CPU,), False): CPU,
    (DevicePolicy.CPU, (CPU,), True): CPU,
    (DevicePolicy.CPU, (CPU, CUDA), False): CPU,
    (DevicePolicy.CPU, (CPU, CUDA), True): CPU,
    (DevicePolicy.CPU, (CUDA,), False): "device.only_cuda",
    (DevicePolicy.CPU, (CUDA,), True): "device.only_cuda",
    (DevicePolicy.CUDA, (CPU,), False): "device.only_cpu",
    (DevicePolicy.CUDA, (CPU,), True): "device.only_cpu",
    (DevicePolicy.CUDA, (CPU, CUDA), False): "device.no_gpu",
    (DevicePolicy.CUDA, (CPU, CUDA), True): CUDA,
    (DevicePolicy.CUDA, (CUDA,), False): "device.no_gpu",
    (DevicePolicy.CUDA, (CUDA,), True): CUDA,
}


def test_the_matrix_covers_every_policy_devices_and_host() -> None:
    lists = [(CPU,), (CPU, CUDA), (CUDA,)]
    assert set(MATRIX) == set(itertools.product(DevicePolicy, lists, (False, True)))


@pytest.mark.parametrize(("key", "want"), MATRIX.items(), ids=lambda v: str(v))
def test_the_device_follows_the_policy_the_problem_and_the_host(
    key: tuple[DevicePolicy, tuple[Device, ...], bool], want: Device | str
) -> None:
    policy, allowed, has_gpu = key
    if isinstance(want, Device):
        assert choose_device(policy, allowed, has_gpu, "p") is want
        return
    with pytest.raises(DeviceUnavailable) as caught:
        choose_device(policy, allowed, has_gpu, "p")
    said = caught.value.said
    assert said is not None and said.key == want
    assert str(caught.value).startswith("p ") and said.render("zh").startswith("p ")


def test_a_policy_is_read_from_its_text_with_a_precise_error() -> None:
    assert parse_policy("auto") is DevicePolicy.AUTO
    assert parse_policy(" CUDA ") is DevicePolicy.CUDA
    with pytest.raises(
        ValueError, match=r"^JUDGE_DEVICE must be one of auto, cpu, cuda, not 'gpu'$"
    ):
        parse_policy("gpu")
    with pytest.raises(ValueError, match=r"^--device must be one of"):
        parse_policy("", "--device")


# ---------------------------------------------------------------- problem.toml `devices`

TOML = """\
slug = "work"
order = 1
chapter = "test"
tier = "{tier}"
points = 10
tags = ["test"]
{devices}

[title]
zh = "计算"
en = "Work"

[limits]
time_per_case_s = 10.0
total_time_s = 60.0
memory_mb = 256
{rule}

[submission]
names = ["total"]

[checker]
kind = "value"
"""


def _toml(devices: str = "", tier: str = "torch", rule: str = "") -> str:
    return TOML.format(devices=devices, tier=tier, rule=rule)


def _load(make_problem: MakeProblem, toml: str, cases: str | None = None) -> ProblemSpec:
    files = {"reference.py": LINEAR} | ({"cases.py": cases} if cases else {})
    return load_problem(make_problem(files=files, slug="work", toml=toml))


def test_a_problem_runs_on_the_cpu_unless_it_lists_devices(make_problem: MakeProblem) -> None:
    assert _load(make_problem, _toml()).devices == (CPU,)
    listed = _load(make_problem, _toml('devices = ["cuda", "cpu"]'))
    assert listed.devices == (CUDA, CPU)
    assert listed.summary()["devices"] == ["cuda", "cpu"]


@pytest.mark.parametrize(
    ("line", "tier", "message"),
    [
        ('devices = ["gpu"]', "torch", "devices: 'gpu' must be one of cpu, cuda"),
        ("devices = []", "torch", "devices: must list at least one of cpu, cuda"),
        ('devices = ["cpu", "cpu"]', "torch", "devices: lists a device twice"),
        ('devices = "cuda"', "torch", "devices: must be a list of strings"),
        ('devices = ["cuda"]', "browser", "devices: only a torch-tier problem can run on a GPU"),
        ('device = "cuda"', "torch", "device: replaced by `devices"),
    ],
)
def test_a_bad_devices_list_is_a_spec_error_naming_the_field(
    make_problem: MakeProblem, line: str, tier: str, message: str
) -> None:
    with pytest.raises(SpecError, match=message):
        _load(make_problem, _toml(line, tier))


# ---------------------------------------------------------------- tolerances per device


def test_a_cuda_tolerance_applies_to_cuda_jobs_only() -> None:
    spec = parse_check(
        {"kind": "tensor", "rel_tol": 1e-4, "abs_tol": 1e-5, "cuda": {"rel_tol": 1e-3}},
        "p.toml",
        "checker",
    )
    assert spec.cuda == Tolerance(1e-3, 1e-5)  # an absent key keeps the CPU's
    assert spec.on("cpu") == CheckSpec("tensor", 1e-4, 1e-5)
    assert spec.on("cuda") == CheckSpec("tensor", 1e-3, 1e-5)
    assert parse_check({"rel_tol": 1e-4}, "p", "checker").on("cuda") == CheckSpec("value", 1e-4)
    assert spec.to_dict()["cuda"] == {"rel_tol": 1e-3, "abs_tol": 1e-5}


@pytest.mark.parametrize(
    ("cuda", "message"),
    [
        ({"rel_tol": 1e-6}, "checker.cuda: must not be tighter than the CPU's tolerance"),
        ({"rtol": 1e-3}, "checker.cuda.rtol: unknown key"),
        ({"abs_tol": -1}, "checker.cuda.abs_tol: -1 must be a number >= 0"),
        (1e-3, "checker.cuda: must be a table with rel_tol and abs_tol"),
    ],
)
def test_a_bad_cuda_tolerance_is_a_spec_error(cuda: object, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        parse_check({"rel_tol": 1e-4, "abs_tol": 1e-5, "cuda": cuda}, "p.toml", "checker")


# ---------------------------------------------------------------- the job's device, end to end

# The driver says which device the judge told the child; the reference's side (this process)
# always computes on the CPU.
CASES = """\
from judge.run.job_device import job_device


def public_cases():
    return [
        {"name": "small", "args": 50},
        {"name": "long", "args": 3000, "calibrated": True},
    ]


def generated_cases(rng):
    return []


def run(sub, args):
    print("DEVICE " + job_device().value)
    return sub.total(args)
"""
LINEAR = """\
def total(n):
    acc = 0
    for _ in range(40):
        for i in range(n):
            acc += i
    return acc // 40
"""
SLEEPY = """\
import time


def total(n):
    if n > 100:
        time.sleep(1.5)  # wall time, not CPU time
    return n * (n - 1) // 2
"""
RULE = "cpu_vs_reference = 2.0\ncpu_slack_s = 0.05"


class _FakeCuda(LocalLauncher):
    """A local launcher that chooses CUDA for every job: the child records the choice and
    goes without the address-space limit; these drivers never touch torch."""

    def device_for(self, problem: ProblemSpec) -> Device:
        return CUDA

    def launch(self, problem: ProblemSpec, limits: Limits, device: Device = CPU) -> LocalProcess:
        assert device is CUDA  # the parent's choice reaches the launch, calibration's too
        return super().launch(problem, limits, device)


def test_the_parents_choice_reaches_the_driver_and_the_report(
    make_problem: MakeProblem, tmp_path
) -> None:
    problem = _load(make_problem, _toml('devices = ["cpu", "cuda"]', rule=RULE), CASES)
    report = judge_source(problem, LINEAR, launcher=_FakeCuda(tmp_path))
    assert report.verdict is Verdict.AC, report.to_dict()
    assert report.cases[0].stdout == "DEVICE cuda\n"
    assert report.environment["device"] == "cuda"
    on_cpu_run = judge_source(problem, LINEAR, launcher=LocalLauncher(tmp_path))
    assert on_cpu_run.cases[0].stdout == "DEVICE cpu\n"
    assert on_cpu_run.environment["device"] == "cpu"


def test_the_load_message_carries_the_device_and_the_parent_stays_on_the_cpu(
    make_problem: MakeProblem,
) -> None:
    problem = _load(make_problem, _toml('devices = ["cpu", "cuda"]'))
    assert load_message(problem, "", CUDA)["device"] == "cuda"
    assert load_message(problem, "")["device"] == "cpu"
    assert job_device() is CPU  # where the references are computed


def test_a_problem_listed_only_for_cuda_is_refused_clearly_without_a_gpu(
    make_problem: MakeProblem, tmp_path
) -> None:
    problem = _load(make_problem, _toml('devices = ["cuda"]', rule=RULE), CASES)
    launcher = LocalLauncher(tmp_path, policy=DevicePolicy.CPU)
    with pytest.raises(DeviceUnavailable, match="work is judged only on a CUDA GPU"):
        judge_source(problem, LINEAR, launcher=launcher)


# ---------------------------------------------------------------- the CPU rule on a CUDA job


def test_on_a_cuda_job_the_cpu_rule_counts_wall_time(make_problem: MakeProblem, tmp_path) -> None:
    """On the CPU, sleeping costs no CPU time and passes the rule; on CUDA, where the kernel's
    CPU count would miss the GPU's work, the same rule counts the parent's wall clock, so
    the sleep is over the reference's 2 x + 0.05 s."""
    problem = _load(make_problem, _toml('devices = ["cpu", "cuda"]', rule=RULE), CASES)
    on_cpu_report = judge_source(problem, SLEEPY, launcher=LocalLauncher(tmp_path))
    assert on_cpu_report.verdict is Verdict.AC, on_cpu_report.to_dict()
    on_gpu = judge_source(problem, SLEEPY, launcher=_FakeCuda(tmp_path))
    assert on_gpu.verdict is Verdict.TLE, on_gpu.to_dict()
    failure = on_gpu.first_failure
    assert failure is not None and failure.name == "long" and failure.text is not None
    assert failure.text.key == "case.wall_public"
    assert failure.text.render("zh").startswith("在 GPU 上用时到")
    assert on_gpu.environment["cpu_rule"].startswith("enforced as a wall-time rule")


def test_the_reference_passes_its_own_wall_time_rule(make_problem: MakeProblem, tmp_path) -> None:
    problem = _load(make_problem, _toml('devices = ["cpu", "cuda"]', rule=RULE), CASES)
    report = judge_source(problem, LINEAR, launcher=_FakeCuda(tmp_path))
    assert report.verdict is Verdict.AC, report.to_dict()
    long = report.cases[1]
    assert long.text is not None and long.text.key == "case.wall_within"


# ---------------------------------------------------------------- results back to the CPU


def test_on_cpu_moves_every_tensor_in_a_value_and_leaves_the_rest() -> None:
    torch = pytest.importorskip("torch")
    plain = {"a": [1, 2.5, "x", None], "b": (True,)}
    assert on_cpu(plain) == plain
    t = torch.arange(3)
    moved = on_cpu({"k": [t, (t,)], "n": 3})
    assert isinstance(moved, dict) and moved["n"] == 3
    assert torch.equal(moved["k"][0], t) and isinstance(moved["k"][1], tuple)


def test_the_rule_counts_cpu_time_on_the_cpu_and_wall_time_on_cuda() -> None:
    from judge.grading.outcome import Outcome, OutcomeKind
    from judge.problem.limits import CpuAllowance, CpuRule, RuleClock
    from judge.run.calibration import measured, rule_clock
    from judge.run.session import over_wall_allowance

    assert rule_clock(CPU) is RuleClock.CPU and rule_clock(CUDA) is RuleClock.WALL
    outcome = Outcome(OutcomeKind.RESULT, 1500.0, cpu_s=0.2)
    assert measured(outcome, RuleClock.CPU) == 0.2
    assert measured(outcome, RuleClock.WALL) == 1.5
    rule = CpuRule(factor=2.5, slack_s=0.25)
    wall = CpuAllowance(rule, 0.4, RuleClock.WALL)  # allows 2.5 x 0.4 + 0.25 = 1.25 s
    assert not over_wall_allowance(wall, 1250.0) and over_wall_allowance(wall, 1251.0)
    assert not over_wall_allowance(CpuAllowance(rule, 0.4), 99_000.0)  # CPU time: not the clock
    assert wall.describe(public=False).startswith("took more time than this case allows")
