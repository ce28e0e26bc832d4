"""The untrusted side: load the submission, run one case per request, send observations.

This runs in the child process next to submitted code, so nothing here is trusted: it
never sees expected values, the reference or the seed, and it never decides a verdict.
The parent validates whatever arrives and may be lied to only about what the
submission computed, which is exactly what the checker judges.
"""

from __future__ import annotations

import builtins
import os
import sys
import types

from judge.textcap import bounded
from judge.wire.codec import ObservationTypeError, encode
from judge.wire.protocol import FrameReader, encode_frame, read_frame, write_frame
from judge.wire.tensor import TensorData

SUBMISSION_FILE = "submission.py"
# An exception's message and a traceback are the submission's text and could be megabytes:
# past these they are cut, with a note of how much (the parent allows a little more).
MESSAGE_CHARS = 2000
TRACEBACK_CHARS = 4000
_CLEAN_BUILTINS = dict(builtins.__dict__)
_SOURCE_LINES: list[
    str
] = []  # the submission's lines, for tracebacks  # taken before any submitted code runs


class _SubmissionSource:
    """The submission module's `__loader__`: its source, for any traceback or warning that
    quotes its lines (linecache asks a module's loader for a file not on disk). Registering
    the lines in linecache instead would import it, and with it tokenize and re (some 7 ms
    of every child's start)."""

    __slots__ = ()

    def get_source(self, name: str) -> str:
        return "".join(_SOURCE_LINES)


def serve(request_fd: int, result_fd: int) -> None:
    """Answer the parent's frames until it closes the request channel, then exit."""
    try:
        _serve(request_fd, result_fd)
    except BaseException as exc:
        # Once submitted code has run, whatever stops this loop (a pipe it closed, a module it
        # patched) is its doing: say so in one line, never with the judge's own traceback.
        _say(f"judge: the answer loop stopped ({type(exc).__name__})\n")
        os._exit(3)


def _say(text: str) -> None:
    try:
        os.write(2, text.encode("ascii", "replace"))
    except OSError:
        pass


def _serve(request_fd: int, result_fd: int) -> None:
    reader = FrameReader(max_payload=0)
    load = read_frame(request_fd, reader)
    if load is None or load.header.get("type") != "load":
        os._exit(3)
    sub: object
    if load.header.get("drive"):  # a trusted driver: the submission is in another process
        from judge.run.remote import Channel, HostedSubmission

        channel = Channel(request_fd, result_fd, reader)
        names = [str(n) for n in load.header["names"]]  # type: ignore[attr-defined]
        driver, sub = _load_driver(load.header, result_fd), HostedSubmission(channel, names)
    else:
        driver, sub = _load(load.header, result_fd)
    if sub is None:
        _exit_quietly()
        return
    host = None
    if load.header.get("hosted"):
        names = [str(n) for n in load.header["names"]]  # type: ignore[attr-defined]
        host = _Host(request_fd, result_fd, reader, {n: getattr(sub, n) for n in names})
    while (frame := read_frame(request_fd, reader)) is not None:
        if host is not None:
            answer = host.case(frame.header)
        else:
            answer = _run_case(driver, sub, frame.header)
        # What the case printed reaches its pipes before its answer, so the parent can tell
        # which case printed it (output during hidden cases is withheld from the learner).
        _flush_output()
        write_frame(result_fd, answer)
    _exit_quietly()


def _load_driver(header: dict[str, object], result_fd: int) -> types.ModuleType:
    """A trusted driver's cases.py, loaded in its own process (judge/run/hosted_session.py)."""
    device = header.get("device", "cpu")
    if device != "cpu":
        from judge.run.job_device import set_job_device

        set_job_device(device)
    driver = types.ModuleType("cases")
    exec(compile(str(header["driver"]), "cases.py", "exec"), driver.__dict__)
    sys.modules["cases"] = driver
    write_frame(result_fd, encode_frame({"type": "loaded"}))
    return driver


class _Host:
    """The job's side of a hosted problem: each case, answer the driver's calls on the
    submission's objects (judge/run/remote.py) until the parent ends it."""

    def __init__(
        self, request_fd: int, result_fd: int, reader: FrameReader, names: dict[str, object]
    ) -> None:
        from judge.run.remote import Channel

        self.request_fd, self.reader = request_fd, reader
        self.channel = Channel(request_fd, result_fd, reader, refuse=_refusal, driver=False)
        self.channel.names = names  # the submission's names the problem asks for

    def case(self, header: dict[str, object]) -> bytes:
        from judge.run.remote import CALL, END, ENDED, HOST

        name = header.get("name")
        if header.get("type") != HOST:
            os._exit(3)
        channel = self.channel
        try:
            while (frame := read_frame(self.request_fd, self.reader)) is not None:
                kind = frame.header.get("type")
                if kind == END:
                    return encode_frame({"type": ENDED, "name": name})
                if kind != CALL:
                    os._exit(3)
                channel.serve(frame.header)
                _restore_builtins()
        finally:
            channel.objects.clear()  # the case's objects end with it
        os._exit(0)


def _refusal(exc: BaseException) -> dict[str, object]:
    """The learner's code raised inside a call: the error answer a plain child sends."""
    from judge.run.remote import RAISE, builtin_base

    _restore_builtins()
    return {**error_answer(None, exc), "type": RAISE, "builtin": builtin_base(exc)}


def _load(
    header: dict[str, object], result_fd: int
) -> tuple[types.ModuleType, types.ModuleType | None]:
    device = header.get("device", "cpu")
    if device != "cpu":  # the driver reads it (judge.run.job_device); a CPU job never asks
        from judge.run.job_device import set_job_device

        set_job_device(device)
    withheld = header.get("withheld") or []
    if withheld:  # only torch problems withhold anything: the others never import the finder
        from judge.problem.withheld import install

        install([str(m) for m in withheld])  # type: ignore[attr-defined]
    driver = types.ModuleType("cases")
    if not header.get("hosted"):  # a hosted job never runs the driver: it runs elsewhere
        exec(compile(str(header["driver"]), "cases.py", "exec"), driver.__dict__)
    sys.modules["cases"] = driver
    if header.get("threads_only"):  # a CPU rule: no helper process may escape its count
        from judge.run.threads_only import refuse_processes

        refuse_processes()
    sub, error = load_submission(str(header["source"]), [str(n) for n in header["names"]])  # type: ignore[attr-defined]
    _restore_builtins()
    _flush_output()  # what loading printed is no case's: out before the first case starts
    write_frame(result_fd, encode_frame(error or {"type": "loaded"}))
    return driver, sub


def load_submission(
    source: str, names: list[str]
) -> tuple[types.ModuleType | None, dict[str, object] | None]:
    """Compile and run the submission as module `submission`.

    Returns (module, None), or (None, load_error) when it cannot be loaded."""
    try:
        code = compile(source, SUBMISSION_FILE, "exec")
    except SyntaxError as exc:
        return None, _load_error("syntax", exc.lineno, f"{type(exc).__name__}: {exc.msg}")
    except ValueError as exc:  # e.g. source with NUL bytes
        return None, _load_error("syntax", None, str(exc))
    except (RecursionError, MemoryError) as exc:  # e.g. "-" * 30000 + "1": the compiler's stack
        message = f"{type(exc).__name__}: the code is nested too deeply to compile"
        return None, _load_error("syntax", None, message)
    # Tracebacks quote the learner's lines from here, since there is no file on disk.
    _SOURCE_LINES[:] = source.splitlines(True)
    module = types.ModuleType("submission")
    module.__file__ = SUBMISSION_FILE
    module.__dict__["__loader__"] = _SubmissionSource()  # get_source is all linecache needs
    sys.modules["submission"] = module
    try:
        exec(code, module.__dict__)
    except ImportError as exc:
        kind = "withheld" if type(exc).__name__ == "WithheldModule" else "import"
        return None, _load_error(kind, _submission_line(exc), f"{type(exc).__name__}: {exc}")
    except BaseException as exc:
        tb = _submission_traceback(exc)
        return None, _load_error(
            "exception", _submission_line(exc), f"{type(exc).__name__}: {exc}", tb
        )
    missing = [n for n in names if n not in module.__dict__]
    if missing:
        return None, _load_error(
            "missing_name", None, f"the submission must define {', '.join(missing)}"
        )
    return module, None


def _load_error(kind: str, line: int | None, message: str, tb: str = "") -> dict[str, object]:
    return {
        "type": "load_error",
        "kind": kind,
        "line": line,
        "message": bounded(message, MESSAGE_CHARS),
        "traceback": tb,
    }


def _run_case(
    driver: types.ModuleType,
    sub: object,
    header: dict[str, object],
) -> bytes:
    name = header.get("name")
    try:
        value = driver.run(sub, header.get("args"))
    except BaseException as exc:  # noqa: BLE001 - a case must never take the loop down
        _restore_builtins()
        return encode_frame(error_answer(name, exc, driver.run))
    _restore_builtins()
    tensors: list[TensorData] = []
    try:
        data = encode(value, tensors)
    except ObservationTypeError as exc:
        return encode_frame({"type": "bad_observation", "name": name, "message": str(exc)})
    except (ValueError, TypeError, RecursionError, MemoryError) as exc:
        return encode_frame(
            {"type": "bad_observation", "name": name, "message": f"{type(exc).__name__}: {exc}"}
        )
    return encode_frame({"type": "result", "name": name, "observation": data}, tensors)


def _restore_builtins() -> None:
    """Undo patches to builtins (isinstance, len, ...) so encoding the answer still works.

    Patching can only ever hurt the submission: the parent checks whatever arrives."""
    current = builtins.__dict__
    for key, value in _CLEAN_BUILTINS.items():
        if current.get(key) is not value:
            current[key] = value


def error_answer(name: object, exc: BaseException, run: object = None) -> dict[str, object]:
    """The `error` answer for case `name`, whose run raised `exc`: the exception's type, its
    message (past 2,000 characters cut, saying so), the line and traceback in the
    submission's own code (the judge's frames left out) and, for a trace, the step that
    raised (`run` is the driver's). Also what the browser judge reports."""
    try:
        message = f"{type(exc).__name__}: {exc}"
    except BaseException:
        message = type(exc).__name__
    answer: dict[str, object] = {
        "type": "error",
        "name": name,
        "exception": type(exc).__name__,
        "message": bounded(message, MESSAGE_CHARS),
        "line": _submission_line(exc),
        "traceback": _submission_traceback(exc),
    }
    step = raised_step(exc, run)
    if step is not None:
        answer["step"] = step
    return answer


def raised_step(exc: BaseException, run: object) -> int | None:
    """The trace step that raised: how many steps the driver's `run` had collected in its
    list `steps` (docs/stateful-problems.md) when `exc` left it; None where it keeps none.

    A hint for display only: the submission runs in this process and could rewrite the
    list, so the parent checks the index against the reference's trace and names the call
    from there, and an exception is RE whatever its step."""
    try:
        code = run.__code__  # type: ignore[attr-defined]
        tb = exc.__traceback__
        for _ in range(1000):
            if tb is None:
                return None
            if tb.tb_frame.f_code is code:
                steps = tb.tb_frame.f_locals.get("steps")
                return len(steps) if type(steps) is list else None
            tb = tb.tb_next
    except BaseException:  # noqa: BLE001 - whatever the submission did to the frame, no hint
        return None
    return None


def _submission_frames(exc: BaseException) -> list[tuple[int, str]]:
    """(line, function) of each traceback entry in the submission's own code.

    Walked by hand rather than with the traceback module, which the child would otherwise
    import on every start."""
    frames: list[tuple[int, str]] = []
    tb = exc.__traceback__
    while tb is not None and len(frames) < 1000:
        code = tb.tb_frame.f_code
        if code.co_filename == SUBMISSION_FILE:
            frames.append((tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    return frames


def _submission_line(exc: BaseException) -> int | None:
    frames = _submission_frames(exc)
    return frames[-1][0] if frames else None


def _submission_traceback(exc: BaseException) -> str:
    """The traceback restricted to the submission's own lines (what a learner can act on)."""
    source = _SOURCE_LINES
    lines = []
    for lineno, name in _submission_frames(exc)[-50:]:
        text = source[lineno - 1].strip() if 0 < lineno <= len(source) else ""
        lines.append(f'  File "{SUBMISSION_FILE}", line {lineno}, in {name}\n    {text}')
    text = "\n".join(["Traceback (most recent call last):", *lines])
    return bounded(text, TRACEBACK_CHARS) if lines else ""


def _flush_output() -> None:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()  # type: ignore[union-attr]
        except BaseException:
            pass


def _exit_quietly() -> None:
    # Flush what the submission printed, then leave without running its atexit hooks or finalizers.
    _flush_output()
    os._exit(0)
