"""The result of judging one submission: per-case results and the overall verdict."""

from __future__ import annotations

from judge.messages import Message
from judge.record import default, record
from judge.verdict import Verdict

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

    from judge.pictures.case_input import CaseInput
    from judge.pictures.value_diff import ValueDiff
    from judge.problem.speed_spec import SpeedResult


@record
class CaseResult:
    name: str
    public: bool
    verdict: Verdict | None  # None: not run (an earlier case ended the process)
    time_ms: float = 0.0
    message: str = ""
    got: str | None = None  # public cases only
    expected: str | None = None  # public cases only
    # Public cases only: the submission's line the error points at, and the traceback.
    line: int | None = None
    traceback: str = ""
    # A quiz question answered correctly: why it is right, {"zh", "en"}; None otherwise.
    explanation: dict[str, str] | None = None
    # A failing public case only (never a hidden one): what the driver was given, and a
    # snippet of Python that reproduces the case (judge/pictures: case_input.py, reproduce.py).
    input: CaseInput | None = None
    test: str | None = None
    # What the submission printed while this case ran; public cases only (hidden cases'
    # output is withheld, see Report).
    stdout: str = ""
    stderr: str = ""
    # `message` as data (judge/messages.py), so a reader can have it in their language;
    # `message` is its English text. None: a message from before the catalog, text only.
    text: Message | None = None
    # A wrong answer on a public case: the whole value around the first difference, both
    # sides, the difference marked (judge/pictures/value_diff.py); None where the
    # difference is the whole value already.
    diff: ValueDiff | None = None

    @classmethod
    def saying(cls, message: Message, **fields: Any) -> CaseResult:
        """A result whose message is `message`: its English text and the message itself."""
        return cls(message=message.en, text=message, **fields)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "name": self.name,
            "public": self.public,
            "verdict": self.verdict.value if self.verdict else None,
            "time_ms": round(self.time_ms, 3),
            "message": self.message,
        }
        if self.text is not None:
            out["message_key"], out["message_args"] = self.text.key, self.text.args_dict()
        if self.public and self.got is not None:
            out["got"], out["expected"] = self.got, self.expected
        if self.explanation is not None:
            out["explanation"] = dict(self.explanation)
        if self.public:  # the core never sets these on a hidden case; this keeps it so
            if self.line is not None:
                out["line"] = self.line
            if self.traceback:
                out["traceback"] = self.traceback
            if self.diff is not None:
                out["diff"] = self.diff.to_dict()
            if self.input is not None:
                out["input"] = self.input.to_dict()
            if self.test is not None:
                out["test"] = self.test
            if self.stdout:
                out["stdout"] = self.stdout
            if self.stderr:
                out["stderr"] = self.stderr
        return out

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> CaseResult:
        # Imported here: `judge run` never reads a report back, and only a failing public
        # case has an input (start-up time).
        from judge.pictures.case_input import CaseInput
        from judge.pictures.value_diff import ValueDiff

        verdict = data.get("verdict")
        return cls(
            name=str(data["name"]),
            public=bool(data.get("public")),
            verdict=Verdict(verdict) if verdict else None,
            time_ms=float(data.get("time_ms", 0.0)),  # type: ignore[arg-type]
            message=str(data.get("message", "")),
            got=data.get("got"),  # type: ignore[arg-type]
            expected=data.get("expected"),  # type: ignore[arg-type]
            line=data.get("line"),  # type: ignore[arg-type]
            traceback=str(data.get("traceback", "")),
            explanation=_explanation(data.get("explanation")),
            input=CaseInput.from_dict(data["input"]) if data.get("input") is not None else None,
            test=str(data["test"]) if data.get("test") is not None else None,
            stdout=str(data.get("stdout", "")),
            stderr=str(data.get("stderr", "")),
            text=Message.from_parts(data.get("message_key"), data.get("message_args")),
            diff=ValueDiff.from_dict(data.get("diff")),
        )


def _explanation(value: object) -> dict[str, str] | None:
    if value is None:
        return None
    if type(value) is not dict or any(type(v) is not str for v in value.values()):
        raise ValueError(f"a case's explanation is a {{lang: text}} object, not {value!r:.60}")
    return {str(k): v for k, v in value.items()}


@record
class Report:
    problem: str
    version: str
    verdict: Verdict
    score: int
    cases: tuple[CaseResult, ...]
    time_ms: float = 0.0
    compile_error: dict[str, object] | None = None
    # Everything the submission printed, in order (each public case's part is also on its
    # CaseResult), up to the first hidden case.
    stdout: str = ""
    stderr: str = ""
    seed: str = "public"  # "public" or "secret"; the secret itself is never recorded here
    environment: dict[str, str] = default(factory=dict)
    internal_error: str | None = None  # for administrators; learners see only "IE"
    # Printed from the first hidden case on: it could carry the hidden inputs, so only
    # administrators see it; the learner's report says that it was withheld.
    withheld_stdout: str = ""
    withheld_stderr: str = ""
    # A speed problem's accepted run: its score, spread and hardware (judge/problem/speed_spec.py).
    speed: SpeedResult | None = None

    @property
    def output_withheld(self) -> bool:
        return bool(self.withheld_stdout or self.withheld_stderr)

    @property
    def passed(self) -> int:
        return sum(1 for c in self.cases if c.verdict is Verdict.AC)

    @property
    def first_failure(self) -> CaseResult | None:
        return next((c for c in self.cases if c.verdict not in (Verdict.AC, None)), None)

    def to_dict(self, admin: bool = False) -> dict[str, object]:
        out: dict[str, object] = {
            "problem": self.problem,
            "version": self.version,
            "verdict": self.verdict.value,
            "score": self.score,
            "passed": self.passed,
            "total": len(self.cases),
            "cases": [c.to_dict() for c in self.cases],
            "time_ms": round(self.time_ms, 3),
            "stdout": self.stdout,
            "stderr": self.stderr,
            "seed": self.seed,
            "environment": dict(self.environment),
        }
        if self.compile_error is not None:
            out["compile_error"] = dict(self.compile_error)
        if self.output_withheld:
            out["output_withheld"] = True
        if self.speed is not None:
            out["speed"] = self.speed.to_dict()
        if admin and self.internal_error:
            out["internal_error"] = self.internal_error
        if admin and self.output_withheld:
            out["withheld_stdout"] = self.withheld_stdout
            out["withheld_stderr"] = self.withheld_stderr
        return out

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Report:
        speed = None
        if data.get("speed") is not None:
            from judge.problem.speed_spec import SpeedResult

            speed = SpeedResult.from_dict(data["speed"])
        return cls(
            problem=str(data["problem"]),
            version=str(data["version"]),
            verdict=Verdict(data["verdict"]),
            score=int(data.get("score", 0)),  # type: ignore[call-overload]
            cases=tuple(CaseResult.from_dict(c) for c in data.get("cases", [])),  # type: ignore[attr-defined]
            time_ms=float(data.get("time_ms", 0.0)),  # type: ignore[arg-type]
            compile_error=data.get("compile_error"),  # type: ignore[arg-type]
            stdout=str(data.get("stdout", "")),
            stderr=str(data.get("stderr", "")),
            seed=str(data.get("seed", "public")),
            environment=dict(data.get("environment", {})),  # type: ignore[call-overload]
            internal_error=data.get("internal_error"),  # type: ignore[arg-type]
            withheld_stdout=str(data.get("withheld_stdout", "")),
            withheld_stderr=str(data.get("withheld_stderr", "")),
            speed=speed,
        )
