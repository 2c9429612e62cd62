"""The read-only record base (``chatformats._record``): fields from ``__slots__``, set once."""

from __future__ import annotations

import doctest
import pickle

import pytest

from chatformats import _record
from chatformats._record import Record, setters


class Point(Record):
    __slots__ = ("x", "y")
    _defaults = {"y": 0}


class Point3(Point):
    __slots__ = ("z",)


class Fast(Record):
    __slots__ = ("a", "b")

    def __init__(self, a: int, b: int) -> None:
        _set_a(self, a)
        _set_b(self, b)


_set_a, _set_b = setters(Fast).values()


def test_doctests() -> None:
    result = doctest.testmod(_record)
    assert result.attempted > 0 and result.failed == 0


def test_fields_in_declaration_order_bases_first() -> None:
    assert Point._fields == ("x", "y")
    assert Point3._fields == ("x", "y", "z")
    assert Point3(1, 2, 3) == Point3(x=1, y=2, z=3)
    assert repr(Point3(1, 2, 3)) == "Point3(x=1, y=2, z=3)"


def test_defaults_and_argument_errors() -> None:
    assert Point(1).y == 0
    with pytest.raises(TypeError, match="needs field 'x'"):
        Point()
    with pytest.raises(TypeError, match="twice"):
        Point(1, x=2)
    with pytest.raises(TypeError, match="no field 'w'"):
        Point(1, w=2)
    with pytest.raises(TypeError, match="takes 2 fields"):
        Point(1, 2, 3)


def test_read_only() -> None:
    p = Point(1, 2)
    with pytest.raises(AttributeError, match="read-only"):
        p.x = 3  # type: ignore[misc]
    with pytest.raises(AttributeError, match="read-only"):
        del p.x
    with pytest.raises(AttributeError):
        p.other = 1  # type: ignore[attr-defined]
    assert not hasattr(p, "__dict__")


def test_equality_hash_pickle_replace() -> None:
    p = Point(1, 2)
    assert p == Point(1, 2) and p != Point(1, 3)
    assert p != Point3(1, 2, 0) and Point3(1, 2, 0) != p  # another class is never equal
    assert hash(p) == hash(Point(1, 2))
    assert pickle.loads(pickle.dumps(p)) == p
    assert pickle.loads(pickle.dumps(Fast(1, 2))) == Fast(1, 2)
    assert p._replace(y=5) == Point(1, 5) and p == Point(1, 2)
    with pytest.raises(TypeError):
        p._replace(w=1)


def test_hand_written_init_keeps_the_base_behaviour() -> None:
    f = Fast(1, 2)
    assert (f.a, f.b) == (1, 2) and repr(f) == "Fast(a=1, b=2)"
    with pytest.raises(AttributeError, match="read-only"):
        f.a = 3  # type: ignore[misc]
