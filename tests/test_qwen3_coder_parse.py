"""What is the Qwen3-Coder parser's own (``parsing/_cast.py``'s conversion of argument values as
vLLM's Qwen3CoderToolParser converts them, ``parsing/_pyliteral.py``'s reading of Python
literals): the laws that the shared parse properties (``tests/test_parse.py``, which run on the
three formats) do not state.

- ``literal`` gives what ``ast.literal_eval`` gives, for every text whose value is JSON-like, and
  refuses every other text (checked against ``ast.literal_eval`` itself);
- typed round trip: a call argument of the type its tool's schema declares, rendered by each
  text's port and parsed with ``tools``, comes back as that value (vLLM's rules: an integral
  number as an int, a string ``null`` as None);
- the conversion never raises and never loses a call: any text for any declared type gives a
  JSON-like value.
"""

from __future__ import annotations

import ast
import json
import math
import warnings
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import chatformats
from chatformats import parse_response
from chatformats.parsing._cast import qwen3_coder_value
from chatformats.parsing._pyliteral import MAX_NESTING, literal

from . import budget
from . import strategies as s
from .test_parse import CONTROL, NEAR

NAMES = ["qwen3-coder", "qwen3-coder-2025-07", "qwen3-coder-6211"]


def _params(names: list[str]) -> list[Any]:
    return [pytest.param(name, marks=pytest.mark.xdist_group("format-" + name)) for name in names]


# ------------------------------------------------------------------ literal vs ast.literal_eval


def _json_like(value: Any) -> bool:
    if value is None or type(value) in (bool, int, float, str):
        return True
    if type(value) in (list, tuple):
        return all(_json_like(v) for v in value)
    if type(value) is dict:
        return all(k is None or type(k) in (str, int, float, bool) for k in value) and all(
            _json_like(v) for v in value.values())
    return False


def _literal_eval(text: str) -> str:
    """``repr`` of ``ast.literal_eval(text)`` when JSON-like (tuples stay tuples), else ``"refused"``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes
        try:
            value = ast.literal_eval(text)
        except Exception:  # noqa: BLE001 — every way it refuses
            return "refused"
    return repr(value) if _json_like(value) else "refused"


def _ours(text: str) -> str:
    try:
        return repr(literal(text))
    except ValueError:
        return "refused"


_PY_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5)),
    lambda c: st.one_of(st.lists(c, max_size=3), st.lists(c, max_size=3).map(tuple),
                        st.dictionaries(st.one_of(st.text(max_size=3), st.integers(), st.booleans(),
                                                  st.none()), c, max_size=3)),
    max_leaves=8)
#: Pieces of Python's literal syntax, near misses and what literal_eval refuses.
_PY_PIECES = [" ", "\n", "\t", "\x0c", "#c\n", "\\\n", ",", "(", ")", "[", "]", "{", "}", ":", "-",
              "+", "'", '"', "'''", '"""', "r'", "u'", "b'", "f'", "rb'", "\\", "\\n", "\\x4",
              "\\x41", "\\u00e9", "\\U0001F642", "\\N{BULLET}", "\\N{nope}", "\\7", "\\777", "0x1f",
              "0o7", "0b1", "1_0", "1__0", "01", "00", "1.", ".5", "1e5", "1e", "1j", "True", "False",
              "None", "Truex", "1e999", "_", "é", "\r", "\r\n", "j", "e", "0", "5", "x", "{1}",
              "set()", "...", "lambda", "1+2j", "-(5)", "--5", "[1,]", "{1:2,}", "()"]
_PY_TEXTS = st.one_of(
    _PY_VALUES.map(repr), _PY_VALUES.map(repr),
    _PY_VALUES.filter(_json_like).map(lambda v: json.dumps(v) if not isinstance(v, tuple) else "()"),
    st.lists(st.sampled_from(_PY_PIECES), max_size=10).map("".join),
    st.tuples(_PY_VALUES.map(repr), st.integers(0, 40), st.lists(st.sampled_from(_PY_PIECES), max_size=3))
    .map(lambda t: t[0][:t[1]] + "".join(t[2]) + t[0][t[1]:]),
)


@budget.own("qwen3-coder")
@given(_PY_TEXTS)
@example("None\n ")  # a last line of spaces: IndentationError
@example("\\\n0x1f")  # a leading continuation
@example("\x0c None")  # indented after a form feed
@example("\n \\\n0x1f")  # an indented line continued
@example("None\n\\\n\n")  # a continued blank line
@example("0\n\\\n")  # a continuation into the end
@example("{1: 'a', True: 'b'}")  # Python's key equality
@example("'a' \"b\" r'\\c'")  # adjacent strings joined
def test_literal_is_literal_evals_reading(text: str) -> None:
    assert _ours(text) == _literal_eval(text)


@pytest.mark.parametrize("depth", [1, MAX_NESTING - 1, MAX_NESTING, MAX_NESTING + 1])
def test_literal_nesting_limit_is_pythons(depth: int) -> None:
    for text in ("[" * depth + "]" * depth, "(" * depth + "1" + ")" * depth):
        assert _ours(text) == _literal_eval(text)


# ------------------------------------------------------------------ the conversion


#: Declared types and values of that type (vLLM's conversion gives them back).
_FINITE = st.floats(allow_nan=False, allow_infinity=False)
_TEXT = st.text(max_size=6).filter(lambda t: not any(c in t for c in CONTROL["qwen3_coder"]))
_JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-(2**60), 2**60), _FINITE, _TEXT),
                     lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(_TEXT, c, max_size=3)),
                     max_leaves=6)
TYPED = {
    "string": st.one_of(_TEXT, st.sampled_from(["null", "NULL", "None", "5", "true"])),
    "integer": st.integers(-(2**60), 2**60),
    "number": _FINITE,
    "boolean": st.booleans(),
    "array": st.lists(_JSON, max_size=3),
    "object": st.dictionaries(_TEXT, _JSON, max_size=3),
}


def _expected(kind: str, value: Any) -> Any:
    """The value vLLM's conversion gives back for ``value`` of type ``kind``: itself, but an
    integral number is an int and a string ``null`` (any case) is None."""
    if kind == "number" and value - int(value) == 0:
        return int(value)
    if kind == "string" and value.lower() == "null":
        return None
    return value


@st.composite
def typed_call(draw: st.DrawFn) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
    """Tools declaring one parameter per type, a call with some of them (an undeclared one too)
    and what the parse must give."""
    kinds = draw(st.lists(st.sampled_from(sorted(TYPED)), min_size=1, max_size=4, unique=True))
    properties = {f"p_{kind}": {"type": kind} for kind in kinds}
    arguments = {f"p_{kind}": draw(TYPED[kind]) for kind in kinds}
    expected = {key: _expected(kind, arguments[key]) for key, kind in zip(arguments, kinds)}
    if draw(st.booleans()):
        arguments["undeclared"] = expected["undeclared"] = draw(_TEXT.filter(lambda t: t.lower() != "null"))
    tools = [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": properties}}}]
    return tools, arguments, expected


@pytest.mark.parametrize("name", _params(NAMES))
def test_typed_arguments_come_back(name: str) -> None:
    @budget.own(name)
    @given(case=typed_call(), content=st.one_of(st.just(""), _TEXT), strict=st.booleans())
    def check(case: Any, content: str, strict: bool) -> None:
        tools, arguments, expected = case
        p = [{"role": "user", "content": "q"}]
        m = {"role": "assistant", "content": content,
             "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": arguments}}]}
        prompt = chatformats.apply_chat_template(name, p, tools=tools, add_generation_prompt=True)
        full = chatformats.apply_chat_template(name, p + [m], tools=tools)
        message = parse_response(name, full[len(prompt):], prefix=prompt, tools=tools, strict=strict)
        assert message["tool_calls"] == [{"type": "function", "function": {"name": "f", "arguments": expected}}]
        assert message["content"] == content.strip()

    check()


_KINDS = st.one_of(st.sampled_from(["string", "str", "text", "enum", "integer", "int64", "uint",
                                    "long", "short", "unsigned", "number", "num", "float", "double",
                                    "boolean", "bool", "binary", "object", "array", "arr", "dict",
                                    "list", "null", "any", " Integer ", "INT"]),
                   st.lists(st.sampled_from(["integer", "null", "string"]), max_size=2), s.json_value)
_RAW = st.one_of(st.sampled_from(NEAR), st.text(max_size=8), _PY_TEXTS, st.sampled_from([
    "null", "Null", "5", " 5 ", "1_0", "0x10", "5.0", "-0.0", "1e999", "nan", "inf", "True", "yes",
    "[1, 2]", "[True, None]", "{'a': 1}", '{"a": 1}', "{1, 2}", "b'x'", "1j", "((1,),)", "{(1, 2): 3}",
    "[" * 300 + "]" * 300, "1" * 5000]))


def _plain(value: Any) -> bool:
    """JSON data as a client decodes it: no tuples, string keys."""
    if value is None or type(value) in (bool, int, float, str):
        return True
    if type(value) is list:
        return all(_plain(v) for v in value)
    return type(value) is dict and all(type(k) is str and _plain(v) for k, v in value.items())


@budget.own("qwen3-coder")
@given(raw=_RAW, kind=_KINDS, declared=st.booleans())
def test_conversion_is_total(raw: str, kind: Any, declared: bool) -> None:
    """Any text, any declared type (or none): a JSON-like value, never an exception; the text
    itself where no rule converts it."""
    config = {"p": {"type": kind}} if declared else {"q": {"type": "integer"}}
    value = qwen3_coder_value(raw, "p", config)
    assert _plain(value)
    if isinstance(value, float) and math.isnan(value):
        return
    json.dumps(value)


#: vLLM's rules, one each (the docs' table): the text, the declared type, the value.
RULES = [
    ("null", "string", None), ("NULL", "integer", None), ("x", None, "x"),
    ("Paris", "string", "Paris"), ("5", "enum", "5"),
    (" 7 ", "integer", 7), ("1_000", "int64", 1000), ("0x10", "integer", "0x10"), ("7.5", "integer", "7.5"),
    ("2.0", "number", 2), ("2.5", "number", 2.5), ("1e999", "number", "1e999"), ("nan", "float", "nan"),
    ("True", "boolean", True), ("yes", "boolean", False),
    ("[1, 2]", "array", [1, 2]), ("[True, None]", "array", [True, None]), ("{'a': (1, 2)}", "object", {"a": [1, 2]}),
    ("{1: 'x'}", "dict", {"1": "x"}), ("{1, 2}", "object", "{1, 2}"), ("5", ["integer", "null"], 5),
    ("'a'", "any", "a"), ("(1, 2)", "tuple", [1, 2]), ("b'x'", "any", "b'x'"),
]


@pytest.mark.parametrize("raw, kind, value", RULES)
def test_vllm_rules(raw: str, kind: Any, value: Any) -> None:
    config = {} if kind is None else {"p": {"type": kind}}
    assert qwen3_coder_value(raw, "p", config) == value
    assert type(qwen3_coder_value(raw, "p", config)) is type(value)


def test_conversion_only_with_tools() -> None:
    """Without tools the arguments are the text the template wrote (vLLM turns a ``null`` into
    None even then; here the round trip law holds)."""
    prompt = "<|im_start|>assistant\n"
    completion = "<tool_call>\n<function=f>\n<parameter=a>\nnull\n</parameter>\n</function>\n</tool_call><|im_end|>"
    for name in NAMES:
        assert parse_response(name, completion, prefix=prompt)["tool_calls"][0]["function"]["arguments"] == {"a": "null"}
        assert parse_response(name, completion, prefix=prompt, tools=[])["tool_calls"][0]["function"]["arguments"] == {"a": None}
