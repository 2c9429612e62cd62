"""The render core: what both layers (``chatformats.render`` and the pipeline) do around a port.

:func:`render` is the template layer's whole work once the port is known (the registry's port
table, ``chatformats._registry.port``, gives it):

1. **The call itself**: a variable named ``self`` fails as ``Template.render`` fails.
2. **The input check** (:func:`check_json_like`): ``messages`` is a list or tuple, and it and
   every variable the template reads are JSON-like data nested at most :data:`NESTING_LIMIT`
   containers deep, else :class:`InvalidConversation` / :class:`NestingTooDeep`, before anything
   renders; then a batch (``messages[0]`` a list or tuple) is refused (:func:`batch_given`).  A
   variable the template never reads (not among the names the registry gives,
   ``chatformats._registry.reads``) is not walked: the template cannot look it up, so it
   cannot change the output, whatever it holds.
3. **The clock** (:func:`clock`): ``now``, the time behind ``strftime_now``, read
   (``datetime.now()``) only for a template that calls ``strftime_now``; any other is given
   :data:`UNREAD_CLOCK`, since nothing it renders can depend on the time.
4. **The shadowed globals** and **the safety net** (:func:`call_port`): a caller variable named
   like a global the template calls shadows that global, as in jinja2; every exception a port
   did not mean to raise becomes a ``ChatFormatError``.

This module imports only the errors: the registry, the pipeline and the package call down
into it.
"""

from __future__ import annotations

from datetime import datetime

from .errors import (
    ChatFormatError,
    InvalidConversation,
    NestingTooDeep,
    TemplateError,
    TemplateTypeError,
    UnknownVariableError,
)

# ``typing`` is not imported at run time (``import chatformats`` loads this module, and stays
# in the low milliseconds): annotations are strings, and the names below exist for type checkers.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping, Sequence

    #: A port: ``render(messages, variables, now) -> str``.
    PortFunction = Callable[[Sequence[Any], Mapping[str, Any], datetime], str]

__all__ = ["NESTING_LIMIT", "render", "batch_given", "is_batch", "in_batch", "check_json_like",
           "check_variables", "clock", "UNREAD_CLOCK", "parse_now", "call_port", "not_callable"]

#: The deepest nesting either layer accepts: a value (``messages``, or one variable) whose
#: containers (dict, list, tuple) nest deeper than this is refused with :class:`NestingTooDeep`
#: before rendering, whatever the caller's stack.  ``messages=[{"content": "x"}]`` is 2 deep.
#:
#: The references fail on deep values, at a depth that depends on the caller's stack:
#: transformers 5.24 converts a conversation with two Python frames per level and fails from 496
#: levels on a fresh stack; jinja2's ``tojson`` fails from 993.  400 stays below both with room
#: for about 190 frames of the caller's own stack, so within it the parity contract holds.
NESTING_LIMIT = 400

_LEAVES = frozenset((str, int, float, bool, type(None)))
_CONTAINERS = frozenset((dict, list, tuple))


def render(name: Any, port: PortFunction, calls: frozenset[str], reads: frozenset[str],
           messages: Any, now: Any, variables: Mapping[str, Any], spans: Any = None) -> str:
    """The template layer with format ``name``'s ``port`` (whose template calls ``calls`` and
    looks up ``reads`` among the caller's variables, both from the registry's port table):
    the call checked as ``Template.render(messages=..., **variables)`` checks it; the input
    checked (``messages`` a list or tuple; it and every variable in ``reads`` JSON-like data
    within :data:`NESTING_LIMIT`, see :func:`check_json_like`; a variable the template never
    reads is not walked); the clock read where the template calls ``strftime_now``
    (:func:`clock`, inlined: this runs on every render); the port called behind the safety net."""
    if "self" in variables:
        raise TypeError("Template.render() got multiple values for argument 'self'")
    if type(messages) is not list and type(messages) is not tuple:
        raise InvalidConversation(
            f"messages must be a list of messages, not {type(messages).__name__}"
        )
    try:  # check_json_like(messages, "messages"), inlined (a list is never a leaf)
        if not _is_json_like(messages):
            _explain(messages, "messages")
    except RuntimeError as exc:
        _mutated(exc, "messages")
    for key, value in variables.items():
        # a flag or a token needs no walk; a variable the template never reads is not checked
        if type(value) not in _LEAVES and key in reads:
            check_json_like(value, key)
    if messages and (type(messages[0]) is list or type(messages[0]) is tuple):
        raise batch_given(messages)
    if now is None:
        now = datetime.now() if "strftime_now" in calls else UNREAD_CLOCK
    elif not isinstance(now, datetime):
        now = parse_now(now)
    return call_port(name, port, calls, messages, variables, now, spans)


# ------------------------------------------------------------------ batches


def batch_given(messages: Sequence[Any]) -> InvalidConversation:
    """What a single-conversation API (``render``, ``render_spans``, ``render_ids``, ``audit``)
    raises for a batch: ``messages[0]`` is a list or tuple, which transformers'
    ``apply_chat_template`` reads as the first of a list of conversations.  The template would
    render such a list as if it were one conversation of odd messages (``""`` for the Qwen
    formats: no message has a role), so this is refused before rendering (deliberate difference
    6 in ``docs/guarantees.md``)."""
    count = len(messages)
    return InvalidConversation(
        f"messages is a batch of {count} conversation{'s' if count != 1 else ''} (messages[0] is "
        f"a {type(messages[0]).__name__}, not a message); this API renders one conversation: "
        "render each one, or call chatformats.apply_chat_template, which renders a batch as a "
        "list of prompts"
    )


def is_batch(messages: Any) -> bool:
    """transformers' test for a batch (``apply_chat_template``): a non-empty list or tuple whose
    first item is a list or tuple, or has ``.messages``."""
    return (isinstance(messages, (list, tuple)) and len(messages) > 0
            and (isinstance(messages[0], (list, tuple)) or hasattr(messages[0], "messages")))


def in_batch(err: ChatFormatError, index: int, root: str = "conversations") -> ChatFormatError:
    """``err``, raised for item ``index`` of a batch, with that item named first in its message
    (``conversations[2]: ...``) and kept as ``err.batch_index``; its class, its other attributes
    and its traceback are unchanged."""
    err.args = (f"{root}[{index}]: {err}",)
    err.batch_index = index  # type: ignore[attr-defined]
    return err


# ------------------------------------------------------------------ strictness


def check_variables(fmt: Any, variables: Any, known: Any = ()) -> None:
    """``strict=True``: every name in ``variables`` is one format ``fmt``'s template reads (or
    in ``known``); raises :class:`UnknownVariableError` listing the template's variables else."""
    unknown = sorted(set(variables) - set(fmt.variables) - set(known))
    if unknown:
        raise UnknownVariableError(
            f"{fmt.name}: the template does not read {', '.join(unknown)}; it reads "
            f"{', '.join(fmt.variables) or 'no variables'} (and messages)"
        )


# ------------------------------------------------------------------ the clock


def clock(now: Any, calls: frozenset[str] | None = None) -> datetime:
    """``now``, the time ``strftime_now`` formats: ``datetime.now()`` when not given (as
    transformers), else a ``datetime`` or what the CLI's ``--now`` takes (:func:`parse_now`).
    Given the globals a template calls (``calls``) that do not include ``strftime_now``, a
    missing ``now`` is :data:`UNREAD_CLOCK` instead: the time is not read for a template that
    cannot print it (a given ``now`` is still checked, so a bad one fails for every format)."""
    if now is None:
        if calls is not None and "strftime_now" not in calls:
            return UNREAD_CLOCK  # type: ignore[no-any-return]
        return datetime.now()
    if not isinstance(now, datetime):
        return parse_now(now)
    return now


class _UnreadClock:
    """The clock of a render whose template never calls ``strftime_now`` and whose caller gave
    no ``now``: reading ``datetime.now()`` there costs about 0.2 us a render (3% of a short
    chat's, ``benchmarks/results/overhead.md``) for a value no output can depend on.  The
    format's ``calls`` are read off its reference template (``tests/test_core.py``), so a
    port that reads this clock is a bug, and reading it raises
    :class:`~chatformats.InternalError`."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # a protocol probe (copy's __deepcopy__, ...), not a read
            raise AttributeError(name)
        from .errors import InternalError

        raise InternalError("the port read the clock, but its template never calls "
                            "strftime_now (the format's calls): the port or the spec is wrong")

    def __repr__(self) -> str:
        return "UNREAD_CLOCK"

    def __reduce__(self) -> str:  # copied and pickled as the one module constant
        return "UNREAD_CLOCK"


#: ``now`` for a template that never calls ``strftime_now`` when the caller gave none
#: (:func:`clock`, :func:`render`); the port is passed it and never reads it.
UNREAD_CLOCK: Any = _UnreadClock()


def parse_now(value: Any) -> datetime:
    """The clock ``now=`` names when it is not a ``datetime``: what the CLI's ``--now`` takes, an
    ISO 8601 date or date-time string (``2026-03-07``, ``2026-03-07T14:05:09``; a trailing ``Z``
    or an offset is converted to UTC, as a naive time); anything else is an
    :class:`~chatformats.errors.InvalidClock` (a ``ChatFormatError`` and a ``TypeError``) saying
    what ``now`` takes."""
    from datetime import timezone

    from .errors import InvalidClock

    if not isinstance(value, str):
        raise InvalidClock(f"now must be a datetime or an ISO 8601 date or date-time string "
                           f"(2026-03-07, 2026-03-07T14:05:09Z), not {type(value).__name__}")
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidClock(f"now: expected a datetime or an ISO 8601 date or date-time "
                           f"(2026-03-07 or 2026-03-07T14:05:09), got {value[:80]!r}") from None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(timezone.utc).replace(tzinfo=None)
    return parsed


# ------------------------------------------------------------------ the input check


def check_json_like(value: Any, path: str) -> None:
    """Refuse what is not JSON-like data with :class:`InvalidConversation` naming its path, and a
    value nested deeper than :data:`NESTING_LIMIT` with :class:`NestingTooDeep`.

    Accepted: ``dict`` (keys ``str``, ``int``, ``float``, ``bool`` or ``None``), ``list``,
    ``tuple``, ``str``, ``int``, ``float``, ``bool``, ``None`` — exact types, shared or even
    cyclic references included.  Subclasses (enums, ``OrderedDict``, numpy scalars) and other
    objects are refused: Jinja would read their attributes, which a port does not model.
    ``apply_chat_template`` converts such values the way transformers does before they get here.

    Depth counts containers: ``[{"content": "x"}]`` is 2 deep.  A value with shared or cyclic
    references is measured along the shortest path to each container (a cycle does not make a
    value deep; ``repr`` and ``json.dumps`` stop at a repeated container too).

    This walk runs on every render, so it runs twice only on failure: :func:`_is_json_like`
    answers first (its common case — a list of dicts of strings — is one tight loop; it tracks
    no paths and keeps no visited set, and it measures depth level by level, at no cost per
    value); only when it cannot accept the value does :func:`_explain` walk it again, to name
    the path or to accept shared and cyclic references.
    """
    try:
        if type(value) in _LEAVES or _is_json_like(value):
            return
        _explain(value, path)
    except RuntimeError as exc:  # only exact dicts, lists and tuples are iterated here
        _mutated(exc, path)


def _mutated(exc: RuntimeError, path: str) -> None:
    """Raise ``exc``, a ``RuntimeError`` the input check of ``path`` met, as
    :class:`~chatformats.ConcurrentModification` when the value changed size under the walk,
    else as it is."""
    from ._safety import concurrent, is_mutation

    if is_mutation(exc):
        raise concurrent(path) from None
    raise exc


def _explain(value: Any, path: str) -> None:
    """The slow walk: level by level, each container once (by ``id``), tracking paths; raises
    for the first value to refuse (the shallowest), else returns."""
    level: list[tuple[Any, Any]] = [(value, None)]
    seen: set[int] = set()
    depth = 1
    while level:
        below: list[tuple[Any, Any]] = []
        push = below.append
        for obj, where in level:
            tp = type(obj)
            if tp in _LEAVES:
                continue
            if tp is not dict and tp is not list and tp is not tuple:
                raise InvalidConversation(
                    f"{_path(path, where)} is a {tp.__module__}.{tp.__qualname__}, not JSON-like data "
                    "(dict, list, tuple, str, int, float, bool or None)"
                )
            if id(obj) in seen:
                continue
            if depth > NESTING_LIMIT:
                raise _too_deep(_path(path, where))
            seen.add(id(obj))
            if tp is dict:
                for key, sub in obj.items():
                    if type(key) not in _LEAVES:
                        raise InvalidConversation(
                            f"{_path(path, where)} has a key of type {type(key).__name__}; keys must be strings"
                        )
                    if type(sub) not in _LEAVES:
                        push((sub, (where, key)))
            else:
                for index, sub in enumerate(obj):
                    if type(sub) not in _LEAVES:
                        push((sub, (where, index)))
        level = below
        depth += 1


def _too_deep(path: str) -> NestingTooDeep:
    return NestingTooDeep(
        f"{path} is nested more than {NESTING_LIMIT} levels deep (the nesting limit; "
        "see docs/guarantees.md)"
    )


def _is_json_like(value: Any) -> bool:
    """Whether :func:`check_json_like` accepts ``value`` at once, without building any path.

    The walk goes level by level (breadth first), so the depth is the number of levels walked.
    Conversations are trees, so it first keeps no visited set (an ``id()`` and a set insertion per
    container are a quarter of its time on nested tool schemas).  Shared or cyclic references
    would make that walk repeat itself, so after :data:`_TREE_BUDGET` containers it goes on with
    a visited set from the level it has reached: the work done is kept (no walk starts again), so
    the cost grows with the input without a step at the budget.  It answers False for anything
    to refuse (or deeper than :data:`NESTING_LIMIT`), and :func:`_explain` then names it."""
    leaves = _LEAVES
    if type(value) is list or type(value) is tuple:
        level2: list[Any] = []  # level-2 values that are not dicts
        level3: list[Any] = []  # what the level-2 dicts hold
        push = level3.append
        for sub in value:  # levels 1 and 2 (never beyond the limit): usually messages
            if type(sub) is dict:
                for key, leaf in sub.items():
                    if type(leaf) is not str and type(leaf) not in leaves:
                        push(leaf)
                    if type(key) is not str and type(key) not in leaves:
                        return False
            elif type(sub) not in leaves:
                level2.append(sub)
        if not level3 and not level2:  # a plain chat: only strings below the messages
            return True
        return _walk_json_like(level2, 2) and _walk_json_like(level3, 3)
    return _walk_json_like([value], 1)


#: Containers :func:`_is_json_like` walks as a tree before it assumes shared references and goes
#: on with a visited set (a cycle would otherwise never end; a DAG could take exponential time).
_TREE_BUDGET = 100_000


def _walk_json_like(level: list[Any], depth: int) -> bool:
    """Check the values of ``level`` (all at ``depth``) and everything below them, one level
    at a time: as a tree for :data:`_TREE_BUDGET` containers, then each container once (by
    ``id``); False for anything :func:`_explain` must decide.

    The switch bounds the work: at most :data:`_TREE_BUDGET` containers are walked before it
    (however often a shared one comes round), and each container at most twice after it."""
    leaves = _LEAVES
    containers = _CONTAINERS
    budget = _TREE_BUDGET
    limit = NESTING_LIMIT
    seen: set[int] | None = None
    while level:
        below: list[Any] = []
        push = below.append
        for obj in level:
            if seen is None:
                budget -= 1
                if budget < 0:  # shared or cyclic references, or a large tree: keep what is done
                    seen = set()
            if seen is not None:
                if id(obj) in seen:
                    continue
                seen.add(id(obj))
            tp = type(obj)
            if tp is dict:
                if depth > limit:
                    return False
                for key, sub in obj.items():
                    if type(key) is not str and type(key) not in leaves:
                        return False
                    tp = type(sub)
                    if tp is str or tp in leaves:
                        continue
                    if tp in containers:
                        push(sub)
                    else:
                        return False
            elif tp is list or tp is tuple:
                if depth > limit:
                    return False
                for sub in obj:
                    tp = type(sub)
                    if tp is str or tp in leaves:
                        continue
                    if tp in containers:
                        push(sub)
                    else:
                        return False
            elif tp not in leaves:
                return False
        level = below
        depth += 1
    return True


def _path(root: str, where: Any) -> str:
    parts: list[str] = []
    while where is not None:
        where, key = where
        parts.append(f".{key}" if type(key) is str and key.isidentifier() else f"[{_key_repr(key)}]")
    return root + "".join(reversed(parts))


def _key_repr(key: Any) -> str:
    """``repr(key)``, except for an integer too long for ``repr`` (more than
    ``sys.get_int_max_str_digits()`` digits), shown by its size."""
    if type(key) is int and key.bit_length() > 13_000:  # ~3,900 digits: repr may refuse
        try:
            return repr(key)
        except ValueError:
            return f"<an integer of {key.bit_length()} bits>"
    return repr(key)


# ------------------------------------------------------------------ shadowed globals


class _ShadowedClock:
    """The clock when the caller passed a variable named ``strftime_now``: jinja2 resolves the
    name to that variable, and calling it fails where the template calls it (reading this
    clock fails the same way)."""

    __slots__ = ("error",)

    def __init__(self, error: TemplateTypeError) -> None:
        self.error = error

    def __getattr__(self, name: str) -> Any:
        raise self.error


def not_callable(name: str, value: Any) -> TemplateTypeError:
    """What jinja2 raises when a template calls ``name`` and the caller's variable ``name`` (a
    JSON value, never callable) shadows the environment's global: a ``TypeError``."""
    kind = type(value).__name__
    return TemplateTypeError(f"{name} is {kind}: '{kind}' object is not callable")


# ------------------------------------------------------------------ the safety net


def call_port(name: Any, port: PortFunction, calls: frozenset[str], messages: Any,
              variables: Mapping[str, Any], now: datetime, spans: Any = None) -> str:
    """``port(messages, variables, now)`` with the environment's globals as the caller's
    variables leave them, behind the safety net both layers share (``port(messages, variables,
    now, spans)`` when the caller asked for spans: ``spans`` is a ``chatformats._spans.Recorder``).

    Shadowed globals: jinja2 looks a name up in the render's variables before the environment's
    globals, so a variable named like a global the template calls (``calls``, from the registry)
    makes that call fail with a ``TypeError`` (no JSON value is callable), where the template
    makes it:

    - ``raise_exception``: the template's only way to raise :class:`TemplateError`, so the port's
      ``TemplateError`` becomes that ``TypeError`` (every call's argument is a literal string,
      which ``tests/test_core.py`` checks, so nothing else can fail first);
    - ``strftime_now``: the clock becomes the caller's value, which fails when read;
    - ``namespace``: the ports model ``namespace(...)`` as a record, and check the caller's
      variables where the template calls it (``_jinja.namespace``).

    The safety net: a ``RecursionError`` becomes :class:`NestingTooDeep`; ``MemoryError`` and
    ``SystemError`` (and every ``BaseException`` that is not an ``Exception``) pass through
    unchanged; any other exception that is not a :class:`ChatFormatError` is classified by
    :func:`chatformats._safety.unexpected` (input changed during the render, an integer too long
    to write, or an :class:`InternalError`: a port bug, which the tests fail on)."""
    shadow_raise = False
    if variables and not calls.isdisjoint(variables):
        if "strftime_now" in calls and "strftime_now" in variables:
            now = _ShadowedClock(not_callable("strftime_now", variables["strftime_now"]))  # type: ignore[assignment]
        shadow_raise = "raise_exception" in calls and "raise_exception" in variables
    try:
        if spans is None:
            return port(messages, variables, now)
        return port(messages, variables, now, spans)  # type: ignore[call-arg]
    except TemplateError:
        if shadow_raise:
            raise not_callable("raise_exception", variables["raise_exception"]) from None
        raise
    except ChatFormatError:
        raise
    except RecursionError:
        raise NestingTooDeep("input is nested too deeply to render") from None
    except (MemoryError, SystemError):  # resource and interpreter faults: unchanged
        raise
    except Exception as exc:
        from ._safety import unexpected

        raise unexpected(name, port, messages, variables, now, exc,
                         None if spans is None else type(spans)) from exc
