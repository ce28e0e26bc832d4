"""Reports as text for a terminal: a table of cases and the first failure in full."""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections.abc import Sequence

from judge import messages
from judge.commands.terminal import terminal_columns
from judge.grading.report import CaseResult, Report
from judge.messages import Message
from judge.problem.spec import ProblemSpec
from judge.textcap import bounded
from judge.verdict import Verdict

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.problem.speed_spec import SpeedResult
    from judge.run.custom_run import CustomRun

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]|\x1b\[[0-9;?]*[ -/]*[@-~]")
# What a submission printed is shown whole up to this many characters of each block (it
# may print a megabyte); `--json` has all the report holds.
MAX_OUTPUT_SHOWN = 64 * 1024
# A case's got/expected join its row in the table when they are this short together; the
# first failure shows them whole either way.
ROW_VALUES = 80
MIN_MESSAGE_WIDTH = 30  # a message column narrower than this wraps at this width anyway


def say(label: str, lang: str, **fields: str | int | Message) -> str:
    """One of `judge run`'s own lines (the catalog's `cli.*`), in `lang`."""
    return messages.say(f"cli.{label}", **fields).render(lang)


def _message(case: CaseResult, lang: str) -> str:
    """A case's message in `lang` where it is the catalog's, else its text as it is."""
    return case.text.render(lang) if case.text is not None else case.message


def _label(verdict: Verdict, lang: str) -> str:
    return messages.verdict_label(verdict.value, lang)


def clean(text: str) -> str:
    """Drop terminal escapes and control characters from text the submission produced."""
    return _CONTROL.sub("", text)


def width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def table(header: Sequence[str], rows: Sequence[Sequence[str]], wrap_last: bool = False) -> str:
    """Columns padded to their widest cell. With `wrap_last`, the last column wraps onto
    more lines to fit the terminal ($COLUMNS, else 100) instead of running past it; no
    cell is ever cut."""
    count = len(header)
    if wrap_last:
        widths = [max(width(r[i]) for r in [header, *rows]) for i in range(count - 1)]
        room = terminal_columns(100) - sum(widths) - 2 * (count - 1)
        last = max(MIN_MESSAGE_WIDTH, room)
        rows = [[*r[:-1], "\n".join(_wrapped(r[-1], last))] for r in rows]
    widths = [
        max(width(line) for r in [header, *rows] for line in r[i].split("\n")) for i in range(count)
    ]
    lines = []
    for row in [header, *rows]:
        parts = [cell.split("\n") for cell in row]
        for k in range(max(len(p) for p in parts)):
            cells = [p[k] if k < len(p) else "" for p in parts]
            padded = [c + " " * (w - width(c)) for c, w in zip(cells, widths, strict=True)]
            lines.append("  ".join(padded).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _wrapped(text: str, columns: int) -> list[str]:
    """`text` in lines of at most `columns` characters; every character kept (a word longer
    than a line is broken, never dropped)."""
    if not text:  # every row of a passing run: no need to import textwrap (2 ms) for it
        return [""]
    import textwrap  # noqa: PLC0415

    return textwrap.wrap(text, columns, break_on_hyphens=False) or [""]


def print_report(
    report: Report, problem: ProblemSpec, lang: str = "en", show_test: str | None = None
) -> None:
    """The report as text. `show_test`: the command that prints a case's test, ending in
    the option (`judge run SLUG FILE --show-test`), named next to the first failure."""
    out = sys.stdout
    if report.compile_error is not None:
        error = report.compile_error
        where = say("at_line", lang, line=str(error["line"])) if error.get("line") else ""
        text = messages.render(
            str(error.get("message", "")), error.get("message_key"), error.get("message_args"), lang
        )
        colon = say("colon", lang)
        print(
            f"{report.verdict.value}  {_label(report.verdict, lang)}{where}{colon}{clean(text)}",
            file=out,
        )
        if error.get("traceback"):
            print(clean(str(error["traceback"])), file=out)
    elif report.verdict is Verdict.IE:
        print(say("internal_error", lang), file=out)
        if report.internal_error:
            print(report.internal_error, file=sys.stderr)
    else:
        print(
            table(
                tuple(say("header", lang).split("|")),
                [_row(i, c, lang) for i, c in enumerate(report.cases, 1)],
                wrap_last=True,
            ),
            file=out,
        )
        _print_failure(report.first_failure, lang, show_test)
        _print_explanations(report, lang)
        _print_case_output(report, lang)
    _print_output(report, lang)
    passed = say("passed", lang, passed=report.passed, total=len(report.cases))
    colon = say("colon", lang)
    summary = f"{report.verdict.value}  {_label(report.verdict, lang)}{colon}{passed}"
    print(f"\n{summary} · {report.time_ms:.0f} ms · {problem.slug} @ {problem.version}", file=out)
    if report.speed is not None:
        print(speed_line(report.speed, lang), file=out)


def print_custom_run(ran: CustomRun, problem: ProblemSpec, path: str, lang: str = "en") -> None:
    """A custom input's run: the input, the reference's answer and the learner's beside it,
    then whether they agree (and the checker's reason where they do not)."""
    print(say("input_title", lang, path=path))
    print("  " + clean(bounded(json.dumps(ran.args, ensure_ascii=False), MAX_OUTPUT_SHOWN)))
    stop = ran.refused or ran.reference_failure
    if stop is not None:
        print(clean(stop.render(lang)))
        return
    from judge.problem.checkers import show

    print(f"  {say('input_reference', lang)}{_indented(clean(show(ran.reference)), 13)}")
    report = ran.report
    if report is None:
        return
    case = report.cases[0] if report.cases else None
    if report.compile_error is not None or case is None or case.verdict is None:
        print()
        print_report(report, problem, lang)
        return
    if case.verdict is Verdict.AC:
        yours = say("input_same", lang)
    elif case.got is not None:
        yours = clean(case.got)
    else:
        yours = f"{case.verdict.value}  {_label(case.verdict, lang)}"
    print(f"  {say('input_yours', lang)}{_indented(yours, 13)}")
    if case.verdict is not Verdict.AC:
        print(f"  {clean(_message(case, lang))}")
        if case.traceback:
            print("  " + clean(case.traceback).replace("\n", "\n  "))
    _print_case_output(report, lang)
    verdict = say("input_same" if case.verdict is Verdict.AC else "input_differs", lang)
    print(f"\n{case.verdict.value}  {verdict} · {case.time_ms:.0f} ms")


def speed_line(speed: SpeedResult, lang: str = "en") -> str:
    """A speed problem's score in one line: median, quartiles, repetitions, how it compares
    with the reference timed in turn with it, hardware; or why it was not scored."""
    from judge.problem.speed_spec import SpeedState

    spread = f"{100 * (speed.relative_spread or 0):.0f}"
    if speed.state is SpeedState.UNSTEADY:
        limit = f"{100 * speed.spread_limit:.0f}"
        return messages.say("speed.unsteady", spread=spread, limit=limit).render(lang)
    hw = speed.hardware
    where = ", ".join(
        f"{key} {hw[key]}" for key in ("cpu", "device", "threads", "torch") if key in hw
    )
    parts = [
        messages.say(
            "speed.score",
            value=f"{speed.value:,.1f}",
            unit=speed.unit,
            repetitions=speed.repetitions,
            q1=f"{speed.q1:,.1f}",
            q3=f"{speed.q3:,.1f}",
        ).render(lang)
    ]
    if speed.relative is not None:
        relative = f"{speed.relative:.2f}"
        parts.append(messages.say("speed.relative", relative=relative, spread=spread).render(lang))
    return " · ".join([*parts, where])


def _row(i: int, case: CaseResult, lang: str = "en") -> list[str]:
    message = clean(_message(case, lang))
    got, expected = case.got, case.expected
    if got is not None and len(got) + len(str(expected)) <= ROW_VALUES:
        message = say(
            "row_values", lang, text=message, got=clean(got), expected=clean(str(expected))
        )
    verdict = case.verdict.value if case.verdict else "—"
    return [str(i), case.name, verdict, say("ms", lang, ms=f"{case.time_ms:.1f}"), message]


def _print_failure(case: CaseResult | None, lang: str, show_test: str | None) -> None:
    if case is None:
        return
    label = _label(case.verdict, lang) if case.verdict else ""
    print("\n" + say("first_failure", lang, name=case.name, verdict=label))
    print(f"  {clean(_message(case, lang))}")
    if case.got is not None:
        print(f"  {say('got', lang)}{_indented(clean(case.got), 12)}")
        print(f"  {say('expected', lang)}{_indented(clean(str(case.expected)), 12)}")
    if case.diff is not None:
        print("\n".join(diff_lines(case, lang)))
    if case.traceback:
        print("  " + clean(case.traceback).replace("\n", "\n  "))
    if case.input is not None:
        print("\n".join(input_lines(case, lang)))
    if case.test is not None and show_test:
        print("\n  " + say("reproduce", lang, command=f"{show_test} {case.name}"))


def diff_lines(case: CaseResult, lang: str) -> list[str]:
    """The whole value around a wrong answer's first difference, both sides, each wrapped
    to the terminal with a line of ^ under the differing part."""
    diff = case.diff
    if diff is None:
        return []
    where = say("whole_where", lang, where=diff.where) if diff.where else ""
    lines = ["  " + say("whole_value", lang, where=where)]
    columns = max(MIN_MESSAGE_WIDTH, terminal_columns(100) - 16)
    for label, text, mark in (
        ("got", diff.got, diff.got_mark),
        ("expected", diff.expected, diff.expected_mark),
    ):
        lead = "    " + say(label, lang)
        for k, (chunk, carets) in enumerate(_marked_chunks(clean(text), mark, columns)):
            pad = lead if k == 0 else " " * width(lead)
            lines.append(pad + chunk)
            if carets.strip():
                lines.append(" " * width(lead) + carets.rstrip())
    return lines


def _marked_chunks(text: str, mark: tuple[int, int], columns: int) -> list[tuple[str, str]]:
    """`text` cut every `columns` characters, each piece with its line of carets (a space
    under each character outside `mark`, as wide as the character)."""
    start, end = mark
    end = max(end, start + 1)  # an empty mark still points somewhere
    out = []
    for at in range(0, max(len(text), 1), columns):
        chunk = text[at : at + columns]
        carets = "".join(
            ("^" if start <= at + i < end else " ") * width(ch) for i, ch in enumerate(chunk)
        )
        out.append((chunk, carets))
    return out


def picture_lines(case: CaseResult, lang: str) -> list[str]:
    """`judge run --picture CASE`: the case's name and verdict, then its picture as text."""
    from judge.pictures.case_pictures import summary_lines

    label = _label(case.verdict, lang) if case.verdict else ""
    shown = case.input.picture if case.input is not None else None
    return [f"{case.name} ({label})"] + [clean(line) for line in summary_lines(shown, lang)]


def input_lines(case: CaseResult, lang: str) -> list[str]:
    """A failing public case's input: its arguments and, for a trace, the calls up to the
    step that differs (or raised) and the state before it."""
    shown = case.input
    if shown is None:
        return []
    lines = ["  " + say("input", lang)]
    if shown.args is None:
        lines.append("    " + say("omitted", lang, chars=f"{shown.omitted_chars:,}"))
    else:
        lines.append("    " + _indented(_json(shown.args), 4))
    if shown.step is not None and shown.ops:
        steps = "steps_raised" if shown.raised else "steps"
        lines.append("  " + say(steps, lang, step=shown.step))
        lines += [f"    {i:>3}  {clean(op)}" for i, op in enumerate(shown.ops)]
        if shown.trace_key is not None and shown.trace_length > shown.step + 1:
            cut = say(
                "cut", lang, key=repr(shown.trace_key), step=shown.step, length=shown.trace_length
            )
            lines.append("  " + cut)
    if shown.state_before is not None and shown.step is not None:
        previous = shown.step - 1
        op = clean(shown.ops[previous]) if 0 <= previous < len(shown.ops) else "?"
        before = "state_before_raised" if shown.raised else "state_before"
        label = say(before, lang, step=shown.step, previous=previous, op=op)
        lines += ["  " + label, "    " + _indented(_json(shown.state_before), 4)]
    last = shown.subject_step
    if shown.subject and last is not None and shown.subject_state is not None:
        op = clean(shown.ops[last]) if 0 <= last < len(shown.ops) else "?"
        subject = clean(shown.subject)
        label = say("subject", lang, step=shown.step or 0, subject=subject, last=last, op=op)
        lines += ["  " + label, "    " + _indented(_json(shown.subject_state), 4)]
    if shown.picture is None:
        return lines
    # Imported here: only a case with a picture needs the drawing modules (start-up time).
    from judge.pictures.case_pictures import summary_lines

    return lines + [clean(line) for line in summary_lines(shown.picture, lang)]


def _json(value: object) -> str:
    """Arguments and states as compact JSON, one line where it fits."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 96 else json.dumps(value, ensure_ascii=False, indent=1)


def _indented(text: str, by: int) -> str:
    return text.replace("\n", "\n" + " " * by)


def _print_explanations(report: Report, lang: str) -> None:
    """A quiz's right answers, with why they are right."""
    for case in report.cases:
        if case.explanation:
            text = case.explanation.get(lang) or next(iter(case.explanation.values()))
            right = say("right", lang, name=case.name)
            print("\n" + right + clean(text).strip().replace("\n", "\n  "))


def _print_case_output(report: Report, lang: str) -> None:
    """What each public case printed, under its name."""
    for case in report.cases:
        for name, text in (("stdout", case.stdout), ("stderr", case.stderr)):
            if text.strip():
                title = say("printed", lang, name=case.name)
                print(f"\n{title} ({name}):\n  " + _block(text))


def _print_output(report: Report, lang: str) -> None:
    """Everything printed, in order, unless the cases' own blocks above already held it all."""
    for name, text in (("stdout", report.stdout), ("stderr", report.stderr)):
        by_case = sum(len(getattr(c, name)) for c in report.cases)
        if text.strip() and by_case < len(text):
            print(f"\n{say('all_output', lang, stream=name)}:\n  " + _block(text))
    if report.output_withheld:
        print("\n" + say("withheld", lang))


def _block(text: str) -> str:
    """Printed text, indented; whole up to MAX_OUTPUT_SHOWN characters, else saying how
    much more there is."""
    return clean(bounded(text, MAX_OUTPUT_SHOWN)).rstrip().replace("\n", "\n  ")
