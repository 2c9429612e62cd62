"""The Jinja-equivalent primitives every port shares.

Each function models one Jinja construct exactly as jinja2 3.1 evaluates it in the environment
Hugging Face transformers builds for chat templates (``ImmutableSandboxedEnvironment`` with the
default ``Undefined``, ``trim_blocks``, ``lstrip_blocks``, and transformers' own ``tojson``).
Each docstring states the jinja2 definition and an example written as ``{{ ... }} -> ...``;
``tests/test_jinja_core.py`` checks every one against jinja2 itself on generated values.

Inputs are JSON-like data (``dict``, ``list``, ``tuple``, ``str``, ``int``, ``float``, ``bool``,
``None``, exact types): the render core (``chatformats._core.check_json_like``) enforces that
once per render, so the hot paths below can test exact types.
"""

from __future__ import annotations

import json
import json.encoder
from datetime import datetime
from typing import Any, Callable, Iterable, Mapping, NoReturn

from .errors import (
    ChatFormatError,
    InvalidConversation,
    NestingTooDeep,
    TemplateTypeError,
    UndefinedValueError,
)

__all__ = [
    "MISSING",
    "Missing",
    "attr",
    "by_json",
    "item",
    "to_str",
    "trim",
    "tojson",
    "items",
    "length",
    "iterate",
    "contains",
    "is_mapping",
    "is_iterable",
    "need_str",
    "need_str_at",
    "concat_error",
    "namespace",
    "think_split",
    "type_name",
]


class Missing:
    """Jinja's default ``Undefined``: what a missing key, a failed lookup or a variable that
    was not passed evaluates to.

    Like ``jinja2.Undefined`` it is false, renders as ``""`` (so ``str(MISSING) == ""``), has
    length 0, iterates nothing and equals only itself::

        {{ missing }} -> ""          {{ missing|length }} -> 0
        {% for x in missing %}{% endfor %} -> ""   {{ missing == missing }} -> True

    Anything that reads *into* it (an attribute, an item, ``+``) fails; the ports raise
    :class:`~chatformats.errors.UndefinedValueError` there (see :func:`attr`, :func:`need_str`).
    """

    __slots__ = ()
    _instance: Missing | None = None

    def __new__(cls) -> Missing:
        if cls._instance is None:
            cls._instance = object.__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __str__(self) -> str:
        return ""

    def __len__(self) -> int:
        return 0

    def __iter__(self) -> Any:
        return iter(())

    def __repr__(self) -> str:
        return "MISSING"

    def __reduce__(self) -> str:
        return "MISSING"


#: The one undefined value.
MISSING = Missing()



def type_name(value: Any) -> str:
    """The type name Jinja's error messages would use (``Undefined`` for :data:`MISSING`)."""
    return "Undefined" if value is MISSING else type(value).__name__


def _undefined(path: str) -> NoReturn:
    raise UndefinedValueError(f"{path} is undefined")


def attr(obj: Any, name: str, path: str = "value") -> Any:
    """``obj.name``: jinja2's ``getattr`` — the Python attribute first, then the item.

    For the names ports read (``role``, ``content``, ``tool_calls``, ... — no JSON type has
    an attribute of that name, which ``tests/test_jinja_core.py`` checks) this is the dict
    item, or :data:`MISSING` for a dict without that key and for every non-dict value::

        {{ {'role': 'user'}.role }} -> user      {{ 'text'.role }} -> ""  (undefined)
        {{ none.role }} -> ""                    {{ missing.role }} -> UndefinedError
    """
    if type(obj) is dict:
        return obj.get(name, MISSING)
    if obj is MISSING:
        _undefined(f"{path} (reading .{name})")
    return MISSING


def item(obj: Any, key: Any, path: str = "value") -> Any:
    """``obj[key]``: jinja2's ``getitem`` — the item first, then (for a string key) the
    attribute; a failed lookup is :data:`MISSING`::

        {{ [1, 2][0] }} -> 1     {{ [1, 2][5] }} -> ""     {{ 'ab'[1] }} -> b
        {{ {'a': 1}['a'] }} -> 1 {{ 5['a'] }} -> ""        {{ missing[0] }} -> UndefinedError
    """
    if obj is MISSING:
        _undefined(f"{path} (reading [{key!r}])")
    try:
        return obj[key]
    except (TypeError, LookupError):
        return MISSING


def to_str(value: Any) -> str:
    """``{{ value }}`` and ``value|string``: ``str(value)`` (so a dict renders as its Python
    repr, ``True`` as ``True``, ``None`` as ``None``) and ``""`` for undefined::

        {{ {'a': [1, None]} }} -> {'a': [1, None]}    {{ 1.0 }} -> 1.0    {{ missing }} -> ""
    """
    if type(value) is str:
        return value
    try:
        return str(value)
    except RecursionError:
        raise NestingTooDeep("value is nested too deeply to render") from None
    except ValueError as exc:  # an int of more than 4300 digits (sys.get_int_max_str_digits)
        raise TemplateTypeError(f"cannot render value: {exc}") from None


def trim(value: Any) -> str:
    """``value|trim``: ``str(value).strip()`` — whitespace as Python's ``str.strip`` defines it::

        {{ '  a \\n'|trim }} -> a     {{ ['x']|trim }} -> ['x']     {{ missing|trim }} -> ""
    """
    if type(value) is str:
        return value.strip()
    return to_str(value).strip()


def tojson(value: Any, indent: int | None = None, ensure_ascii: Any = False) -> str:
    """``value|tojson`` as transformers defines it: ``json.dumps(value, ensure_ascii=ensure_ascii,
    indent=indent)`` — no key sorting, no HTML escaping; ``ensure_ascii`` is the filter's keyword
    argument (``False`` unless given: ``tojson(ensure_ascii=False)`` is ``tojson``)::

        {{ {'b': 1, 'a': 'é<'}|tojson }} -> {"b": 1, "a": "é<"}
        {{ 'é'|tojson(ensure_ascii=False) }} -> "é"     {{ 'é'|tojson(ensure_ascii=True) }} -> "\\u00e9"
        {{ (1, 2)|tojson(indent=2) }} -> "[\\n  1,\\n  2\\n]"
        {{ missing|tojson }} -> TypeError (Object of type Undefined is not JSON serializable)
    """
    if value is MISSING:
        raise TemplateTypeError("Object of type Undefined is not JSON serializable")
    if ensure_ascii:
        try:
            return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)
        except RecursionError:
            raise NestingTooDeep("value is nested too deeply for tojson") from None
        except (TypeError, ValueError) as exc:
            raise TemplateTypeError(f"tojson failed: {exc}") from None
    if indent is None:
        # The fast path: json.dumps's own C encoder, built once instead of on every call (as
        # json.dumps does, with a JSONEncoder), and without the circular-reference markers:
        # a cycle makes it fail with RecursionError instead of ValueError.  Any failure falls
        # through to json.dumps itself, so text and errors are exactly json.dumps's.  The
        # encoder holds no state, so threads share it.
        if type(value) is str:
            return _encode_basestring(value)
        if _ENCODE is not None:
            try:
                return "".join(_ENCODE(value, 0))
            except Exception:  # noqa: BLE001 — json.dumps below gives the exact error
                pass
    try:
        return json.dumps(value, ensure_ascii=False, indent=indent)
    except RecursionError:
        raise NestingTooDeep("value is nested too deeply for tojson") from None
    except (TypeError, ValueError) as exc:
        raise TemplateTypeError(f"tojson failed: {exc}") from None


_encode_basestring: Callable[[str], str] = getattr(json.encoder, "c_encode_basestring", None) or json.encoder.encode_basestring


def _make_encoder() -> Any:
    """The C encoder ``json.dumps(x, ensure_ascii=False)`` builds on each call (same
    ``default``, string encoder, separators, ``allow_nan``; no circular-reference markers), or
    None where the interpreter has no C encoder or it does not give json.dumps's bytes on a
    probe value."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    try:
        encode = make(None, json.JSONEncoder(ensure_ascii=False).default, _encode_basestring, None,
                      ": ", ", ", False, False, True)
        probe = {"a": [1, 2.5, None, True, "é\n\u2028"], 1: {}, 2.0: [], False: (), None: float("nan")}
        if "".join(encode(probe, 0)) != json.dumps(probe, ensure_ascii=False):
            return None
    except Exception:  # noqa: BLE001 — a C encoder with another signature: use json.dumps
        return None
    return encode


_ENCODE = _make_encoder()


def items(value: Any, path: str = "value") -> Iterable[Any]:
    """``value|items``: the mapping's ``(key, value)`` pairs; nothing for undefined; a
    non-mapping fails (jinja2: ``TypeError: Can only get item pairs from a mapping.``)::

        {% for k, v in {'a': 1}|items %}{{ k }}={{ v }}{% endfor %} -> a=1
    """
    if type(value) is dict:
        return value.items()
    if value is MISSING:
        return ()
    raise TemplateTypeError(f"{path} is {type_name(value)}: Can only get item pairs from a mapping.")


def length(value: Any, path: str = "value") -> int:
    """``value|length``: ``len(value)``; 0 for undefined; a number or ``None`` fails::

        {{ 'abc'|length }} -> 3    {{ missing|length }} -> 0    {{ none|length }} -> TypeError
    """
    try:
        return len(value)
    except TypeError:
        raise TemplateTypeError(
            f"{path} is {type_name(value)}: object of type '{type_name(value)}' has no len()"
        ) from None


def iterate(value: Any, path: str = "value") -> Iterable[Any]:
    """``{% for x in value %}``: a list or tuple's items, a string's characters, a dict's keys,
    nothing for undefined; a number, bool or ``None`` fails::

        {% for c in 'ab' %}[{{ c }}]{% endfor %} -> [a][b]    {% for k in {'a': 1} %}{{ k }}{% endfor %} -> a
    """
    tp = type(value)
    if tp is list or tp is tuple or tp is str or tp is dict or value is MISSING:
        return value  # type: ignore[no-any-return]
    raise TemplateTypeError(f"{path} is {type_name(value)}: '{type_name(value)}' object is not iterable")


def contains(haystack: Any, needle: Any, path: str = "value") -> bool:
    """``needle in haystack``: Python's ``in`` (substring for strings, key for dicts, equality
    for lists); undefined contains nothing; ``None`` or a number fails::

        {{ 'im' in 'image' }} -> True    {{ 'a' in {'a': 1} }} -> True    {{ 'a' in missing }} -> False
    """
    try:
        return needle in haystack
    except TypeError as exc:
        # CPython 3.11's words, whatever the interpreter (3.14 words two of these differently)
        tp = type(haystack)
        if tp is str:
            reason = f"'in <string>' requires string as left operand, not {type(needle).__name__}"
        elif tp is dict:
            reason = f"unhashable type: '{type(needle).__name__}'"
        elif tp is not list and tp is not tuple:
            reason = f"argument of type '{type_name(haystack)}' is not iterable"
        else:
            reason = str(exc)
        raise TemplateTypeError(f"{path}: {reason}") from None


def is_mapping(value: Any) -> bool:
    """``value is mapping``: ``isinstance(value, collections.abc.Mapping)`` (a dict)."""
    return type(value) is dict


def is_iterable(value: Any) -> bool:
    """``value is iterable``: ``iter(value)`` succeeds — strings, lists, tuples, dicts and
    undefined are iterable; numbers, bools and ``None`` are not."""
    tp = type(value)
    return tp is str or tp is list or tp is dict or tp is tuple or value is MISSING


def concat_error(value: Any, path: str) -> Exception:
    """The error Jinja raises when ``value`` (not a string) meets ``+`` with a string: an
    ``UndefinedError`` for undefined, a ``TypeError`` for anything else."""
    if value is MISSING:
        return UndefinedValueError(f"{path} is undefined (cannot concatenate it to a string)")
    return TemplateTypeError(
        f'{path} is {type_name(value)}: can only concatenate str (not "{type_name(value)}") to str'
    )


def need_str(value: Any, path: str) -> str:
    """``'text' + value``: ``value`` itself when it is a string, else Jinja's failure."""
    if type(value) is str:
        return value
    raise concat_error(value, path)


def need_str_at(value: Any, index: int, field: str = ".content") -> str:
    """``'text' + messages[index]<field>``: :func:`need_str` for a message's field, the path
    (``messages[3].content``) built only when it fails.  The message loops' fast path: an
    f-string path per message, built for an error that almost never comes, was a sixth of
    ``deepseek-r1``'s render of the ``chat_100`` workload (``benchmarks/results/speed.md``)."""
    if type(value) is str:
        return value
    raise concat_error(value, f"messages[{index}]{field}")


def namespace(variables: Mapping[str, Any]) -> None:
    """``namespace(...)``, transformers' global, which the ports model as a record: the call
    itself, which fails only when the caller passed a variable named ``namespace`` (jinja2 looks
    a name up in the render's variables before the environment's globals, and no JSON value is
    callable)::

        {% set ns = namespace(a=1) %} with namespace=1 -> TypeError ('int' object is not callable)

    A port calls this where its template calls ``namespace(...)``; the other globals a caller
    can shadow are the render core's (``chatformats._core.call_port``)."""
    if "namespace" in variables:
        from ._core import not_callable

        raise not_callable("namespace", variables["namespace"])


def think_split(content: str) -> tuple[str, str]:
    """The reasoning and the answer of an assistant content that holds ``</think>``, as the
    Qwen3 2507 and MiniCPM-V 4.6 templates split it::

        {%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}
        {%- set content = content.split('</think>')[-1].lstrip('\\n') %}

    The reasoning is what precedes the first ``</think>`` and follows the last ``<think>``
    before it; the answer is what follows the last ``</think>`` (so text between two
    ``</think>`` is dropped).  Both are substrings of ``content``::

        '<think>\\nr\\n</think>\\n\\na' -> ('r', 'a')    'x</think>y</think>z' -> ('x', 'z')
    """
    # str.partition / rpartition take the same halves as split()[0] / split()[-1]
    head = content.partition("</think>")[0].rstrip("\n")
    return head.rpartition("<think>")[2].lstrip("\n"), content.rpartition("</think>")[2].lstrip("\n")


_INF = float("inf")


def _json_float(value: float) -> str:
    # json.encoder's floatstr with allow_nan=True
    if value != value:
        return "NaN"
    if value == _INF:
        return "Infinity"
    if value == -_INF:
        return "-Infinity"
    return float.__repr__(value)


def by_json(cache: dict[str, str], value: Any, render: Callable[[Any], str], size: int,
            longest: int) -> str:
    """``render(value)``, kept in ``cache`` keyed by ``value``'s compact JSON (:func:`tojson`):
    exact where the text is a function of the compact JSON, as an indented dump is (the same
    tokens, other whitespace).  A server sends the same tools with every request, so a port's
    tool block renders from the cache where ``tojson(indent=...)`` (no C encoder below Python
    3.13) would be its slowest part.  A value with no JSON (cyclic, too deep, not JSON-like) is
    rendered as it is, with ``render``'s own failure.  Bounded: keys of at most ``longest``
    characters, at most ``size`` of them; full, the cache is emptied."""
    try:
        key = tojson(value)
    except ChatFormatError:
        return render(value)
    text = cache.get(key)
    if text is None:
        text = render(value)
        if len(key) <= longest:
            if len(cache) >= size:
                cache.clear()
            cache[key] = text
    return text


def tojson_indented(value: Any, indent: int) -> str:
    """``value|tojson(indent=n)`` as transformers defines it: ``json.dumps(value,
    ensure_ascii=False, indent=n)``, byte for byte, about four times faster.

    On Python < 3.13 ``json.dumps`` with an indent runs json's pure-Python encoder; this walks
    JSON-like data (exact types, see :func:`check_json_like`) once, with json's own C string
    encoder for strings, its float spelling (``NaN``, ``Infinity``) and key conversion
    (``true``/``false``/``null``/numbers as strings), and fails as ``json.dumps`` does on a
    circular structure, an int too long to print or undefined::

        {{ {'a': [1, 'é'], 'b': {}}|tojson(indent=2) }} -> "{\\n  \\"a\\": [\\n    1,\\n    \\"é\\"\\n  ],\\n  \\"b\\": {}\\n}"

    ``tests/test_llama3_2_vision.py`` checks it against ``json.dumps`` on generated values.
    """
    if value is MISSING:
        raise TemplateTypeError("Object of type Undefined is not JSON serializable")
    step = " " * indent
    out: list[str] = []
    emit = out.append
    markers: set[int] = set()
    enc_str = json.encoder.encode_basestring  # json's C string encoder (ensure_ascii=False)

    def enc(obj: Any, newline: str) -> None:
        tp = type(obj)
        if tp is str:
            emit(enc_str(obj))
        elif tp is dict:
            if not obj:
                emit("{}")
                return
            marker = id(obj)
            if marker in markers:
                raise ValueError("Circular reference detected")
            markers.add(marker)
            inner = newline + step
            opener = "{" + inner
            sep = "," + inner
            first = True
            for key, sub in obj.items():
                kt = type(key)
                if kt is not str:
                    if kt is float:
                        key = _json_float(key)
                    elif key is True:
                        key = "true"
                    elif key is False:
                        key = "false"
                    elif key is None:
                        key = "null"
                    elif kt is int:
                        key = int.__repr__(key)
                    else:
                        raise TypeError(
                            f"keys must be str, int, float, bool or None, not {kt.__name__}"
                        )
                emit((opener if first else sep) + enc_str(key) + ": ")
                first = False
                if type(sub) is str:
                    emit(enc_str(sub))
                else:
                    enc(sub, inner)
            emit(newline + "}")
            markers.discard(marker)
        elif tp is list or tp is tuple:
            if not obj:
                emit("[]")
                return
            marker = id(obj)
            if marker in markers:
                raise ValueError("Circular reference detected")
            markers.add(marker)
            inner = newline + step
            sep = "," + inner
            emit("[" + inner)
            first = True
            for sub in obj:
                if first:
                    first = False
                else:
                    emit(sep)
                if type(sub) is str:
                    emit(enc_str(sub))
                else:
                    enc(sub, inner)
            emit(newline + "]")
            markers.discard(marker)
        elif obj is None:
            emit("null")
        elif obj is True:
            emit("true")
        elif obj is False:
            emit("false")
        elif tp is int:
            emit(int.__repr__(obj))
        elif tp is float:
            emit(_json_float(obj))
        else:
            raise TypeError(f"Object of type {tp.__name__} is not JSON serializable")

    try:
        enc(value, "\n")
    except RecursionError:
        raise NestingTooDeep("value is nested too deeply for tojson") from None
    except (TypeError, ValueError) as exc:
        raise TemplateTypeError(f"tojson failed: {exc}") from None
    return "".join(out)



_C_NAMES = {
    "a": ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"),
    "A": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "b": ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"),
    "B": ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"),
}
_C_EXPANSIONS = {"c": "%a %b %e %H:%M:%S %Y", "x": "%m/%d/%y", "X": "%H:%M:%S", "h": "%b"}


def strftime_now(now: Any, fmt: str) -> str:
    """transformers' ``strftime_now(fmt)`` global — ``datetime.now().strftime(fmt)`` — on the
    injected clock ``now``, as the C locale formats it::

        {{ strftime_now("%d %b %Y") }} -> 07 Mar 2026

    ``datetime.strftime`` follows the process's ``LC_TIME`` once a host application calls
    ``locale.setlocale`` (then transformers renders ``07 Mär 2026`` in a German process).  A
    prompt must not depend on that, so the names (``%a %A %b %B %h``), ``%p`` and the composite
    ``%c %x %X`` are always the C locale's; every other directive is ``datetime.strftime``'s own
    (numbers do not depend on the locale).  In the C locale this is ``now.strftime(fmt)`` exactly
    (``tests/test_jinja_core.py``).

    A format is split once into its plan (:func:`_strftime_plan`, cached: templates pass the same
    literal on every render); a format without locale-dependent directives is one
    ``now.strftime`` call.
    """
    plan = _STRFTIME_PLANS.get(fmt)
    if plan is None:
        plan = _strftime_plan(fmt)
        if len(_STRFTIME_PLANS) >= 256:
            _STRFTIME_PLANS.clear()
        _STRFTIME_PLANS[fmt] = plan
    if type(now) is datetime:
        return _strftime(now, plan)
    try:  # a datetime subclass (the caller's own code runs), or a shadowed clock
        return _strftime(now, plan)
    except (MemoryError, ChatFormatError):  # the shadowed call's own TemplateTypeError
        raise
    except Exception as exc:
        raise InvalidConversation(
            f"now: the clock's strftime failed: {type(exc).__name__}: {exc}"
        ) from exc


def _strftime(now: Any, plan: tuple[Any, ...]) -> str:
    if len(plan) == 1 and type(plan[0]) is str:
        text: str = now.strftime(plan[0])
        return text
    return "".join([now.strftime(step) if type(step) is str else step(now) for step in plan])


#: Each format's plan: ``str`` pieces for ``datetime.strftime`` (locale-independent directives
#: and text) and functions of ``now`` for the C locale's names, in order.
_STRFTIME_PLANS: dict[str, tuple[Any, ...]] = {}


def _c_name(code: str) -> Callable[[Any], str]:
    names = _C_NAMES[code]
    if code in "bB":
        return lambda now: names[now.month - 1]
    return lambda now: names[now.weekday()]


def _c_ampm(now: Any) -> str:
    return "AM" if now.hour < 12 else "PM"


def _strftime_plan(fmt: str) -> tuple[Any, ...]:
    """The steps :func:`strftime_now` formats ``fmt`` with (see :data:`_STRFTIME_PLANS`)."""
    out: list[Any] = []
    pending: list[str] = []  # directives and text strftime can format in any locale
    i, n = 0, len(fmt)
    while i < n:
        ch = fmt[i]
        if ch == "%" and i + 1 < n:
            # A directive: %, then glibc's flags (_-0^#), width and E/O modifier, then the
            # conversion.  Only a plain %a, %b, ... is replaced; one with flags, a width or a
            # modifier (%^b, %10B, %Ob) is left to strftime as a whole ("%-%b" is "%-%" + "b").
            j = i + 1
            while j < n - 1 and fmt[j] in "_-0^#":
                j += 1
            while j < n - 1 and fmt[j] in "0123456789":
                j += 1
            if j < n - 1 and fmt[j] in "EO":
                j += 1
            code = fmt[j]
            plain = j == i + 1
            if not plain:
                pending.append(fmt[i : j + 1])
                i = j + 1
                continue
            i += 2
            if code in _C_NAMES or code == "p" or code in _C_EXPANSIONS:
                if pending:
                    out.append("".join(pending))
                    pending.clear()
                if code in _C_NAMES:
                    out.append(_c_name(code))
                elif code == "p":
                    out.append(_c_ampm)
                else:
                    out.extend(_strftime_plan(_C_EXPANSIONS[code]))
            else:
                pending.append("%" + code)
        else:
            pending.append(ch)
            i += 1
    if pending:
        out.append("".join(pending))
    return tuple(out)
