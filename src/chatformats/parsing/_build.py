"""Grammars built from a description: the formats whose assistant turn is optional reasoning
in a think block, content, and tool calls each in an opening/closing tag pair, ended by an
end-of-turn token (Qwen3 2507, the Qwen3 tool agent, MiniCPM-V 4.6, and the Qwen2.5 /
Qwen3-Coder family to come).  A description (``grammars.DESCRIPTIONS``) is plain data:

``name``, ``anchor`` (the assistant header the prefix is read after), ``end`` (the end-of-turn
token, or a tuple of them); ``think`` (None, or ``{"open", "close", "strip"}``: ``strip`` ``"\\n"`` is the
template's ``reasoning.strip("\\n")``, ``"space"`` its ``|trim``); ``content`` (``"qwen"``: verbatim,
after a think block less its leading newlines, less the one newline the template writes before
the first call; ``"trim"``: ``|trim``; ``"coder"``: verbatim without calls, ``|trim`` before
them, where the template writes it and ``"\\n\\n"``); ``cast`` (optional: a name in
``_cast.CASTS``, how ``tools`` convert the arguments where not as transformers does);
``reserved``, ``prefixes`` and ``canonical`` (the grammar's facts of those names,
``grammars.py``); ``calls`` (``{"open", "close", "body"}``, ``body`` one
of :data:`BODIES`: ``"json"`` is ``{"name": ..., "arguments": ...}`` (``"json_string"``: the
same with string arguments kept as strings), ``"xml"`` is
``\\n<function=NAME>\\n`` + ``<parameter=KEY>\\nVALUE\\n</parameter>\\n``... + ``</function>\\n``).

:func:`build` turns it into the exact table (the template's inverse) and the recovering one
(docs/parsing.md, "The recovering reading"): the same states with the drift markers and values
added.  A format of this family needs a description and nothing else; a new call syntax is one
more entry of :data:`BODIES` (an exact and a recovering reader), not a module.
"""

from __future__ import annotations

from typing import Any

from ..errors import ParseError
from . import _json, _recover
from ._scan import IGNORE, Outcome, State, excerpt


class Grammar:
    """A format's parsing tables: ``STATES`` (the exact reading), ``RECOVER`` (the recovering
    one), ``START``, ``ANCHOR`` (the assistant header), ``NAME`` (for messages)."""

    __slots__ = ("NAME", "ANCHOR", "STATES", "RECOVER", "START", "CAST", "SYNTAX", "description",
                 "RESERVED", "PREFIXES", "STRING_ARGUMENTS", "SINGLE_CALL", "RECOVER_OPENERS",
                 "CANONICAL")

    def __init__(self, name: str, anchor: str, states: dict[str, State],
                 recover: dict[str, State], start: str, description: Any = None,
                 cast: Any = None) -> None:
        # The grammar's facts (``grammars.py``'s docstring): from the description; a string of
        # arguments is kept as written by the ``json_string`` body alone; one call per turn never.
        d = description or {}
        self.RESERVED = tuple(d.get("reserved", ()))
        self.PREFIXES = tuple(d.get("prefixes", ("",)))
        self.STRING_ARGUMENTS = d.get("calls", {}).get("body") == "json_string"
        self.SINGLE_CALL = False
        self.RECOVER_OPENERS = ()
        self.CANONICAL = dict(d.get("canonical", {}))
        self.NAME = name
        self.ANCHOR = anchor
        self.STATES = states
        self.RECOVER = recover
        self.START = start
        # How ``tools`` convert the arguments (``_cast``: ``tools -> caster or None``); None:
        # transformers' cast, as for every format.
        self.CAST = cast
        # What a call body reads as syntax (its envelope): ``BODY_SYNTAX`` of the body.
        self.SYNTAX = BODY_SYNTAX[description["calls"]["body"]] if description else ()
        self.description = description


def _table(*states: State) -> dict[str, State]:
    return {s.name: s for s in states}


# -- call bodies: (exact reader, recovering reader), each given the format's name and tags


def _json_exact(fmt: str, strings: bool = False) -> Any:
    def read(raw: str, marker: str) -> Any:
        return _json.function_call(fmt, _json.load(fmt, raw), raw, strings=strings)
    return read


def _json_recover(fmt: str, tags: tuple[str, str], strings: bool = False) -> Any:
    def read(raw: str, marker: str) -> Outcome:
        return _recover.json_calls(raw, strings, (tags[0], marker if marker == tags[1] else ""))
    return read


def _json_string_exact(fmt: str) -> Any:
    return _json_exact(fmt, True)


def _json_string_recover(fmt: str, tags: tuple[str, str]) -> Any:
    return _json_recover(fmt, tags, True)


_FUNCTION = "\n<function="
_PARAMETER = "<parameter="
_PARAMETER_END = "\n</parameter>\n"
_FUNCTION_END = "</function>\n"


def _xml_exact(fmt: str) -> Any:
    def read(raw: str, marker: str) -> Any:
        """``\\n<function=NAME>\\n`` (``<parameter=KEY>\\nVALUE\\n</parameter>\\n``)* ``</function>\\n``."""
        pos = 0

        def fail(what: str) -> ParseError:
            return ParseError(f"{fmt}: malformed tool call, expected {what} at offset {pos} of "
                              f"{excerpt(raw)}")

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
            value = raw[key_end + 2:value_end]
            if _PARAMETER in value:  # a value never holds one: its </parameter> is missing
                pos = key_end + 2 + value.index(_PARAMETER)
                raise fail(repr(_PARAMETER_END) + " before the next parameter")
            key = raw[pos + len(_PARAMETER):key_end]
            if key in arguments:  # the template writes a mapping: each key once
                raise fail(f"a parameter {excerpt(key)} given once")
            arguments[key] = value
            pos = value_end + len(_PARAMETER_END)
        if raw[pos:] != _FUNCTION_END:
            raise fail(f"{_PARAMETER!r} or {_FUNCTION_END!r} ending the call")
        return {"type": "function", "function": {"name": name, "arguments": arguments}}
    return read


def _xml_recover(fmt: str, tags: tuple[str, str]) -> Any:
    def read(raw: str, marker: str) -> Outcome:
        return _recover.xml_call(raw, (tags[0], marker if marker == tags[1] else ""))
    return read


_KEY = "\n<arg_key>"
_KEY_CLOSE = "</arg_key>\n<arg_value>"
_VALUE_CLOSE = "</arg_value>"


def _glm_exact(fmt: str) -> Any:
    def read(raw: str, marker: str) -> Any:
        """``NAME`` (``\\n<arg_key>KEY</arg_key>\\n<arg_value>VALUE</arg_value>``)* ``\\n``
        (GLM-4.5's template L73-79: the values are text, a non-string through tojson)."""
        pos = 0

        def fail(what: str) -> ParseError:
            return ParseError(f"{fmt}: malformed tool call, expected {what} at offset {pos} of "
                              f"{excerpt(raw)}")

        first = raw.find(_KEY)
        if first < 0:
            if not raw.endswith("\n"):
                pos = len(raw)
                raise fail("'\\n' before '</tool_call>'")
            return {"type": "function", "function": {"name": raw[:-1], "arguments": {}}}
        name = raw[:first]
        pos = first
        arguments: dict[str, str] = {}
        while raw.startswith(_KEY, pos):
            key_end = raw.find(_KEY_CLOSE, pos + len(_KEY))
            if key_end < 0:
                raise fail(repr(_KEY_CLOSE))
            value_at = key_end + len(_KEY_CLOSE)
            value_end = raw.find(_VALUE_CLOSE, value_at)
            if value_end < 0:
                pos = value_at
                raise fail(repr(_VALUE_CLOSE))
            key = raw[pos + len(_KEY):key_end]
            if key in arguments:  # the template writes a mapping: each key once
                raise fail(f"an argument {excerpt(key)} given once")
            arguments[key] = raw[value_at:value_end]
            pos = value_end + len(_VALUE_CLOSE)
        if raw[pos:] != "\n":
            raise fail("'\\n<arg_key>' or '\\n' ending the call")
        return {"type": "function", "function": {"name": name, "arguments": arguments}}
    return read


def _glm_recover(fmt: str, tags: tuple[str, str]) -> Any:
    def read(raw: str, marker: str) -> Outcome:
        out = _recover.glm_call(raw, (tags[0], marker if marker == tags[1] else ""))
        if not out.notes:  # the exact reading refused it: say that it was read leniently
            out.notes.append(("recovered-call", 0, "a tool call read leniently (whitespace "
                                                   "around its arguments)"))
        return out
    return read


#: The call syntaxes a description may name: body -> (exact reader, recovering reader,
#: the text after the opening tag that a call in unclosed reasoning must begin with).
BODIES = {
    "json": (_json_exact, _json_recover, ""),
    # The same JSON, where the template writes the arguments through ``tojson`` whether they
    # are a mapping or a string (Qwen2.5): a string reads back as the string it was.
    "json_string": (_json_string_exact, _json_string_recover, ""),
    "xml": (_xml_exact, _xml_recover, "\n<function="),
    # GLM-4.5: NAME, then <arg_key>KEY</arg_key> <arg_value>VALUE</arg_value> pairs.
    "glm": (_glm_exact, _glm_recover, ""),
}


#: Each body's syntax: what its readers consume without putting it in a call (beside
#: whitespace): the JSON envelope (the keys the recovering reading reads, the separators between
#: calls of one block), or the XML / GLM tags.
BODY_SYNTAX = {
    "json": _json.SYNTAX,
    "json_string": _json.SYNTAX,
    "xml": ("<function=", ">", "</function>", "<parameter=", "</parameter>"),
    "glm": ("<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"),
}


# -- text values


def _strip(mode: str) -> Any:
    if mode == "space":
        return lambda raw, marker: raw.strip()
    return lambda raw, marker: raw.strip(mode)


def _content(mode: str, call_open: str, after_think: bool, fmt: str = "",
             exact: bool = False) -> Any:
    if mode == "trim":
        return lambda raw, marker: raw.strip()
    if mode == "coder":
        return _coder_content(fmt, call_open, exact)

    def value(raw: str, marker: str) -> str:
        if after_think:
            raw = raw.lstrip("\n")
        # The "\n" the template writes before the first tool call when there is content.
        return raw[:-1] if marker == call_open and raw.endswith("\n") else raw
    return value


def _coder_content(fmt: str, call_open: str, exact: bool) -> Any:
    """Qwen3-Coder's content (``ports/_qwen3_coder.py``, L78-80, L98): verbatim in a turn
    without calls; before the first call ``'\\n' + content|trim + '\\n'`` after the header, the
    call's own ``'\\n'`` next, so the completion holds ``TEXT + '\\n\\n'`` (``TEXT`` trimmed,
    not empty) or nothing.  The exact reading refuses anything else before a call; the
    recovering one trims it (before ``<tool_call>`` or a bare ``<function=``)."""

    def value(raw: str, marker: str) -> str:
        if marker != call_open and marker != "<function=":
            return raw
        if not exact:
            return raw.strip()
        text = raw[:-2]
        if raw == "" or (raw.endswith("\n\n") and text and text == text.strip()):
            return text
        raise ParseError(f"{fmt}: content before a tool call is written trimmed and followed by "
                         f"'\\n\\n': {excerpt(raw)}")
    return value


def build(d: dict[str, Any]) -> Grammar:
    """The exact and the recovering table of description ``d`` (see the module docstring)."""
    name = d["name"]
    # One end-of-turn token, or several (GLM-4.5's turn ends at the next role's token).
    ends = d["end"] if isinstance(d["end"], tuple) else (d["end"],)
    end_markers = tuple((e, "end", False) for e in ends)
    calls, think = d["calls"], d.get("think")
    call_open, call_close = calls["open"], calls["close"]
    exact_body, recover_body, opener_tail = BODIES[calls["body"]]
    read_exact = exact_body(name)
    after_content = ((call_open, "call", False),) + end_markers
    content_mode = d["content"]

    exact: list[State] = []
    recover: list[State] = []
    if think is not None:
        t_open, t_close = think["open"], think["close"]
        exact += [
            State("start", "content", leads=((t_open, "think", False),), lead_miss="content"),
            State("think", "reasoning_content", markers=((t_close, "after_think", False),),
                  value=_strip(think["strip"]), eager=True),
            State("after_think", "content", markers=after_content,
                  value=_content(content_mode, call_open, True, name, True)),
        ]
        # In unclosed reasoning, the tool-call opener ends the reasoning (vLLM's
        # Qwen3ReasoningParser: <tool_call> is an implicit end of reasoning); for XML calls only
        # when <function= follows, as vLLM's lookahead requires.
        # A think opener the template writes after whitespace ("\n<think>") is also found
        # without it, after any whitespace (rule 5 of _scan).
        think_leads = ((t_open, "think", False),) + (
            ((t_open.lstrip(), "think", False),) if t_open != t_open.lstrip() else ())
        opener = call_open + opener_tail
        target = "call_in_think" if opener_tail else "call"
        recover += [
            State("start", "content", leads=think_leads, lead_miss="content", lead_space=True),
            State("think", "reasoning_content",
                  markers=((t_close, "after_think", False), (opener, target, False)),
                  leads=think_leads, lead_miss="think", lead_space=True,
                  value=_strip(think["strip"]), eager=True,
                  notes={opener: ("reasoning-ended-by-call",
                                  f"{call_open!r} inside unclosed reasoning ends it")}),
            State("after_think", "content", markers=_recover_after(after_content, calls),
                  value=_content(content_mode, call_open, True)),
        ]
    else:
        exact.append(State("start", "content", leads=(), markers=after_content,
                           value=_content(content_mode, call_open, False, name, True)))
        recover.append(State("start", "content", markers=_recover_after(after_content, calls),
                             value=_content(content_mode, call_open, False)))
    recover_value = recover_body(name, (call_open, call_close))
    exact += [
        State("content", "content", markers=after_content,
              value=_content(content_mode, call_open, False, name, True)),
        State("call", "tool_calls", markers=((call_close, "between", False),), value=read_exact,
              eager=True),
        State("between", None, markers=after_content, what="between tool calls"),
        State("end", None, stray=IGNORE),
    ]
    unclosed = ("unclosed-call", f"a tool call without {call_close!r}")
    call_value = _recover.exact_or(read_exact, recover_value)
    call_markers = ((call_close, "between", False), (call_open, "call", False)) + end_markers
    unclosed_at = {call_open: unclosed, **{e: unclosed for e in ends}}
    if opener_tail:
        # The call whose opener (with what must follow it) ended the reasoning.
        recover.append(State("call_in_think", "tool_calls", markers=call_markers,
                             value=lambda raw, marker: call_value(opener_tail + raw, marker),
                             eager=True, notes=dict(unclosed_at)))
    recover += [
        State("content", "content", markers=_recover_after(after_content, calls),
              value=_content(content_mode, call_open, False)),
        # A call left open ends at the next opener or at the end of the turn.
        State("call", "tool_calls", markers=call_markers, value=call_value, eager=True,
              notes=dict(unclosed_at)),
        # A call inside a think block that the model closes after it: the closer is dropped and
        # what follows is the answer (vLLM tests/reasoning/test_qwen3_tool_call_recovery.py:
        # the call leaves the reasoning, the text after </think> stays content).
        State("between", "content",
              markers=(_recover_after(after_content, calls) + ((call_close, "between", False),)
                       + (((think["close"], "after_think", False),) if think else ())),
              value=_recover.stray("between or after tool calls", ((call_open, "\n"),)),
              notes={call_close: ("stray-closer", f"{call_close!r} without its opener, dropped"),
                     **({think["close"]: ("stray-closer",
                                          f"{think['close']!r} after a tool call, dropped")}
                        if think else {})}),
        State("end", None, stray=IGNORE),
    ]
    if calls["body"] == "xml":
        # <function=...> without the <tool_call> wrapper (vLLM's Qwen3CoderToolParser falls
        # back to the whole output when there is no <tool_call>): read up to </function>.
        recover.append(State("bare_call", "tool_calls", markers=(("</function>", "between", False),)
                                                         + end_markers,
                             value=_bare_call, eager=True))
    if calls["body"] == "xml":
        for st in recover:
            if "<function=" in st.table:
                st.notes["<function="] = ("unwrapped-call",
                                          f"<function=...> without {call_open!r} read as a call")
    cast = None
    if d.get("cast"):
        from . import _cast

        cast = _cast.CASTS[d["cast"]]
    return Grammar(name, d["anchor"], _table(*exact), _table(*recover), "start", d, cast)


def _recover_after(after_content: tuple[tuple[str, str, bool], ...], calls: dict[str, Any]) -> Any:
    if calls["body"] != "xml":
        return after_content
    return after_content + (("<function=", "bare_call", True),)


def _bare_call(raw: str, marker: str) -> Outcome:
    return _recover.xml_call(raw + marker if marker == "</function>" else raw, ("", ""))
