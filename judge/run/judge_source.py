"""From a submission to its report, top to bottom.

cases    = build_cases(problem, seed)                  # trusted: public + generated
cpu      = calibrate(problem, cases, launcher, ...)    # trusted: the reference's CPU time, in
                                                       # a child like the submission's (only
                                                       # problems with calibrated cases)
expected = expected_observations(problem, cases)       # trusted: the reference, in this process
outcome  = Session(launcher.launch(...)).run(...)      # untrusted: the submission, in a child
                                                       # (a speed problem's reference is timed
                                                       # in a trusted child of its own before
                                                       # each timed case: pacer.py)
report   = grade each case against expected            # trusted: checkers decide
speed    = score the timed cases (speed problems)      # trusted: the parent's own clock

This is how a code problem is judged (judge/kinds/code_kind.py); a problem of another kind
is judged by its kind (judge.kinds.registry.kind_of(problem).judge), which asks this module
only for what it shares with code: the report of the judge's own failure, the seed's name.
"""

from __future__ import annotations

from judge.grading import environment
from judge.grading.case_grading import (
    coarse_ms,
    conceal,
    crash_verdict,
    describe_failure,
    grade,
    time_step_ms,
)
from judge.grading.outcome import Outcome, OutcomeKind
from judge.grading.report import CaseResult, Report
from judge.messages import load_error_said, with_message
from judge.pictures.reproduce import Reproducer
from judge.problem.cases import PUBLIC_SEED, Case, build_cases, load_module
from judge.problem.device import Device, DevicePolicy, choose_device, gpu_nodes
from judge.problem.limits import CpuAllowance, Limits
from judge.problem.spec import ProblemKind, ProblemSpec
from judge.record import replace
from judge.run.budget import ResultBudget, budget_for
from judge.run.launch import LocalLauncher
from judge.run.load_message import can_refuse_processes, load_message
from judge.run.phase import Phase, Progress, Stage
from judge.run.session import Session, SessionResult
from judge.run.source_check import validate_source
from judge.run.workdir import WorkDir
from judge.verdict import Verdict, overall
from judge.wire.codec import normalize

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable

    from judge.run.interfaces import Launcher


def judge_source(
    problem: ProblemSpec,
    source: str,
    *,
    seed: int | None = None,
    launcher: Launcher | None = None,
    limits: Limits | None = None,
    expected: dict[str, object] | None = None,
    progress: Progress | None = None,
    budget: ResultBudget | None = None,
    cpu: dict[str, CpuAllowance] | None = None,
    cases: list[Case] | None = None,
    solution: str = "",
    pace: bool = True,
    observed: dict[str, object] | None = None,
    spread_limit: float | None = None,
    keep: Callable[[list[Case], dict[str, object]], None] | None = None,
) -> Report:
    """Judge `source` on `problem`. Raises SourceError for unacceptable source; any failure of
    the judge itself becomes an IE report, never a WA. `cases` (built for this `seed`),
    `expected`, `budget` and `cpu` (the calibrated cases' allowances) may come from a cache
    (the runner's); else they are computed here. `solution` names the learner's file in the
    tests that reproduce failing public cases (default: the name `judge init` writes).
    The job's device is the launcher's choice (its device_for), made here before anything
    runs: DeviceUnavailable, a JudgeError, where this host cannot judge the problem.
    `pace` False runs a speed problem's timed cases without the reference timed beside each
    (`judge check`, which proves verdicts: the score is then the unpaired rate). `observed`,
    when given, receives each case's observation as it arrived (`judge check` compares the
    reference's with the answers computed in this process: two runs of the reference).
    `spread_limit`: how widely a speed problem's paired timings may spread and still be
    scored (None: the judge's own; a platform's setting otherwise). `keep`, when given, is
    called with the cases and their expected answers where this run computed both."""
    if problem.kind != ProblemKind.CODE:
        raise ValueError(f"{problem.slug} is a {problem.kind} problem: its kind judges it")
    source = validate_source(source)
    device = job_device_for(problem, launcher)
    run = TrustedInputs(cases, expected, budget, cpu, device)
    run.pace = pace
    run.observed = observed
    run.spread_limit = spread_limit
    run.keep = keep if cases is None and expected is None else None
    try:
        cases = run.cases if run.cases is not None else build_cases(problem, seed)
        limits = limits or problem.limits
        reproducer = Reproducer(problem.slug, problem.cases_source(), solution)
        paced: dict[str, float] = {}
        result, graded = _run_child(
            problem, source, cases, launcher, limits, run, progress, reproducer, paced
        )
    except Exception:  # noqa: BLE001 - whatever broke, it was the judge, not the submission
        import traceback

        return internal_error(problem, seed, traceback.format_exc())
    name = launcher.name if launcher else LocalLauncher.name
    env = environment.describe(problem.tier, name, device)
    if problem.cpu_rule is not None:
        env["cpu_rule"] = _cpu_rule_said(launcher, run.cpu is not None, device)
    if device is Device.CUDA:
        env["device_memory"] = _device_memory_said(launcher)
    return build_report(problem, cases, graded, result, seed, env, limits, paced, spread_limit)


def job_device_for(problem: ProblemSpec, launcher: Launcher | None) -> Device:
    """The device the job runs on: the launcher's choice, or a local child's (auto)."""
    if launcher is not None:
        return launcher.device_for(problem)
    return choose_device(DevicePolicy.AUTO, problem.devices, bool(gpu_nodes()), problem.slug)


_DEVICE_MEMORY_OFF = "not watched: this launcher does not bound device memory"


def _device_memory_said(launcher: Launcher | None) -> str:
    """The report's line on a CUDA job's device memory: how the launcher bounds it (the
    sandbox's NVML watcher, runner/device_memory.py), or that nothing does."""
    said = getattr(launcher, "device_memory_watch", None)
    return said if isinstance(said, str) else _DEVICE_MEMORY_OFF


_CPU_RULE_OFF = "not enforced: this machine cannot count a child's CPU time"


_WALL_RULE = (
    "enforced as a wall-time rule: the job ran on CUDA, where the kernel's CPU count misses "
    "the GPU's work; its time against the reference's on the same device, both measured by "
    "the judge"
)


def _cpu_rule_said(launcher: Launcher | None, counted: bool, device: Device) -> str:
    """The report's line on the CPU rule: whether it held, and how the CPU time was counted."""
    if device is Device.CUDA:
        return _WALL_RULE
    if not counted:
        return _CPU_RULE_OFF
    how = launcher.cpu_accounting if launcher is not None else LocalLauncher.cpu_accounting
    helpers = "new processes refused" if can_refuse_processes() else "processes allowed"
    return f"enforced: CPU time counted by {how}; {helpers}"


class TrustedInputs:
    """What the trusted side brings to a run on one seed: cached (the runner's cache, `judge
    check`'s per-seed memo) or None, and then computed once the run needs it."""

    __slots__ = (
        "budget", "cases", "cpu", "device", "expected", "keep", "observed", "pace", "spread_limit"
    )  # fmt: skip

    def __init__(
        self,
        cases: list[Case] | None = None,
        expected: dict[str, object] | None = None,
        budget: ResultBudget | None = None,
        cpu: dict[str, CpuAllowance] | None = None,
        device: Device = Device.CPU,  # the job's; the expected answers are the CPU's always
    ) -> None:
        self.cases, self.expected, self.budget, self.cpu = cases, expected, budget, cpu
        self.device = device
        self.pace = True  # a speed problem's reference timed beside each timed case
        self.observed: dict[str, object] | None = None  # where a run's observations go
        self.spread_limit: float | None = None  # a speed score's widest spread (None: the judge's)
        # Given the cases and their expected answers once a run has computed them (not when
        # they were given): the command line keeps them for its next run (answer_cache.py).
        self.keep: Callable[[list[Case], dict[str, object]], None] | None = None


def expected_observations(
    problem: ProblemSpec, cases: list[Case], before_case: Callable[[], None] | None = None
) -> dict[str, object]:
    """The answers a judging compares with: `run_reference` on these cases. The one name
    a test harness may memoise (tests/answer_cache.py, one computation per test run);
    whatever must be a run of its own (the runner's cache, `judge check`'s determinism
    check) calls run_reference."""
    return run_reference(problem, cases, before_case)


def run_reference(
    problem: ProblemSpec, cases: list[Case], before_case: Callable[[], None] | None = None
) -> dict[str, object]:
    """Run every case on reference.py in this (trusted) process; canonical wire form.
    `before_case` is called before each case (a background caller waits there while the
    judge is busy)."""
    driver = load_module(problem.cases_source(), "cases", str(problem.path / "cases.py"))
    reference = load_module(
        problem.reference_source(), "reference", str(problem.path / "reference.py")
    )
    expected: dict[str, object] = {}
    for case in cases:
        if before_case is not None:
            before_case()
        expected[case.name] = canonical(driver.run(reference, case.args))
    return expected


def canonical(value: object) -> object:
    """The observation as the parent would receive it (tuples become lists, tensors TensorData)."""
    return normalize(value)


def _run_child(
    problem: ProblemSpec,
    source: str,
    cases: list[Case],
    launcher: Launcher | None,
    limits: Limits,
    run: TrustedInputs,
    progress: Progress | None,
    reproducer: Reproducer,
    paced: dict[str, float],
) -> tuple[SessionResult, list[CaseResult]]:
    """Run the cases in a child; each is graded the moment its answer arrives. A speed
    problem's reference is timed before each timed case; its seconds go into `paced`."""
    if launcher is not None:  # it brings its own working place (the sandbox's /box)
        return _drive(problem, source, cases, launcher, limits, run, progress, reproducer, paced)
    with WorkDir() as workdir:
        local = LocalLauncher(workdir.path)
        return _drive(problem, source, cases, local, limits, run, progress, reproducer, paced)


def _drive(
    problem: ProblemSpec,
    source: str,
    cases: list[Case],
    launcher: Launcher,
    limits: Limits,
    run: TrustedInputs,
    progress: Progress | None,
    reproducer: Reproducer,
    paced: dict[str, float],
) -> tuple[SessionResult, list[CaseResult]]:
    if run.cpu is None and problem.cpu_rule is not None:
        from judge.run.calibration import calibrate  # only problems with calibrated cases

        if progress is not None:
            progress(Phase.before(Stage.CALIBRATING, cases))
        reference = load_message(problem, problem.reference_source(), run.device)
        run.cpu = calibrate(problem, cases, launcher, limits, reference, run.device)
    handle = launcher.launch(problem, limits, run.device)
    pacer, driver = None, None
    try:
        if problem.hosted:
            from judge.run.hosted_session import start_driver  # only hosted problems pay

            # Its interpreter, torch and the models load while everything else prepares.
            driver = start_driver(problem, launcher, limits, run.device)
        if problem.speed is not None and run.pace:
            from judge.run.pacer import Pacer  # only speed problems pay for it

            # Its child starts now, beside the submission's: both load meanwhile.
            pacer = Pacer(problem, handle, launcher, limits, run.device)
        # The child's interpreter starts while the reference runs here.
        want = run.expected
        if want is None:
            if progress is not None:
                progress(Phase.before(Stage.PREPARING, cases))
            want = expected_observations(problem, cases)
            if run.keep is not None:
                run.keep(cases, want)
        graded: list[CaseResult] = []

        def grade_now(case: Case, outcome: Outcome) -> None:
            allowance = run.cpu.get(case.name) if run.cpu else None
            # The reference's answers are the CPU's: a CUDA job is checked with the
            # tolerance its problem states for CUDA (judge/problem/checkers.py CheckSpec.on).
            check = case.check.on(run.device.value)
            on_device = case if check is case.check else replace(case, check=check)
            if run.observed is not None and outcome.kind is OutcomeKind.RESULT:
                run.observed[case.name] = outcome.observation
            graded.append(grade(on_device, outcome, want[case.name], reproducer, allowance))

        def not_worth_timing(case: Case) -> bool:
            # A speed run is scored only when every case is AC: once one is not, the warm-up
            # and the timed repetitions left would keep the learner waiting for a score that
            # cannot come (decode-throughput's Run of its starter took 53 s).
            speed_only = case.timed is not None or case.warm_up
            return speed_only and any(r.verdict is not Verdict.AC for r in graded)

        budget = run.budget or budget_for(want)
        if driver is not None:
            from judge.run.hosted_session import HostedSession

            session: Session = HostedSession(handle, driver, limits, problem.tier, budget)
        else:
            session = Session(handle, limits, problem.tier, budget, run.cpu)
        skip = not_worth_timing if problem.speed is not None else None
        load = load_message(problem, source, run.device)
        counted = None
        if progress is not None:
            progress(Phase.next_of(cases, 0))
            counted = _phases(progress, cases)
        result = session.run(load, cases, counted, grade_now, skip, pacer.before if pacer else None)
        if pacer is not None:
            paced.update(pacer.seconds)
        # Cases never sent (the submission did not load) are graded here: "not run".
        done = len(graded)
        for case, outcome in zip(cases[done:], result.outcomes[done:], strict=True):
            grade_now(case, outcome)
        return result, graded
    finally:
        try:
            if pacer is not None:
                pacer.close()
        finally:
            try:
                if driver is not None:
                    driver.cleanup()
            finally:
                handle.cleanup()


def _phases(progress: Progress, cases: list[Case]) -> Callable[[int, int], None]:
    """The session's count of cases done, said as what runs next."""

    def counted(done: int, total: int) -> None:
        progress(Phase.next_of(cases, done))

    return counted


def build_report(
    problem: ProblemSpec,
    cases: list[Case],
    graded: list[CaseResult],
    result: SessionResult,
    seed: int | None,
    env: dict[str, str],
    limits: Limits,
    paced: dict[str, float] | None = None,
    spread_limit: float | None = None,
) -> Report:
    """`graded` holds a result for every case the session reported, in order. Hidden cases
    leave here concealed (grading/case_grading.py): their times rounded up, as is the run's, which
    holds theirs."""
    if len(graded) != len(cases):
        raise RuntimeError(f"{len(graded)} graded results for {len(cases)} cases")
    speed = None
    if problem.speed is not None:
        from judge.grading.speed_scoring import score_run  # only speed problems pay for it

        where = (problem.slug, problem.version, env.get("launcher", ""), env.get("device", "cpu"))
        # On the exact times; paired with the reference's where it was timed beside them.
        graded, speed = score_run(
            problem.speed, cases, graded, env, paced or None, where, spread_limit
        )
    step = time_step_ms(limits.time_per_case_s)
    results = tuple(r if r.public else conceal(r, step) for r in graded)
    hidden = any(not r.public for r in results)
    verdict, compile_error = _overall(results, result)
    return Report(
        problem=problem.slug,
        version=problem.version,
        verdict=verdict,
        score=problem.points if verdict is Verdict.AC else 0,
        cases=results,
        time_ms=coarse_ms(result.time_ms, step) if hidden else result.time_ms,
        compile_error=compile_error,
        stdout=result.stdout.decode("utf-8", "replace"),
        stderr=result.stderr.decode("utf-8", "replace"),
        seed=seed_kind(seed),
        environment=env,
        withheld_stdout=result.withheld_stdout.decode("utf-8", "replace"),
        withheld_stderr=result.withheld_stderr.decode("utf-8", "replace"),
        speed=speed if verdict is Verdict.AC else None,
    )


def _overall(
    results: tuple[CaseResult, ...], result: SessionResult
) -> tuple[Verdict, dict[str, object] | None]:
    if result.load_error is not None:
        error = _load_error_said(result.load_error)
        error.pop("type", None)
        return (Verdict.RE if error.get("kind") == "exception" else Verdict.CE), error
    if result.startup_failure is not None:
        verdict, message = describe_failure(result.startup_failure)
        return verdict, with_message({"kind": "startup", "line": None}, message)
    verdicts = [r.verdict for r in results if r.verdict is not None]
    if result.output_exceeded:
        verdicts.append(Verdict.OLE)
    if result.trailing_failure is not None:
        verdict, message = describe_failure(result.trailing_failure)
        verdicts.append(verdict)
        return overall(verdicts), with_message({"kind": "exit", "line": None}, message)
    return overall(verdicts), None


def _load_error_said(error: dict[str, object]) -> dict[str, object]:
    """The child's load error in the catalog's words; a withheld module's names its part."""
    from judge.problem.withheld import message_for, withheld_name  # imported for a load error only

    module = (
        withheld_name(str(error.get("message", ""))) if error.get("kind") == "withheld" else None
    )
    return with_message(error, message_for(module)) if module else load_error_said(error)


def internal_error(problem: ProblemSpec | str, seed: int | None, detail: str) -> Report:
    """The report of a run the judge could not complete: IE, with `detail` for admins.
    `problem` may be a bare slug when no spec could be loaded."""
    slug, version = (problem, "") if isinstance(problem, str) else (problem.slug, problem.version)
    return Report(
        problem=slug,
        version=version,
        verdict=Verdict.IE,
        score=0,
        cases=(),
        seed=seed_kind(seed),
        internal_error=detail[-8000:],
    )


def seed_kind(seed: int | None) -> str:
    """A report's `seed`: "public", or "secret" for any other (never the seed itself)."""
    return "public" if seed is None or seed == PUBLIC_SEED else "secret"


__all__ = ["crash_verdict", "expected_observations", "judge_source", "run_reference"]
