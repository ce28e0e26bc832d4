"""The whole value around a difference, both sides, with the difference marked.

A checker names the first differing leaf (`[2]['result'][0]: got 0, expected 2`); a learner
reads the mistake faster from the whole value (`free` returned [0, 1, 2] against
[2, 1, 0]). For a trace the whole value is the differing step's field (its "result" or its
"state"); otherwise it is the returned value. Where that is too long to read, the value
shown is the nearest enclosing one that fits. Built on the trusted side for public cases
only (judge/grading/case_grading.py), so nothing here reaches a hidden case's report.
"""

from __future__ import annotations

from judge.pictures.case_input import trace_labels
from judge.record import record
from judge.wire.tensor import TensorData

# Each side is shown whole up to this many characters; a longer value gives way to the
# nearest part of it around the difference that fits.
MAX_DIFF_CHARS = 2000

Span = tuple[int, int]  # [start, end) of the differing part, in characters of the text


@record
class ValueDiff:
    where: str  # the shown value's path, `[2]['result']`; "" for the returned value itself
    got: str  # Python's notation, as the learner would print it
    expected: str
    got_mark: Span
    expected_mark: Span

    def to_dict(self) -> dict[str, object]:
        return {
            "where": self.where,
            "got": self.got,
            "expected": self.expected,
            "got_mark": list(self.got_mark),
            "expected_mark": list(self.expected_mark),
        }

    @classmethod
    def from_dict(cls, data: object) -> ValueDiff | None:
        """A stored diff, or None where it is not one (an older or damaged report)."""
        if type(data) is not dict:
            return None
        got, expected = data.get("got"), data.get("expected")
        got_mark, expected_mark = _span(data.get("got_mark")), _span(data.get("expected_mark"))
        if type(got) is not str or type(expected) is not str:
            return None
        if got_mark is None or expected_mark is None:
            return None
        return cls(str(data.get("where") or ""), got, expected, got_mark, expected_mark)


def _span(data: object) -> Span | None:
    if type(data) is not list or len(data) != 2 or not all(type(n) is int for n in data):
        return None
    return data[0], data[1]


def value_diff(got: object, expected: object, path: tuple[str | int, ...]) -> ValueDiff | None:
    """Both values around the difference at `path` (a checker's Mismatch.path), or None
    where the difference is the whole value already (nothing more to show) or no part of
    it fits MAX_DIFF_CHARS."""
    start = 2 if trace_labels(expected) is not None and len(path) >= 2 else 0
    for depth in range(start, len(path)):
        whole = path[:depth]
        got_part, expected_part = _at(got, whole), _at(expected, whole)
        if got_part is _MISSING or expected_part is _MISSING:
            return None
        if not (_fits(got_part) and _fits(expected_part)):
            continue  # rendering it first would cost as much as the value is long
        try:
            got_text, got_mark = _marked(got_part, path[depth:])
            expected_text, expected_mark = _marked(expected_part, path[depth:])
        except (ValueError, RecursionError):  # an int too long for repr, deep nesting
            return None
        if len(got_text) <= MAX_DIFF_CHARS and len(expected_text) <= MAX_DIFF_CHARS:
            where = "".join(f"[{key!r}]" for key in whole)
            return ValueDiff(where, got_text, expected_text, got_mark, expected_mark)
    return None


_MISSING = object()


def _fits(value: object) -> bool:
    """False when `value` holds more than MAX_DIFF_CHARS lists, dicts and scalars: each
    takes at least a character, so its text could not fit."""
    budget, stack = MAX_DIFF_CHARS, [value]
    while stack:
        item = stack.pop()
        budget -= 1
        if budget < 0:
            return False
        if type(item) is list:
            stack.extend(item)
        elif type(item) is dict:
            stack.extend(item.values())
    return True


def _at(value: object, path: tuple[str | int, ...]) -> object:
    for key in path:
        in_list = type(value) is list and type(key) is int and 0 <= key < len(value)
        if not (in_list or (type(value) is dict and key in value)):
            return _MISSING
        value = value[key]  # type: ignore[index]
    return value


def _marked(value: object, path: tuple[str | int, ...]) -> tuple[str, Span]:
    """`value` in Python's notation and the span of the part at `path` (the whole text
    where the path leads outside the value: a missing key, a list of another length)."""
    if path and type(value) is list and type(path[0]) is int and 0 <= path[0] < len(value):
        items: list[tuple[object, object]] = [(None, item) for item in value]
        return _container("[", "]", items, path[0], path[1:])
    if path and type(value) is dict and path[0] in value:
        keyed = [(key, item) for key, item in value.items()]
        index = list(value).index(path[0])
        return _container("{", "}", keyed, index, path[1:])
    text = _text(value)
    return text, (0, len(text))


def _container(
    opening: str,
    closing: str,
    items: list[tuple[object, object]],
    index: int,
    rest: tuple[str | int, ...],
) -> tuple[str, Span]:
    parts, offset, mark = [opening], len(opening), (0, 0)
    for i, (key, item) in enumerate(items):
        prefix = ("" if i == 0 else ", ") + ("" if key is None else f"{key!r}: ")
        parts.append(prefix)
        offset += len(prefix)
        if i == index:
            text, (start, end) = _marked(item, rest)
            mark = (offset + start, offset + end)
        else:
            text = _text(item)
        parts.append(text)
        offset += len(text)
    parts.append(closing)
    return "".join(parts), mark


def _text(value: object) -> str:
    """repr(), but a tensor by its description (as the checkers show one)."""
    if isinstance(value, TensorData):
        return value.describe()
    if type(value) is list:
        return "[" + ", ".join(_text(item) for item in value) + "]"
    if type(value) is dict:
        return "{" + ", ".join(f"{key!r}: {_text(item)}" for key, item in value.items()) + "}"
    return repr(value)
