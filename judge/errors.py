"""Exceptions a user can cause, each with a message fit to print as one line."""

from __future__ import annotations


class JudgeError(Exception):
    """Base class: the message is complete and user-facing."""


class SpecError(JudgeError):
    """A problem folder is invalid. Names the file and the field."""

    def __init__(self, file: str, field: str | None, message: str) -> None:
        self.file = file
        self.field = field
        where = f"{file}: {field}" if field else file
        super().__init__(f"{where}: {message}")


class UnknownProblem(JudgeError):
    """No problem has this slug; suggests the closest one."""

    def __init__(self, slug: str, suggestion: str | None) -> None:
        self.slug = slug
        self.suggestion = suggestion
        hint = f" (did you mean {suggestion!r}?)" if suggestion else ""
        super().__init__(f"unknown problem {slug!r}{hint}; `judge list` shows them all")


class SourceError(JudgeError):
    """Submitted source is rejected before it runs (encoding, NUL bytes, size)."""


class ProtocolError(JudgeError):
    """A frame or observation from the untrusted side is malformed."""


class UsageError(JudgeError):
    """Bad command-line usage."""


class FrameTooLarge(ProtocolError):
    """A frame, or the run's result channel as a whole, is over the size the problem allows."""


class BadReference(Exception):
    """The trusted side produced something no checker can compare against: the judge's fault
    (IE), never the submission's. Not a JudgeError: its message is for administrators."""
