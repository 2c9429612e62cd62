"""Reading back a ``minicpm-v-4.6-thinking`` assistant turn (``ports/minicpm_v4_6_thinking.py``).

What the template writes after the generation prompt ``<|im_start|>assistant\\n`` (template
lines "if loop.index0 > ns.last_query_index" to "<|im_end|>"):

- ``<think>\\n`` + reasoning|trim + ``\\n</think>\\n\\n`` + content (trimmed); the generation
  prompt itself already holds ``<think>\\n`` (or, with ``enable_thinking=false``, the closed
  block ``<think>\\n\\n</think>\\n\\n``), which the prefix gives the parser;
- each tool call ``<tool_call>\\n<function=NAME>\\n`` + per argument
  ``<parameter=KEY>\\nVALUE\\n</parameter>\\n`` + ``</function>\\n</tool_call>``, the first
  preceded by ``\\n\\n`` when there is content, the others by ``\\n``; VALUE is ``tojson`` of a
  mapping or list, else ``|string``;
- ``<|im_end|>\\n``.

Reasoning and content are trimmed as the template trims them; argument values are strings
(cast by the tools' schemas when given).
"""

from __future__ import annotations

from typing import Any

from ..errors import ParseError
from ._scan import IGNORE, State

NAME = "minicpm-v-4.6-thinking"
ANCHOR = "<|im_start|>assistant\n"
END = "<|im_end|>"

_FUNCTION = "\n<function="
_PARAMETER = "<parameter="
_PARAMETER_END = "\n</parameter>\n"
_FUNCTION_END = "</function>\n"


def _trim(raw: str, marker: str) -> str:
    return raw.strip()


def _call(raw: str, marker: str) -> Any:
    """``\\n<function=NAME>\\n`` (``<parameter=KEY>\\nVALUE\\n</parameter>\\n``)* ``</function>\\n``."""

    def fail(what: str) -> ParseError:
        return ParseError(f"{NAME}: malformed tool call, expected {what} at offset {pos} of "
                          f"{raw[:200]!r}")

    pos = 0
    if not raw.startswith(_FUNCTION):
        raise fail(repr(_FUNCTION))
    end = raw.find(">\n", len(_FUNCTION))
    if end < 0:
        pos = len(_FUNCTION)
        raise fail("'>\\n' after the function name")
    name = raw[len(_FUNCTION):end]
    pos = end + 2
    arguments: dict[str, str] = {}
    while raw.startswith(_PARAMETER, pos):
        key_end = raw.find(">\n", pos + len(_PARAMETER))
        if key_end < 0:
            raise fail("'>\\n' after the parameter name")
        value_end = raw.find(_PARAMETER_END, key_end + 2)
        if value_end < 0:
            raise fail(repr(_PARAMETER_END))
        arguments[raw[pos + len(_PARAMETER):key_end]] = raw[key_end + 2:value_end]
        pos = value_end + len(_PARAMETER_END)
    if raw[pos:] != _FUNCTION_END:
        raise fail(f"{_PARAMETER!r} or {_FUNCTION_END!r} ending the call")
    return {"type": "function", "function": {"name": name, "arguments": arguments}}


_AFTER_CONTENT = (("<tool_call>", "call", False), (END, "end", False))

STATES = {
    s.name: s
    for s in (
        State("start", "content", leads=(("<think>", "think", False),), lead_miss="content"),
        State("think", "reasoning_content", markers=(("</think>", "content", False),),
              value=_trim, eager=True),
        State("content", "content", markers=_AFTER_CONTENT, value=_trim),
        State("call", "tool_calls", markers=(("</tool_call>", "between", False),), value=_call,
              eager=True),
        State("between", None, markers=_AFTER_CONTENT, what="between tool calls"),
        State("end", None, stray=IGNORE),
    )
}
START = "start"
