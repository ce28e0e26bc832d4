"""judge.wire.json_text: the frames' JSON, the same text and values as the json package's,
without importing it (a child's start)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from judge.wire import json_text

REPO = Path(__file__).resolve().parents[2]

VALUES: list[object] = [
    None, True, False, 0, -1, 2**70, -(2**64), 0.1, -0.0, 1e300, 5e-324, 1.5e-7, 123456789.125,
    "", "plain", 'quote " and \\ backslash', "tab\tnew\nline\x00\x1f", "中文 and é", "\U0001f600",
    [], {}, [1, [2, [3, {}]]], {"a": {"b": [None, 1.0, "x"]}},
    {1: "int key", 2.5: "float key", False: "bool key", None: "null key"},
    {"tensors": [{"dtype": "float32", "shape": [2, 3]}], "type": "result"},
    (1, 2, 3),
]  # fmt: skip


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_dumps_writes_what_json_writes_compactly(value: object) -> None:
    expected = json.dumps(value, separators=(",", ":"), allow_nan=False)
    assert json_text.dumps(value) == expected
    assert json_text.loads(expected) == json.loads(expected)


@pytest.mark.parametrize("bad", [math.nan, math.inf, [-math.inf]])
def test_dumps_refuses_what_is_not_json_as_json_does(bad: object) -> None:
    with pytest.raises(ValueError):
        json_text.dumps(bad)


def test_dumps_refuses_objects_sets_odd_keys_and_cycles() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        json_text.dumps({"x": object()})
    with pytest.raises(TypeError):
        json_text.dumps({1, 2})
    with pytest.raises(TypeError, match="keys must be"):
        json_text.dumps({(1, 2): 3})
    cycle: list[object] = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match=r"[Cc]ircular"):
        json_text.dumps(cycle)


@pytest.mark.parametrize(
    "text", [' {"a": [1, 2.5, "x"]}\n', "\t[]\r\n", "0", '"s"', "-1e5", "[1e400]", '{"a":1,"a":2}']
)
def test_loads_reads_what_json_reads(text: str) -> None:
    assert json_text.loads(text) == json.loads(text)


@pytest.mark.parametrize(
    "text", ["", " ", "[1,]", "{'a': 1}", '{"a": 1} x', "[1] [2]", '"unterminated', "tru", "\x0c1"]
)
def test_loads_refuses_what_json_refuses_with_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        json_text.loads(text)


def test_loads_passes_nan_and_infinity_to_parse_constant() -> None:
    def refuse(name: str) -> object:
        raise ValueError(f"no {name}")

    for text in ("NaN", "[Infinity]", '{"a": -Infinity}'):
        with pytest.raises(ValueError, match="no "):
            json_text.loads(text, parse_constant=refuse)
    assert math.isnan(json_text.loads("NaN"))  # type: ignore[arg-type]


def test_nesting_too_deep_is_a_recursion_error_as_with_json() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(RecursionError):
        json_text.loads(deep)


def test_without_the_c_codec_the_json_package_does_the_same() -> None:
    code = (
        "import sys; sys.modules['_json'] = None; sys.path.insert(0, '.')\n"
        "from judge.wire import json_text\n"
        "assert not json_text._C_CODEC\n"
        "print(json_text.dumps({'a': [1, 2.5, 'é']}), json_text.loads(' [1] '))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == '{"a":[1,2.5,"\\u00e9"]} [1]'


def test_a_childs_start_imports_neither_json_nor_re() -> None:
    """What the child imports before the submission runs (`python -I -S`, as launched):
    json would bring re, enum, functools and collections, half of its start."""
    code = (
        "import sys; sys.path.insert(0, '.'); import judge.run.child_main, judge.run.child; "
        "print(sorted({'json', 're', 'enum', 'linecache', 'tokenize', 'collections'} "
        "& set(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], cwd=REPO, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
