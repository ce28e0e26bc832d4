"""Exceptions a user can cause, each with a message fit to print as one line."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    # The catalog is imported where a message is said: the child process imports this
    # module for its protocol errors and never says anything (start-up time).
    from judge.messages import Message


class JudgeError(Exception):
    """Base class: the message is complete and user-facing. `said` is the same sentence
    as a catalog message where there is one, so that the CLI can say it in the reader's
    language; str() stays the English text for every other consumer (logs, the server)."""

    said: Message | None = None


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
        from judge.messages import say  # here, not at the top: see TYPE_CHECKING above

        self.slug = slug
        self.suggestion = suggestion
        if suggestion:
            self.said = say("cli.unknown_problem_close", slug=repr(slug), close=repr(suggestion))
        else:
            self.said = say("cli.unknown_problem", slug=repr(slug))
        super().__init__(self.said.en)


class SourceError(JudgeError):
    """Submitted source is rejected before it runs (encoding, NUL bytes, size)."""


class ProtocolError(JudgeError):
    """A frame or observation from the untrusted side is malformed."""


class UsageError(JudgeError):
    """Bad command-line usage: English text, or a catalog message said in either language."""

    def __init__(self, message: str | Message) -> None:
        if not isinstance(message, str):  # a Message: this module does not import the catalog
            self.said = message
            message = message.en
        super().__init__(message)


class InputRefused(JudgeError):
    """A learner's own input for a problem is refused before it runs: not JSON, too large,
    not shaped like a public case's arguments, or refused by the problem's validator."""

    def __init__(self, message: Message) -> None:
        self.said = message
        super().__init__(message.en)


class FrameTooLarge(ProtocolError):
    """A frame, or the run's result channel as a whole, is over the size the problem allows."""


class BadReference(Exception):
    """The trusted side produced something no checker can compare against: the judge's fault
    (IE), never the submission's. Not a JudgeError: its message is for administrators."""
