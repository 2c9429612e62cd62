"""The one read-only record base: named fields in ``__slots__``, set once when built.

Every frozen record of the package derives from :class:`Record` (the registry's ``ChatFormat``,
the audit's ``Finding``, the ports' state records): its fields are the ``__slots__`` of the
class and its bases, in declaration order; it compares, hashes, prints and pickles by them, and
refuses assignment and deletion once built.

Not a dataclass or a namedtuple: both generate their methods with ``exec`` when a class is
defined, which restricted runtimes forbid (``tests/test_runtimes.py`` imports the package under
an audit hook that refuses dynamic code).  Here nothing is generated: :meth:`__init_subclass__`
only collects the slot descriptors, and :meth:`Record.__init__` writes through them.

A record built on every render may write its own ``__init__`` (positional parameters, one
``_set`` per field, see :func:`setters`), which skips the generic argument handling; its
fields, equality and refusal of assignment stay the base's.

>>> class Point(Record):
...     __slots__ = ("x", "y")
>>> p = Point(1, y=2)
>>> p
Point(x=1, y=2)
>>> p == Point(1, 2), p._replace(y=3)
(True, Point(x=1, y=3))
>>> p.x = 5
Traceback (most recent call last):
...
AttributeError: Point is read-only: cannot set 'x'
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, ClassVar

__all__ = ["Record", "setters"]


def _rebuild(cls: type[Record], values: tuple[Any, ...]) -> Record:
    """Unpickle a record: its class and its field values in order."""
    return cls(*values)


class Record:
    """A read-only record; subclasses declare their fields as ``__slots__``.

    ``_defaults`` (a class attribute, a mapping) gives the value of a field not passed; a field
    without a default must be passed, positionally or by name.
    """

    __slots__ = ()

    #: The fields, in order: the ``__slots__`` of every base, then the class's own.
    _fields: ClassVar[tuple[str, ...]] = ()
    #: Each field's slot setter, in the order of :attr:`_fields`.
    _setters: ClassVar[tuple[Callable[[Any, Any], None], ...]] = ()
    #: Values of the fields that may be left out.
    _defaults: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields: list[str] = []
        for klass in reversed(cls.__mro__):
            slots = klass.__dict__.get("__slots__", ())
            fields.extend((slots,) if isinstance(slots, str) else slots)
        cls._fields = tuple(fields)
        cls._setters = tuple(getattr(cls, name).__set__ for name in fields)

    def __init__(self, *values: Any, **named: Any) -> None:
        fields = self._fields
        if len(values) > len(fields):
            raise TypeError(f"{type(self).__name__} takes {len(fields)} fields, "
                            f"{len(values)} given")
        defaults = self._defaults
        for position, (name, set_field) in enumerate(zip(fields, self._setters)):
            if position < len(values):
                if name in named:
                    raise TypeError(f"{type(self).__name__} got field {name!r} twice")
                set_field(self, values[position])
            elif name in named:
                set_field(self, named.pop(name))
            elif name in defaults:
                set_field(self, defaults[name])
            else:
                raise TypeError(f"{type(self).__name__} needs field {name!r}")
        if named:
            raise TypeError(f"{type(self).__name__} has no field {sorted(named)[0]!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only: cannot delete {name!r}")

    def _values(self) -> tuple[Any, ...]:
        """The field values, in the order of :attr:`_fields`."""
        return tuple(getattr(self, name) for name in self._fields)

    def _replace(self, **changes: Any) -> Any:
        """A copy with the fields in ``changes`` replaced."""
        values = {name: getattr(self, name) for name in self._fields}
        unknown = set(changes) - set(values)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        values.update(changes)
        return type(self)(**values)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> Any:
        return (_rebuild, (type(self), self._values()))


def setters(cls: type[Record]) -> dict[str, Callable[[Any, Any], None]]:
    """``{field: slot setter}`` of a record class, for a hand-written ``__init__`` of a record
    built on every render::

        class Namespace(Record):
            __slots__ = ("multi_step_tool", "last_query_index")

            def __init__(self, multi_step_tool: bool, last_query_index: int) -> None:
                _set_multi_step_tool(self, multi_step_tool)
                _set_last_query_index(self, last_query_index)

        _set_multi_step_tool, _set_last_query_index = setters(Namespace).values()
    """
    return dict(zip(cls._fields, cls._setters))
