"""The canonical form: what a format's template keeps of an assistant message.

Rendering a message ``m`` and parsing the turn back gives ``canonical(name, m, ...)``, not ``m``
(docs/parsing.md, "The round-trip law and the canonical form"): the template trims, drops and
rewrites.  What it does is stated as data, seven facts per grammar (``CANONICAL``: a key of a
grammar description, ``parsing/grammars.py``, or a module constant), which a format's spec may
override where its template writes the turn differently from the others of its grammar
(``Spec.canonical``: Llama 3.2's text model trims its content, the Qwen3-Coder texts write
argument values each its own way).  :data:`FACTS` says what each fact and value means; this
module is their one reader.  The round-trip law (``tests/test_parse.py``) checks the facts
against the reference renderer on every input it draws, so a wrong fact fails it.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from .._jinja import tojson
from ..errors import ChatFormatError

#: Each fact, its values (the first is the default) and what each value means.
FACTS: "dict[str, dict[Any, str]]" = {
    "reasoning": {
        "dropped": "the template writes no reasoning of a stored turn",
        "as-given": "written verbatim",
        "strip": "written |trim (Python's str.strip())",
        "strip-newlines": "written .strip('\\n')",
    },
    "reasoning_if": {
        "always": "where the reasoning is written, it is written for every turn",
        "after-a-query": "only when the conversation before the turn holds a user query (a user "
                         "message with string content that is not a <tool_response>): Qwen3's "
                         "last_query_index",
        # a tuple (variable, its default, the values for which the reasoning is written)
    },
    "content": {
        "as-given": "verbatim",
        "strip": "|trim",
        "strip-with-calls": "verbatim, |trim in a turn with tool calls",
        "lstrip-newlines-after-think": "less its leading newlines where the turn's think block "
                                       "is written (reasoning_if holds), else verbatim",
    },
    "with_calls": {
        "kept": "a tool-call turn keeps its content",
        "empty": "a tool-call turn's content is not written",
        "to-reasoning": "a tool-call turn writes its reasoning, else its content, as its "
                        "reasoning (gpt-oss's analysis message), and no content",
    },
    "calls": {
        "all": "every tool call is written",
        "first": "only the first tool call is written",
        "if-content-none": "the calls are written only for a turn whose content is None",
    },
    "ids": {
        "dropped": "a call's id is not written",
        "kept": "a call's id is written and reads back",
        "positional": "the template writes the id functions.NAME:K, K the call's position",
    },
    "arguments": {
        "whole": "the arguments are written whole: a string is kept where the grammar's "
                 "STRING_ARGUMENTS says so, else it is the JSON object it holds",
        "string": "a mapping of strings: each value as is if a string, else |string (Python's "
                  "str())",
        "json-mapping": "as 'string', but a mapping value through tojson",
        "json-container": "as 'string', but a mapping or a list value through tojson",
        "json-nonstring": "a mapping of strings: each value as is if a string, else through "
                          "tojson",
    },
}

DEFAULTS = {fact: next(iter(values)) for fact, values in FACTS.items()}

def check_facts(facts: Mapping[str, Any], where: str) -> None:
    """``facts`` are canonical facts (known names, known values): else ``ChatFormatError``."""
    for fact, value in facts.items():
        if fact not in FACTS:
            raise ChatFormatError(f"{where}: unknown canonical fact {fact!r}")
        if fact == "reasoning_if" and type(value) is tuple:
            if not (len(value) == 3 and type(value[0]) is str and type(value[2]) is tuple):
                raise ChatFormatError(f"{where}: reasoning_if must be (variable, default, values)")
            continue
        if value not in FACTS[fact]:
            raise ChatFormatError(f"{where}: canonical fact {fact} cannot be {value!r}")


def facts_of(fmt: Any, g: Any) -> dict[str, Any]:
    """The canonical facts of format ``fmt`` (a :class:`~chatformats.ChatFormat`) read by
    grammar ``g``: the defaults, the grammar's ``CANONICAL``, then the spec's overrides."""
    out = dict(DEFAULTS)
    out.update(g.CANONICAL)
    out.update(fmt.canonical)
    return out


def _is_query(message: Any) -> bool:
    content = message.get("content") if isinstance(message, dict) else None
    return (message.get("role") == "user" and isinstance(content, str)
            and not (content.startswith("<tool_response>") and content.endswith("</tool_response>")))


def _argument_value(rule: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    if rule == "json-nonstring" or (isinstance(value, dict) and rule != "string") \
            or (isinstance(value, (list, tuple)) and rule == "json-container"):
        return tojson(value)
    return str(value)


def _text(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise ChatFormatError(f"{path} is a {type(value).__name__}: a text of the representable "
                              "domain is a str (docs/parsing.md)")
    return value


def canonical(fmt: Any, g: Any, message: Mapping[str, Any], conversation: Sequence[Any] = (),
              variables: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What format ``fmt``'s template (grammar ``g``) keeps of the assistant ``message`` rendered after
    ``conversation`` with ``variables``: the message a parse of that turn gives back
    (docs/parsing.md, "The round-trip law and the canonical form").

    ``message`` as the template reads it: its reasoning under the spec's ``reasoning_field``
    (or, for a field the pipeline layer fills, the first of ``reasoning_content``, ``thinking``,
    ``reasoning`` that is set, as ``apply_chat_template`` aliases them); a ``None`` content is
    the template layer's (``apply_chat_template`` drops it).  The law holds on the
    representable domain (docs/parsing.md), which this does not check: a text holding one of
    the format's reserved strings (:func:`chatformats.parsing.reserved`) is kept here as given,
    as it is when its ids encode it as text (``parse_response(..., tokenizer=)``), but its text
    need not parse back.  A text that is not a ``str``, or string arguments that are not the JSON
    object the grammar reads them as: :class:`~chatformats.errors.ChatFormatError`."""
    facts = facts_of(fmt, g)
    variables = variables or {}
    if not isinstance(message, Mapping):
        raise ChatFormatError(f"message must be a mapping, not {type(message).__name__}")
    content = message.get("content", "")
    content = "" if content is None else _text(content, "message.content")
    # the pipeline's alias order: the fields it fills from the first of its fields that is set
    from ..pipeline import _ALIASED_FIELDS, _REASONING_FIELDS

    field = fmt.reasoning_field
    fields = _REASONING_FIELDS if field in _ALIASED_FIELDS else (field,)
    reasoning = next((message[f] for f in fields if message.get(f) is not None), "")
    reasoning = _text(reasoning, f"message.{field}")
    calls = message.get("tool_calls") or []
    # reasoning_if: whether the turn's think block (or reasoning) is written at all
    when = facts["reasoning_if"]
    if when == "after-a-query":
        shown = any(_is_query(m) for m in conversation)
    elif type(when) is tuple:
        shown = variables.get(when[0], when[1]) in when[2]
    else:
        shown = True
    rule = facts["reasoning"]
    if rule == "dropped" or not shown:
        reasoning = ""
    elif rule == "strip":
        reasoning = reasoning.strip()
    elif rule == "strip-newlines":
        reasoning = reasoning.strip("\n")
    rule = facts["content"]
    if rule == "strip" or (rule == "strip-with-calls" and calls):
        content = content.strip()
    elif rule == "lstrip-newlines-after-think" and shown:
        content = content.lstrip("\n")
    out_calls: list[dict[str, Any]] = []
    for k, call in enumerate(calls):
        path = f"message.tool_calls[{k}]"
        fn = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(fn, Mapping):
            raise ChatFormatError(f"{path}.function must be a mapping")
        fn_name = _text(fn.get("name"), f"{path}.function.name")
        args = fn.get("arguments")
        rule = facts["arguments"]
        if rule != "whole":
            if not isinstance(args, Mapping):
                raise ChatFormatError(f"{path}.function.arguments must be a mapping: the "
                                      "template writes them one by one")
            args = {key: _argument_value(rule, v) for key, v in args.items()}
        elif isinstance(args, str) and not g.STRING_ARGUMENTS:
            try:
                args = json.loads(args)
            except ValueError:
                args = None
            if not isinstance(args, dict):
                raise ChatFormatError(f"{path}.function.arguments is a string that holds no JSON "
                                      "object: it is outside the representable domain")
        c: dict[str, Any] = {"type": "function", "function": {"name": fn_name, "arguments": args}}
        if facts["ids"] == "kept" and "id" in call:
            c["id"] = call["id"]
        elif facts["ids"] == "positional":
            c["id"] = f"functions.{fn_name}:{len(out_calls)}"
        out_calls.append(c)
    rule = facts["calls"]
    if rule == "first":
        out_calls = out_calls[:1]
    elif rule == "if-content-none" and message.get("content") is not None:
        out_calls = []
    if calls:
        rule = facts["with_calls"]
        if rule == "empty":
            content = ""
        elif rule == "to-reasoning":
            reasoning, content = reasoning or content, ""
    out: dict[str, Any] = {"role": "assistant", "content": content}
    if reasoning:
        out["reasoning_content"] = reasoning
    if out_calls:
        out["tool_calls"] = out_calls
    return out
