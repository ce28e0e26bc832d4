"""A public case's input, as the learner sees it beside the case's failure.

What `cases.run(sub, args)` was given. For a trace (a stateful problem's observation is one
`{"op", "result", "state"}` per step) it also holds the calls up to and including the first
step that differs, and the state both sides agreed on just before it (the state a step
records is often that of the sequence it acted on, so the failing step's own sequence's last
state is kept too, when another sequence's step came between); a trace held in
`args["ops"]` or `args["events"]` (one operation per step) is cut after that step, so the
input shown is the part that matters. Built on the trusted side for public cases only
(judge/grading/case_grading.py): a hidden case's arguments never enter a report.
"""

from __future__ import annotations

import json

from judge.record import record, replace

# Keys of `args` whose list holds one operation per step of the observed trace
# (docs/stateful-problems.md); the scheduler's "requests" are arrivals, not steps.
TRACE_KEYS = ("ops", "events")
# Arguments are the problem's own data (at most judge.problem.cases.MAX_ARGS_BYTES), not the
# submission's; past this they are left out of the report rather than copied into it.
MAX_INPUT_CHARS = 256 * 1024


@record
class CaseInput:
    args: object  # JSON data as the driver got it (a per-step trace cut); None: omitted
    step: int | None = None  # the first step that differs (0-based, as messages count)
    ops: tuple[str, ...] = ()  # the calls of steps 0..step, as the learner would write them
    state_before: object = None  # the state after step - 1, where got and expected agree
    trace_key: str | None = None  # args[trace_key] was cut after `step` ...
    trace_length: int = 0  # ... from this many operations
    omitted_chars: int = 0  # args too large to show: their JSON is this long
    picture: object = (
        None  # JSON data the page draws (judge/pictures/case_pictures.py); None: no picture
    )
    # What the failing step acts on ("seq_id=1", the first argument of its call) and, when
    # step - 1 acted on something else, the last earlier step on it and the state after it.
    subject: str | None = None
    subject_step: int | None = None
    subject_state: object = None
    # The code raised inside `step` rather than returning a differing one: `state_before`
    # is then the reference's, as nothing the code returned was compared.
    raised: bool = False

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"args": self.args}
        if self.step is not None:
            out["step"] = self.step
        if self.ops:
            out["ops"] = list(self.ops)
        if self.state_before is not None:
            out["state_before"] = self.state_before
        if self.trace_key is not None:
            out["trace"] = {"key": self.trace_key, "length": self.trace_length}
        if self.omitted_chars:
            out["omitted_chars"] = self.omitted_chars
        if self.picture is not None:
            out["picture"] = self.picture
        if self.subject is not None:
            out["subject"] = self.subject
        if self.subject_step is not None:
            out["subject_step"] = self.subject_step
            out["subject_state"] = self.subject_state
        if self.raised:
            out["raised"] = True
        return out

    @classmethod
    def from_dict(cls, data: object) -> CaseInput:
        if type(data) is not dict:
            raise ValueError(f"a case's input is an object, not {data!r:.60}")
        trace = data.get("trace")
        key, length = (trace.get("key"), trace.get("length")) if type(trace) is dict else (None, 0)
        step, subject = data.get("step"), data.get("subject")
        subject_step = data.get("subject_step")
        return cls(
            args=data.get("args"),
            step=step if type(step) is int else None,
            ops=tuple(str(op) for op in data.get("ops") or ()),
            state_before=data.get("state_before"),
            trace_key=key if type(key) is str else None,
            trace_length=length if type(length) is int else 0,
            omitted_chars=int(data.get("omitted_chars") or 0),
            picture=data.get("picture") if type(data.get("picture")) is dict else None,
            subject=subject if type(subject) is str else None,
            subject_step=subject_step if type(subject_step) is int else None,
            subject_state=data.get("subject_state"),
            raised=data.get("raised") is True,
        )


def trace_labels(expected: object) -> list[str] | None:
    """The "op" of every step when `expected` is a trace, else None."""
    if type(expected) is not list or not expected:
        return None
    labels = []
    for step in expected:
        if type(step) is not dict or type(step.get("op")) is not str:
            return None
        labels.append(step["op"])
    return labels


def trace_key(args: object, steps: int) -> str | None:
    """The key of the list in `args` that holds one operation per step, if there is one."""
    if type(args) is not dict:
        return None
    for key in TRACE_KEYS:
        value = args.get(key)
        if type(value) is list and len(value) == steps:
            return key
    return None


def case_input(
    args: object, expected: object, step: int | None, got: object = None, raised: bool = False
) -> CaseInput:
    """The input of a case whose first difference is at trace step `step` (None: not a
    trace, or a failure no step is known for), or that `raised` an exception in that step,
    with a picture of `got` beside `expected` where the case has one (`got` None: the code
    returned nothing comparable, so there is nothing to draw)."""
    shown = _shown(args, expected, step)
    if raised and shown.step is not None:
        shown = replace(shown, raised=True)
    return _sized(_with_picture(shown, args, expected, got, step))


def _with_picture(
    shown: CaseInput, args: object, expected: object, got: object, step: int | None
) -> CaseInput:
    if got is None:
        return shown
    # Imported here: only a failing public case draws a picture, and the drawing modules
    # are a large part of a run's start-up.
    from judge.pictures.case_pictures import picture

    return replace(shown, picture=picture(args, expected, got, step))


def _shown(args: object, expected: object, step: int | None) -> CaseInput:
    labels = trace_labels(expected)
    if labels is None or step is None or not 0 <= step < len(labels):
        return CaseInput(args)
    steps: list[dict[str, object]] = expected  # type: ignore[assignment]
    key = trace_key(args, len(labels))
    shown = args
    if key is not None:
        shown = {**args, key: args[key][: step + 1]}  # type: ignore[dict-item, index]
    before = steps[step - 1].get("state") if step > 0 else None
    shown_input = CaseInput(
        shown, step, tuple(labels[: step + 1]), before, key, len(labels) if key else 0
    )
    subject = first_argument(labels[step])
    if subject is None:
        return shown_input
    earlier = [i for i in range(step - 1) if first_argument(labels[i]) == subject]
    if step == 0 or first_argument(labels[step - 1]) == subject or not earlier:
        return replace(shown_input, subject=subject)
    last = earlier[-1]
    return replace(
        shown_input, subject=subject, subject_step=last, subject_state=steps[last].get("state")
    )


def first_argument(label: str) -> str | None:
    """ "seq_id=1" of "free(seq_id=1)": what a step acts on, by the first argument of its
    call as the learner would write it; None for a call without arguments."""
    opening, closing = label.find("("), label.rfind(")")
    if opening < 0 or closing <= opening + 1:
        return None
    return label[opening + 1 : closing].split(",")[0].strip() or None


def _sized(shown: CaseInput) -> CaseInput:
    try:
        size = len(json.dumps(shown.args, allow_nan=False))
    except (TypeError, ValueError):
        return shown  # not JSON text: the case's validation would have refused it
    if size <= MAX_INPUT_CHARS:
        return shown
    return replace(
        shown, args=None, state_before=None, omitted_chars=size, picture=None, subject_state=None
    )
