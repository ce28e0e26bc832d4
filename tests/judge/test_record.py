"""judge.record: the core's value objects behave as frozen dataclasses did, made cheaply."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys

import pytest

from judge.record import FrozenRecordError, default, record, replace


@record
class Point:
    """A frozen record with a default and a fresh-per-instance default."""

    x: int
    y: int = 0
    tags: list[str] = default(factory=list)

    def norm1(self) -> int:
        return abs(self.x) + abs(self.y)


@record(frozen=False)
class Counter:
    name: str
    seen: dict[str, int] = default(factory=dict)


def test_fields_are_taken_by_position_or_name_with_defaults_filled_in() -> None:
    assert Point(1, 2) == Point(x=1, y=2) == Point(1, y=2)
    assert Point(3).y == 0
    assert Point(3).norm1() == 3


def test_a_factory_default_is_fresh_for_each_record() -> None:
    a, b = Point(1), Point(2)
    a.tags.append("a")
    assert b.tags == []


def test_wrong_arguments_are_type_errors_that_name_the_argument() -> None:
    with pytest.raises(TypeError, match="missing required argument: 'x'"):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected argument 'z'"):
        Point(1, z=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="multiple values for 'x'"):
        Point(1, x=2)  # type: ignore[misc]
    with pytest.raises(TypeError, match="takes 3 arguments, 4 given"):
        Point(1, 2, [], 4)  # type: ignore[call-arg]


def test_a_frozen_record_refuses_assignment_and_new_attributes() -> None:
    p = Point(1)
    with pytest.raises(FrozenRecordError):
        p.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del p.y
    with pytest.raises(AttributeError):
        object.__setattr__(p, "z", 1)  # slots: no __dict__ to put it in
    assert not hasattr(p, "__dict__")


@record
class Pair:
    a: int
    b: str = ""


def test_frozen_records_compare_and_hash_by_value_and_class() -> None:
    assert hash(Pair(1, "x")) == hash(Pair(1, "x"))
    assert {Pair(1, "x"): "found"}[Pair(1, "x")] == "found"
    assert Pair(1, "x") != Pair(2, "x")
    assert Point(1, 2) != Point(2, 1)
    assert Pair(1) != (1, "")  # type: ignore[comparison-overlap]
    with pytest.raises(TypeError, match="unhashable"):
        hash(Point(1))  # a list inside: as unhashable as the list


def test_a_mutable_record_takes_assignment_and_is_unhashable() -> None:
    c = Counter("c")
    c.name = "d"
    assert c == Counter("d")
    with pytest.raises(TypeError):
        hash(c)


def test_repr_names_the_class_and_every_field() -> None:
    assert repr(Point(1, 2)) == "Point(x=1, y=2, tags=[])"


def test_replace_makes_a_changed_copy_and_refuses_unknown_fields() -> None:
    p = Point(1, 2, ["t"])
    q = replace(p, y=5)
    assert (q.x, q.y, q.tags) == (1, 5, ["t"])
    assert p.y == 2
    with pytest.raises(TypeError, match="no field 'z'"):
        replace(p, z=1)
    with pytest.raises(TypeError, match="needs a record"):
        replace(object())


def test_records_survive_pickle_and_copy() -> None:
    p = Point(1, 2, ["t"])
    assert pickle.loads(pickle.dumps(p)) == p
    assert copy.deepcopy(p) == p and copy.deepcopy(p).tags is not p.tags
    c = Counter("c", {"a": 1})
    assert pickle.loads(pickle.dumps(c)) == c


def test_match_by_position_follows_field_order() -> None:
    match Point(4, 5):
        case Point(x, y):
            assert (x, y) == (4, 5)


def test_a_field_without_a_default_after_one_with_is_refused_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="'b' has no default but follows one that has"):

        @record
        class Bad:
            a: int = 0
            b: int  # type: ignore[misc]


def test_a_record_made_from_another_is_refused_rather_than_losing_its_fields() -> None:
    with pytest.raises(TypeError, match="does not inherit"):

        @record
        class Point3(Point):
            z: int = 0


def test_the_core_on_the_judging_path_imports_neither_dataclasses_nor_inspect() -> None:
    """What `judge run` imports to judge a code problem: no module compiles methods from
    source text as classes are made (the reason judge.record exists)."""
    code = (
        "import sys, practice_judge, judge.run.judge_source, judge.run.launch, "
        "judge.commands.render, judge.problem.problemset; "
        "print(sorted({'dataclasses', 'inspect'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
