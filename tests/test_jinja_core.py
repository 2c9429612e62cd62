"""Each primitive of ``chatformats._jinja`` against jinja2 itself, in the oracle's environment
(transformers' own: each one-line template is compiled by ``_compile_jinja_template``).

Values come from the shared JSON strategy plus the undefined value (a variable not passed to
jinja2; ``MISSING`` on our side).  Each property renders a one-line template with jinja2 and
compares it with the primitive: same text, or both fail.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Callable

import jinja2
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chatformats
from chatformats import ChatFormatError, UndefinedValueError
from chatformats import _jinja as J

from . import oracle
from . import strategies as s
from .parity import expected_class

values = st.one_of(st.just(J.MISSING), s.json_value)
keys = st.one_of(st.integers(-3, 3), s.short_texts, st.sampled_from(["role", "content", "type", "text"]))

_compiled: dict[str, jinja2.Template] = {}


def jinja(source: str, **variables: Any) -> tuple[bool, str]:
    """(ok, text or exception type) rendering ``source``; MISSING variables are not passed."""
    if source not in _compiled:
        _compiled[source] = oracle.compile_source(source)
    passed = {k: v for k, v in variables.items() if v is not J.MISSING}
    try:
        with oracle.clock(oracle.FIXED_NOW):
            return True, _compiled[source].render(**passed)
    except Exception as exc:  # noqa: BLE001
        return False, type(exc).__name__


def ours(fn: Callable[[], str]) -> tuple[bool, str]:
    try:
        return True, fn()
    except ChatFormatError as exc:
        return False, type(exc).__name__


def same(expected: tuple[bool, str], got: tuple[bool, str]) -> None:
    """Same text, or both fail with the error classes the parity contract maps to each other
    (``tests/parity.py``: ``UndefinedError`` -> ``UndefinedValueError``, ``TypeError`` and
    ``ValueError`` -> ``TemplateTypeError``, ...)."""
    assert expected[0] == got[0], (expected, got)
    if expected[0]:
        assert expected[1] == got[1], (expected, got)
    else:
        assert got[1] == expected_class(expected[1]), (expected, got)


@given(values)
@example(J.MISSING)
@example({"a": [1, None, True, 1.5, "x'y"]})
@example((1,))
def test_to_str(v):
    same(jinja("{{ v }}", v=v), ours(lambda: J.to_str(v)))
    same(jinja("{{ v|string }}", v=v), ours(lambda: J.to_str(v)))


@given(st.one_of(values, s.texts))
@example("\u00a0 a \u2028")
@example(" \x1c\x1d\x1e\x1f\x85 ")
def test_trim(v):
    same(jinja("{{ v|trim }}", v=v), ours(lambda: J.trim(v)))


@given(values, st.sampled_from([None, 2, 4]))
@example(float("nan"), None)
@example({"b": 1, "a": "é<>&'"}, 4)
@example(J.MISSING, None)
def test_tojson(v, indent):
    source = "{{ v|tojson }}" if indent is None else "{{ v|tojson(indent=%d) }}" % indent
    same(jinja(source, v=v), ours(lambda: J.tojson(v, indent=indent)))


@given(values, st.sampled_from([False, True, 0, 1]))
@example("é\u2028", False)
@example({"é": ["ü"]}, True)
@example(J.MISSING, False)
def test_tojson_ensure_ascii(v, ensure_ascii):
    """``tojson(ensure_ascii=...)``, the keyword the GLM-4.5 template passes."""
    source = "{{ v|tojson(ensure_ascii=%r) }}" % ensure_ascii
    same(jinja(source, v=v), ours(lambda: J.tojson(v, ensure_ascii=ensure_ascii)))


@given(values)
@example("ab")
@example(None)
@example(J.MISSING)
def test_items(v):
    def port() -> str:
        return "".join(f"{J.to_str(k)}={J.to_str(x)};" for k, x in J.items(v))

    same(jinja("{% for k, x in v|items %}{{ k }}={{ x }};{% endfor %}", v=v), ours(port))


@given(values)
@example(J.MISSING)
@example(None)
@example(3)
def test_length(v):
    same(jinja("{{ v|length }}", v=v), ours(lambda: str(J.length(v))))


@given(values)
@example({"a": 1, "b": 2})
@example("abc")
@example(True)
def test_iterate(v):
    same(jinja("{% for c in v %}{{ c }}|{% endfor %}", v=v),
         ours(lambda: "".join(f"{J.to_str(c)}|" for c in J.iterate(v))))


@given(values, values)
@example("im", "image")
@example(1, "abc")
@example("a", None)
@example([1], {"a": 1})
@example("a", J.MISSING)
def test_contains(needle, haystack):
    same(jinja("{{ a in b }}", a=needle, b=haystack), ours(lambda: str(J.contains(haystack, needle))))


@given(values)
@example(J.MISSING)
@example(0)
@example("")
@example(False)
def test_tests(v):
    for test, fn in [("string", lambda x: type(x) is str), ("mapping", J.is_mapping),
                     ("iterable", J.is_iterable), ("sequence", J.is_iterable)]:
        same(jinja("{{ v is %s }}" % test, v=v), ours(lambda: str(fn(v))))
    same(jinja("{{ v is none }}", v=v), ours(lambda: str(v is None)))
    same(jinja("{{ v is defined }}", v=v), ours(lambda: str(v is not J.MISSING)))
    same(jinja("{{ v is false }}", v=v), ours(lambda: str(v is False)))
    same(jinja("{{ 'T' if v else 'F' }}", v=v), ours(lambda: "T" if v else "F"))
    same(jinja("{{ v == w }}", v=v, w=J.MISSING), ours(lambda: str(v == J.MISSING)))


@given(values, st.sampled_from(["role", "content", "type", "text", "function", "id", "name"]))
@example(J.MISSING, "role")
@example("text", "text")
@example({"role": None}, "role")
def test_attr(v, name):
    def port() -> str:
        r = J.attr(v, name)
        return f"{r is not J.MISSING}|{J.to_str(r)}"

    same(jinja("{%% set r = v.%s %%}{{ r is defined }}|{{ r }}" % name, v=v), ours(port))


@given(values, keys)
@example([1, 2], 5)
@example("ab", 1)
@example("ab", -1)
@example({"a": 1}, "a")
@example(J.MISSING, 0)
@example(None, 0)
def test_item(v, key):
    def port() -> str:
        r = J.item(v, key)
        return f"{r is not J.MISSING}|{J.to_str(r)}"

    same(jinja("{% set r = v[k] %}{{ r is defined }}|{{ r }}", v=v, k=key), ours(port))


@given(values)
@example(J.MISSING)
@example(None)
@example("x")
def test_need_str(v):
    same(jinja("{{ 'a' + v }}", v=v), ours(lambda: "a" + J.need_str(v, "v")))
    same(jinja("{{ v + 'a' }}", v=v), ours(lambda: J.need_str(v, "v") + "a"))


@given(values, st.integers(0, 20), st.sampled_from([".content", ".thinking", ".tool_calls[0].id"]))
@example("x", 3, ".content")
@example(None, 3, ".content")
@example(J.MISSING, 0, ".thinking")
def test_need_str_at_is_need_str_with_the_message_path(v, index, field):
    """The fast variant: the same value or the same failure, its message naming the same path."""
    path = f"messages[{index}]{field}"
    try:
        expected: Any = J.need_str(v, path)
    except ChatFormatError as exc:
        expected = (type(exc), str(exc))
    try:
        got: Any = J.need_str_at(v, index, field)
    except ChatFormatError as exc:
        got = (type(exc), str(exc))
    assert got == expected
    if type(v) is not str:
        assert path in got[1]


_THINK_SPLIT = (
    "{%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}"
    "{%- set content = content.split('</think>')[-1].lstrip('\\n') %}"
    "{{ [reasoning_content, content]|tojson }}"
)


@settings(max_examples=500)
@given(st.lists(st.one_of(s.texts, st.sampled_from(["<think>", "</think>", "\n", "\n\n", "x"])), max_size=6)
       .map("".join))
@example("<think>\nr\n</think>\n\na")
@example("x</think>y</think>z")
@example("a<think>b<think>\n\nc\n\n</think>\n")
@example("no tags")
def test_think_split(content):
    same(jinja(_THINK_SPLIT, content=content), ours(lambda: J.tojson(list(J.think_split(content)))))


def test_undefined_fails_where_jinja_raises_undefined_error():
    with pytest.raises(UndefinedValueError):
        J.attr(J.MISSING, "role")
    assert jinja("{{ v.role }}") == (False, "UndefinedError")
    with pytest.raises(UndefinedValueError):
        J.need_str(J.MISSING, "v")
    assert jinja("{{ 'a' + v }}") == (False, "UndefinedError")


# Every name the ported templates read with dot access must be no attribute of any JSON type:
# ``attr()`` relies on that to read dict items directly (jinja2 tries the attribute first).
# Reference texts that are no format yet (``reference_templates/facts/``) are checked when they
# are ported.  ``loop.X`` reads jinja2's loop object (``loop.index``; ``index`` is a list method),
# never a JSON value.
_DOT = re.compile(r"\b(?!loop\.)[a-z_][a-z_0-9]*\.([a-z_][a-z_0-9]*)\b(?!\s*\()")


def test_dot_names_are_no_attribute_of_json_types():
    names: set[str] = set()
    for name in chatformats.formats():
        text = chatformats.get_format(name).template_source()
        for block in re.findall(r"\{[{%](.*?)[}%]\}", text, flags=re.S):
            names.update(_DOT.findall(re.sub(r"(\"[^\"]*\"|'[^']*')", "''", block)))
    assert {"role", "content", "tool_calls", "function", "arguments"} <= names
    for tp in (dict, list, tuple, str, int, float, bool, type(None)):
        clash = sorted(n for n in names if hasattr(tp, n))
        assert not clash, f"{tp.__name__} has attributes {clash}: attr() must not read them as items"


@given(st.datetimes(), st.lists(st.sampled_from(["%d", "%b", "%Y", "%m", "%a", "%A", "%B", "%h", "%p", "%c",
                                                 "%x", "%X", "%H", "%M", "%S", "%e", "%j", "%%", " ", "-", "é", "%-", "%^",
                                                 "%_", "%0", "%#", "%E", "%O", "%1", "%10",
                                                 "%"]), max_size=8).map("".join))
@example(datetime(2026, 3, 7, 14, 5, 9), "%d %b %Y")
@example(datetime(5, 1, 1), "%Y-%m-%d")
@example(datetime(2026, 3, 7), "100%")
@example(datetime(2000, 1, 1), "%-%b")
@example(datetime(2000, 1, 1), "%E-%-%b")
@example(datetime(2000, 1, 1), "%^b%10B%Ob%-")
def test_strftime_now_is_the_c_locale_strftime(now, fmt):
    # The test process runs in the C locale (Python never adopts LC_TIME by itself), where the
    # port's locale-independent strftime must equal datetime.strftime, as the oracle calls it.
    import locale

    assert locale.setlocale(locale.LC_TIME) in ("C", "POSIX")
    same(jinja("{{ strftime_now(f) }}", f=fmt) if now == oracle.FIXED_NOW else (True, now.strftime(fmt)),
         ours(lambda: J.strftime_now(now, fmt)))


@pytest.mark.parametrize("haystack, needle", [(None, "a"), ("s", 1), ({}, [1]), (3, "x"), (1.5, "x"), (True, "x")])
def test_contains_fails_with_cpython_311s_words_on_every_interpreter(haystack, needle):
    """``needle in haystack`` fails with the words CPython 3.11 uses (the tests' interpreter,
    checked live here), which the port gives on every interpreter: Pyodide's CPython 3.14 words
    two of these differently ("is not a container or iterable")."""
    try:
        needle in haystack
    except TypeError as exc:
        expected = f"p: {exc}"
    with pytest.raises(ChatFormatError) as info:
        J.contains(haystack, needle, "p")
    assert str(info.value) == expected
