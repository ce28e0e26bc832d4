"""The closed set of verdicts and the precedence that picks the overall one."""

from __future__ import annotations

from enum import Enum


class Verdict(str, Enum):
    """A case's or a run's verdict. The declaration order is the display precedence:
    the overall verdict of a run is the earliest (most severe) of its case verdicts."""

    IE = "IE"  # the judge itself failed; never shown or stored as WA
    CE = "CE"  # the submission does not compile, import or define the required names
    RE = "RE"  # an exception, a crash, or a broken result channel
    MLE = "MLE"
    TLE = "TLE"
    OLE = "OLE"
    WA = "WA"
    AC = "AC"

    def __str__(self) -> str:  # "AC", not "Verdict.AC", in pages, logs and f-strings
        return self.value

    @property
    def severity(self) -> int:
        """Lower is more severe."""
        return _ORDER[self]

    @classmethod
    def parse(cls, text: str) -> Verdict:
        """Read a verdict name such as "WA"; raises ValueError with the allowed names."""
        try:
            return cls(text.strip().upper())
        except ValueError:
            names = ", ".join(v.value for v in cls)
            raise ValueError(f"unknown verdict {text!r}; expected one of {names}") from None


_ORDER = {v: i for i, v in enumerate(Verdict)}


def overall(verdicts: list[Verdict]) -> Verdict:
    """The most severe verdict; an empty run is an internal error, never AC."""
    if not verdicts:
        return Verdict.IE
    return min(verdicts, key=lambda v: v.severity)
