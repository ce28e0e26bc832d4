"""Reports as text for a terminal: a table of cases and the first failure in full."""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Sequence

from judge.report import CaseResult, Report
from judge.spec import ProblemSpec
from judge.verdict import Verdict

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.speed import SpeedResult

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.questions import Question

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]|\x1b\[[0-9;?]*[ -/]*[@-~]")
MAX_MESSAGE = 70
MAX_OUTPUT_SHOWN = 2000


def clean(text: str) -> str:
    """Drop terminal escapes and control characters from text the submission produced."""
    return _CONTROL.sub("", text)


def width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(width(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [cell + " " * (w - width(cell)) for cell, w in zip(row, widths, strict=True)]
        lines.append("  ".join(cells).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def print_report(report: Report, problem: ProblemSpec, lang: str = "en") -> None:
    out = sys.stdout
    if report.compile_error is not None:
        error = report.compile_error
        where = f" (line {error['line']})" if error.get("line") else ""
        print(
            f"{report.verdict.value}  {report.verdict.label}{where}: "
            f"{clean(str(error.get('message', '')))}",
            file=out,
        )
        if error.get("traceback"):
            print(clean(str(error["traceback"])), file=out)
    elif report.verdict is Verdict.IE:
        print("IE  Internal error: the judge failed, not your code. Please report it.", file=out)
        if report.internal_error:
            print(report.internal_error, file=sys.stderr)
    else:
        print(
            table(
                ("#", "case", "verdict", "time", "message"),
                [_row(i, c) for i, c in enumerate(report.cases, 1)],
            ),
            file=out,
        )
        _print_failure(report.first_failure)
        _print_explanations(report, lang)
    _print_output(report)
    passed = f"{report.passed}/{len(report.cases)} cases passed"
    summary = f"{report.verdict.value}  {report.verdict.label}: {passed}"
    print(f"\n{summary} · {report.time_ms:.0f} ms · {problem.slug} @ {problem.version}", file=out)
    if report.speed is not None:
        print(speed_line(report.speed), file=out)


def speed_line(speed: SpeedResult) -> str:
    """A speed problem's score in one line: median, quartiles, repetitions, hardware."""
    hw = speed.hardware
    where = ", ".join(
        f"{key} {hw[key]}" for key in ("cpu", "device", "threads", "torch") if key in hw
    )
    return (
        f"score {speed.value:,.1f} {speed.unit} (median of {speed.repetitions}; "
        f"q1 {speed.q1:,.1f}, q3 {speed.q3:,.1f}, IQR {speed.iqr:,.1f}) · {where}"
    )


def _row(i: int, case: CaseResult) -> list[str]:
    message = clean(case.message)
    if case.got is not None:
        message += f": got {clean(case.got)}, expected {clean(str(case.expected))}"
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 1] + "…"
    verdict = case.verdict.value if case.verdict else "—"
    return [str(i), case.name, verdict, f"{case.time_ms:.1f} ms", message]


def _print_failure(case: CaseResult | None) -> None:
    if case is None:
        return
    print(f"\nfirst failure: {case.name} ({case.verdict.label if case.verdict else ''})")
    print(f"  {clean(case.message)}")
    if case.got is not None:
        print(f"  got:      {clean(case.got)}")
        print(f"  expected: {clean(str(case.expected))}")
    if case.traceback:
        print("  " + clean(case.traceback).replace("\n", "\n  "))


def _print_explanations(report: Report, lang: str) -> None:
    """A quiz's right answers, with why they are right."""
    for case in report.cases:
        if case.explanation:
            text = case.explanation.get(lang) or next(iter(case.explanation.values()))
            print(f"\n{case.name}: right. " + clean(text).strip().replace("\n", "\n  "))


# Keyed by QuestionType's values: render is loaded by every `judge run`, the quiz
# machinery (judge.questions) only for quizzes.
_ANSWER_FORM = {
    "number": "a number",
    "choice": 'one option id, such as "{first}"',
    "choices": 'a list of option ids, such as ["{first}"]',
    "expression": 'an expression in {variables}, in a string, such as "{first} + 1"',
}


def quiz_text(questions: Sequence[Question], lang: str) -> str:
    """A quiz's questions for a terminal: prompt, options, and the form of each answer."""
    blocks = []
    for i, q in enumerate(questions, 1):
        first = q.options[0].id if q.options else (q.variables[0] if q.variables else "")
        form = _ANSWER_FORM[q.type.value].format(first=first, variables=", ".join(q.variables))
        if q.unit:
            form += f" ({q.unit[lang]})"
        lines = [f"{i}. {q.id}", "   " + q.prompt[lang].strip().replace("\n", "\n   ")]
        lines += [f"   - {o.id}: {o.text[lang]}" for o in q.options]
        if q.public_points:
            points = "; ".join(", ".join(f"{k}={v}" for k, v in p.items()) for p in q.public_points)
            lines.append(f"   public points (Run checks these): {points}")
        lines.append(f"   answer: {form}")
        blocks.append("\n".join(lines))
    return "\n\n" + "\n\n".join(blocks)


def _print_output(report: Report) -> None:
    for name, text in (("stdout", report.stdout), ("stderr", report.stderr)):
        if text.strip():
            shown = clean(text[:MAX_OUTPUT_SHOWN])
            more = "\n  …" if len(text) > MAX_OUTPUT_SHOWN else ""
            print(f"\nyour {name}:\n  " + shown.rstrip().replace("\n", "\n  ") + more)
    if report.output_withheld:
        print("\noutput printed during the hidden cases is withheld (it could reveal their inputs)")
