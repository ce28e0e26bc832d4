"""The runner's Python API: what the web app, the queue workers and `judge run --sandbox` call.

A long-lived process holds one `Runner` (warm workers and the reference cache) and
calls `runner.judge(slug, source, seed=...)`; a one-off caller uses `judge(...)`,
which starts a fresh sandbox for the one job.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType

from judge.grading.report import Report
from judge.kinds.registry import kind_of
from judge.problem.device import DevicePolicy, DeviceUnavailable
from judge.problem.limits import Limits
from judge.problem.problemset import ProblemSet
from judge.problem.spec import ProblemSpec
from judge.run.custom_run import CustomRun, run_custom
from judge.run.judge_source import TrustedInputs, internal_error
from judge.run.phase import Phase, Progress, Stage
from runner.launchers.sandbox import SandboxLauncher, SandboxUnavailable
from runner.refcache import Entry, ReferenceCache
from runner.seedstock import IdleGate, SeedStock


class Runner:
    """A long-lived judge: a pool of warm sandboxed workers and a reference cache.

    `server=True` (the default) refuses to start unless a probe job really runs in its
    own user, pid, network and mount namespaces as a non-root user.
    """

    def __init__(
        self,
        pool_size: int = 2,
        *,
        problems_root: Path | None = None,
        server: bool = True,
        # Every submission has a seed of its own, so an entry is used again only by the public
        # seed's Runs and a submission's retries and rejudges; a torch problem's entry holds
        # megabytes of expected tensors, and 32 of them bound that.
        cache_entries: int = 32,
        # Hidden seeds kept ready per problem, their reference answers computed while the
        # judge is idle (runner.seedstock); 0 (the default outside a server) computes none.
        ready_seeds: int = 0,
        # How each job's device is chosen (judge/problem/device.py): CUDA where this host
        # has a GPU and the problem allows it (auto), always the CPU, or always CUDA.
        device: DevicePolicy = DevicePolicy.AUTO,
        # How widely a speed problem's paired timings may spread and still be scored (a
        # fraction of their median; None: the judge's own, speed_spec.MAX_RELATIVE_SPREAD).
        speed_spread_limit: float | None = None,
    ) -> None:
        self.problems = ProblemSet(problems_root)
        self.speed_spread_limit = speed_spread_limit
        self.launcher = SandboxLauncher(pool_size=pool_size, policy=device)
        self.cache = ReferenceCache(cache_entries)
        self.gate = IdleGate()
        self.stock = SeedStock(self.cache, self.gate, ready_seeds, prepare=self._calibrate)
        if server:
            self._require_isolation()

    def _calibrate(self, problem: ProblemSpec, entry: Entry) -> None:
        self.cache.cpu_for(problem, entry.cases, self.launcher)

    def ready_seed(self, problem: str | ProblemSpec) -> int | None:
        """A hidden seed whose cases and reference answers are ready (judging with it waits
        for the submission alone), or None; see runner.seedstock."""
        spec = self.problems.get(problem) if isinstance(problem, str) else problem
        if not kind_of(spec).runs_code:
            return None
        return self.stock.take(spec)

    def _require_isolation(self) -> None:
        from runner.doctor import server_ready
        from runner.probe import probe

        facts = probe(self.launcher)
        if not server_ready({"probe": facts}):
            self.close()
            raise SandboxUnavailable(f"jobs would not be isolated here: {facts}")

    def judge(
        self,
        problem: str | ProblemSpec,
        source: str,
        *,
        seed: int | None = None,
        limits: Limits | None = None,
        progress: Progress | None = None,
    ) -> Report:
        """Judge `source`; raises SourceError for unacceptable source, else returns a report.
        `progress(phase)` says where it has got to (judge.run.phase), as it moves."""
        spec = self.problems.get(problem) if isinstance(problem, str) else problem
        kind = kind_of(spec)
        if not kind.runs_code:  # answers are data: judged here, nothing is run
            return kind.judge(spec, source, seed=seed)
        # The seed stock waits meanwhile; a timed judging also waits for its step to end.
        with self.gate.busy(exclusive=spec.speed is not None):
            return self._judge(spec, source, seed, limits, progress)

    def _judge(
        self,
        spec: ProblemSpec,
        source: str,
        seed: int | None,
        limits: Limits | None,
        progress: Progress | None,
    ) -> Report:
        kind = kind_of(spec)
        try:
            device = self.launcher.device_for(spec)
        except DeviceUnavailable as exc:  # a clear IE, never a crash: this host cannot judge it
            return internal_error(spec, seed, str(exc))
        try:
            if progress is not None and not self.cache.has(spec, seed):
                progress(Phase(Stage.PREPARING, 0, 0))  # its count is known once they exist
            entry = self.cache.entry(spec, seed)
            if progress is not None and self.cache.needs_calibration(spec, entry.cases, device):
                progress(Phase.before(Stage.CALIBRATING, entry.cases))
            cpu = self.cache.cpu(spec, seed, self.launcher)
        except Exception:
            import traceback

            return internal_error(spec, seed, traceback.format_exc())
        trusted = TrustedInputs(entry.cases, entry.expected, entry.budget, cpu)
        trusted.spread_limit = self.speed_spread_limit
        return kind.judge(
            spec,
            source,
            seed=seed,
            launcher=self.launcher,
            limits=limits,
            progress=progress,
            trusted=trusted,
        )

    def try_input(
        self, problem: str | ProblemSpec, args: object, source: str | None = None
    ) -> CustomRun:
        """A learner's own arguments on the reference and, when `source` is given, on their
        code, each a job on these warm workers ("Try your own input"). Raises SourceError
        for unacceptable source; a refused input is in the result."""
        spec = self.problems.get(problem) if isinstance(problem, str) else problem
        with self.gate.busy():
            return run_custom(spec, args, source, self.launcher)

    def close(self) -> None:
        self.stock.close()
        self.launcher.close()

    def __enter__(self) -> Runner:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def judge(
    problem: str | ProblemSpec,
    source: str,
    *,
    seed: int | None = None,
    limits: Limits | None = None,
    problems_root: Path | None = None,
) -> Report:
    """Judge one submission in a fresh sandbox (no warm pool): simple, and slow for torch."""
    spec = ProblemSet(problems_root).get(problem) if isinstance(problem, str) else problem
    launcher = sandbox_launcher()
    try:
        return kind_of(spec).judge(spec, source, seed=seed, launcher=launcher, limits=limits)
    finally:
        launcher.close()


def sandbox_launcher(device: DevicePolicy = DevicePolicy.AUTO) -> SandboxLauncher:
    """The launcher `judge run --sandbox` uses: exactly the server's sandbox, one job each."""
    return SandboxLauncher(pool_size=0, policy=device)
