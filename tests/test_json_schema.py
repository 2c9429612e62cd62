"""Tool docstrings: chatformats parses them in linear time with exactly transformers' results.

transformers' ``parse_google_format_docstring`` and its ``(choices: ...)`` search are regular
expressions that backtrack quadratically (a 16 KB docstring of ``(choices:`` took 8.5 s);
``chatformats._json_schema`` computes the same matches in one pass each.  Differential tests
against transformers itself, on docstrings built from every token the expressions branch on
(headings, indentation, ``name (type):``, choices, Unicode whitespace, word characters), and on
whole functions through ``get_json_schema``.  The speed is measured in
``benchmarks/docstrings.py``, not here.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chatformats import _json_schema as C
from chatformats.pipeline import ToolSchemaError

T = pytest.importorskip("transformers.utils.chat_template_utils")


def scaled(n: int) -> int:
    """``n`` examples under the ``ci`` profile (fewer under ``dev``), the profile's own count
    under ``deep``."""
    default = settings.default.max_examples
    return default if default > 2000 else min(n, default)

#: Every token the expressions branch on, and a few they must not mistake for one.
TOKENS = [
    "Args:", "Returns:", "Raises:", "Args:\n", "Returns:\n", "Raises:\n", "\n\nArgs:\n", "xArgs:\n",
    "\n", "\n", "\n", " ", "  ", "    ", "\t", "\r", "\f", "\v", "\x1c", "\u00a0", "\u2003", "\u3000",
    "x", "y", "z_1", "é", "ſ", "K", "İ", "1", "_", "x:", "y:", " x:", "  y:", "\tz_1:", "éé:", "1:",
    "x (int):", "y(str):", "x ( list[int] ):", "(int)", "(a\nb):", "(", ")", ":", "((x)):",
    '(choices: ["a", "b"])', '(choices: ["a"])', "(CHOICES: [1, 2])", "(ChoIceS:", "(choices:",
    "(choices: [1]) ", "desc", "a.", "\n    ", "\n  x (str): d", "  \n",
]
docstrings = st.one_of(
    st.lists(st.sampled_from(TOKENS), max_size=40).map("".join),
    st.text(alphabet=st.sampled_from("xy_:()\n \t\u00a0ArgsReturnsRaises"), max_size=60),
    st.text(max_size=40),
)


def _choices_reference(desc: str) -> tuple[int, str] | None:
    found = re.search(r"\(choices:\s*(.*?)\)\s*$", desc, flags=re.IGNORECASE)
    return None if found is None else (found.start(), found.group(1))


@settings(max_examples=scaled(1000))
@given(docstrings)
@example("Summary.\n\nArgs:\n    x (int): The x.\n        More x.\n    y: The y (choices: [\"a\", \"b\"])\n\nReturns:\n    Nothing.")
@example("\nArgs:\n\nx:\n  y: d")  # an empty description takes the next line
@example("Args:\nx: a\n Returns:\nr")  # no newline before the first "Args:": not the Args block
@example("d \u00a0\nReturns:\n \u2003r\u00a0Raises:\n")
@example("\n  Args:\n  x (a\nb): d\n  x: e")
def test_docstrings_parse_as_transformers_parses_them(doc: str) -> None:
    expected = T.parse_google_format_docstring(doc)
    assert C.parse_google_format_docstring(doc) == expected
    for desc in expected[1].values():
        assert C._choices(desc) == _choices_reference(desc)


@settings(max_examples=scaled(300))
@given(st.lists(st.sampled_from(TOKENS + ['(choices: ["a", 1, true])', ")"]), max_size=30).map("".join))
@example('x (choices: ["a", "b"])')
@example("x (Choices:  [1] ) \u00a0")
@example("(choices: (choices: [1])")
def test_choices_search_as_transformers(desc: str) -> None:
    desc = C._join_lines(desc.strip())  # as descriptions reach it: no newline
    assert C._choices(desc) == _choices_reference(desc)


@settings(max_examples=scaled(300))
@given(st.text(alphabet=st.sampled_from(" \t\n\r\u00a0\u2003xy"), max_size=40))
def test_joined_lines_as_re_sub(text: str) -> None:
    assert C._join_lines(text) == re.sub(r"\s*\n+\s*", " ", text)


def _function(doc: str) -> Any:
    def tool(x: int, y: str = "") -> str:
        return y * x

    tool.__doc__ = doc
    return tool


def _outcome(get_json_schema: Any, fn: Any) -> Any:
    try:
        return get_json_schema(fn)
    except (ToolSchemaError, T.DocstringParsingException, T.TypeHintParsingException) as exc:
        return ("schema error", str(exc))
    except ValueError as exc:  # json.loads of a malformed (choices: ...)
        return ("ValueError", str(exc))


ARG_DOCS = st.lists(st.sampled_from([
    "x", "y", "x:", "y:", "x (int):", "y (str):", " ", "\n", "\n    ", "  ", "\t", "d", "Returns:",
    '(choices: ["a", "b"])', "(choices: [1, 2])", "(CHOICES: [\" a \"])", "(choices: [", ")", "é",
]), max_size=20).map("".join)


@settings(max_examples=scaled(300))
@given(st.text(max_size=10), ARG_DOCS, st.sampled_from(["", "\n\nReturns:\n    r", "\nRaises:\n  e"]))
@example("Add.", "x (int): the count\n    y: the text (choices: [\"a\", \"b\"])", "")
def test_get_json_schema_as_transformers(summary: str, args: str, tail: str) -> None:
    fn = _function(f"{summary}\n\nArgs:\n    {args}{tail}")
    assert _outcome(C.get_json_schema, fn) == _outcome(T.get_json_schema, fn), inspect.getdoc(fn)
