"""JSON text for the frames, through CPython's C codec (`_json`) without the `json` package.

Every child process encodes and decodes frames from its first moment. `import json` brings
`re` with it, and `re` brings `enum`, `functools` and `collections`: about 7 ms of a child's
20 ms start, on the path of every `judge run` and every job. The C scanner and encoder the
`json` package itself uses need none of that, so the frames use them directly, configured as
`json.dumps(..., separators=(",", ":"), allow_nan=False)` and `json.loads(...)` are: the same
text out, the same values in. Where `_json` is missing (another Python), the `json` package
does the same work.

Errors are ValueError (as `json`'s JSONDecodeError is one) and TypeError for a value JSON
cannot hold; a nesting too deep for the C code is RecursionError, as with `json`.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable

_WHITESPACE = " \t\n\r"  # JSON's own four, exactly


def _not_serializable(value: object) -> object:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class _Options:
    """What the C scanner reads from its context: json.JSONDecoder's defaults."""

    __slots__ = (
        "object_hook",
        "object_pairs_hook",
        "parse_constant",
        "parse_float",
        "parse_int",
        "strict",
    )

    def __init__(self, parse_constant: Callable[[str], object]) -> None:
        self.strict = True
        self.object_hook = None
        self.object_pairs_hook = None
        self.parse_float = float
        self.parse_int = int
        self.parse_constant = parse_constant


def _constant(name: str) -> float:
    return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


try:
    from _json import encode_basestring_ascii, make_encoder, make_scanner

    _C_CODEC = True
except ImportError:  # not CPython's C codec: the json package, at its import cost
    _C_CODEC = False


if _C_CODEC:

    def dumps(value: object) -> str:
        """`json.dumps(value, separators=(",", ":"), allow_nan=False)`."""
        # A new encoder each call: its circular-reference markers are per call.
        encode = make_encoder(
            {}, _not_serializable, encode_basestring_ascii, None, ":", ",", False, False, False
        )
        return "".join(encode(value, 0))

    def loads(text: str, parse_constant: Callable[[str], object] = _constant) -> object:
        """`json.loads(text, parse_constant=parse_constant)`."""
        body = text.lstrip(_WHITESPACE)
        # typeshed types the context as a scanner; C reads only _Options's attributes.
        scan = make_scanner(_Options(parse_constant))  # type: ignore[arg-type]
        try:
            value, end = scan(body, 0)
        except StopIteration as stop:
            raise ValueError(f"Expecting value: char {stop.value}") from None
        if body[end:].strip(_WHITESPACE):
            raise ValueError(f"Extra data: char {end}")
        return value

else:
    import json

    def dumps(value: object) -> str:
        """`json.dumps(value, separators=(",", ":"), allow_nan=False)`."""
        return json.dumps(value, separators=(",", ":"), allow_nan=False)

    def loads(text: str, parse_constant: Callable[[str], object] = _constant) -> object:
        """`json.loads(text, parse_constant=parse_constant)`."""
        return json.loads(text, parse_constant=parse_constant)
