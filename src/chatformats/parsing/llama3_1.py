"""Reading back a ``llama-3.1`` assistant turn (``ports/llama3_1_2024_09.py``).

What the template writes after the generation prompt
``<|start_header_id|>assistant<|end_header_id|>\\n\\n`` (template L66-96):

- a message without ``tool_calls``: ``content|trim``, then ``<|eot_id|>`` (L68);
- a message with one tool call whose name is in ``builtin_tools`` (L74-83): ``<|python_tag|>``
  + ``NAME.call(`` + ``k="v"`` for each argument, joined by ``", "``, + ``)``; no escaping, so
  a value holding ``", `` cannot be told from two arguments;
- any other tool call (L85-89): ``{"name": "NAME", "parameters": ARGS}`` (ARGS ``tojson``), as
  Llama 3.2 Vision writes it (:func:`.llama3_2_vision.json_call`, the same body);
- after a tool call, ``<|eom_id|>`` while ``builtin_tools`` is defined, else ``<|eot_id|>``
  (L91-96).  Either ends the turn here, as in the Llama 3.2 Vision grammar.

So a turn that begins with ``<|python_tag|>`` is a built-in call, one that begins with
``{"name": "`` is a JSON call, any other turn is content.

The recovering reading (``RECOVER``) is the Llama 3.2 Vision one (vLLM's Llama3JsonToolParser,
``llama_tool_parser.py`` at 500932b: JSON calls found anywhere, ``;``-separated, ``"arguments"``
or ``"parameters"``; the text around them kept as content) with what follows
``<|python_tag|>`` read as Meta's reference decoder reads it (``meta-llama/llama-models``,
``models/llama3/chat_format.py`` at d42f395, ``decode_assistant_message_from_content``): the
exact built-in call, else a JSON call (or several), else the first ``NAME.call(query="...")``
anywhere (``tool_utils.py``'s pattern; the text around it is content), else, since
``<|python_tag|>`` opens code in the ``Environment: ipython`` mode, the whole text is the
``code`` of a ``code_interpreter`` call.
"""

from __future__ import annotations

from typing import Any

from ..errors import ParseError
from . import _json, _recover
from ._scan import IGNORE, Outcome, State, excerpt
from .llama3_2_vision import _ENDS, _OPENERS, ANCHOR, CALL_OPENER, _recover_calls, json_call

NAME = "llama-3.1"
PYTHON_TAG = "<|python_tag|>"  # L76
_CALL = ".call("  # L76
# The JSON call's envelope and the built-in call's NAME.call(KEY="VALUE", ...) (parsing.syntax).
SYNTAX = _json.SYNTAX + (_CALL, "=", ")")
# The Llama 3.2 Vision openers but <|python_tag|>, which opens a state of its own here.
_JSON_OPENERS = tuple(o for o in _OPENERS if o != PYTHON_TAG)

_call = json_call(NAME)


def builtin_call(raw: str, marker: str) -> Any:
    """The exact value of a built-in call, ``raw`` the text after ``<|python_tag|>``:
    ``NAME.call(`` + arguments + ``)``.  NAME is the text before the first ``.call(``; each
    argument is ``KEY="VALUE"``, KEY the text up to the next ``="`` and VALUE the text up to the
    next ``", `` (where the next argument begins) or, for the last one, up to the closing
    ``")``.  The template does not escape values, so a value holding ``", `` is read as two
    arguments, and a key holding ``="`` or ``", `` is cut (docs/parsing.md)."""
    at = raw.find(_CALL)
    if at < 0 or not raw.endswith(")"):
        raise ParseError(f"{NAME}: a built-in call is NAME.call(...); got {excerpt(raw)}")
    name, body = raw[:at], raw[at + len(_CALL):-1]
    arguments: dict[str, str] = {}
    pos, n = 0, len(body)
    while pos < n:
        eq = body.find('="', pos)
        if eq < 0:
            raise ParseError(f"{NAME}: a built-in call's argument is KEY=\"VALUE\"; got {excerpt(body[pos:])}")
        key, start = body[pos:eq], eq + 2
        sep = body.find('", ', start)
        if sep >= 0:
            end, pos = sep, sep + 3
            if pos == n:
                raise ParseError(f"{NAME}: a built-in call ends with ', ' before ')'; got {excerpt(raw)}")
        elif n - 1 >= start and body.endswith('"'):
            end, pos = n - 1, n
        else:
            raise ParseError(f"{NAME}: a built-in call's value is not closed by '\"'; got {excerpt(raw)}")
        if key in arguments:
            raise ParseError(f"{NAME}: a built-in call names argument {key!r} twice; got {excerpt(raw)}")
        arguments[key] = body[start:end]
    return {"type": "function", "function": {"name": name, "arguments": arguments}}


_QUERY = '.call(query="'


def _word_start(text: str, end: int) -> int:
    """Where the run of word characters (``\\w``) that ends at ``end`` begins."""
    start = end
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    return start


def meta_builtin_call(raw: str) -> Outcome | None:
    """Meta's ``maybe_extract_builtin_tool_call`` (``models/llama3/tool_utils.py`` at d42f395:
    the first match of ``\\b(?P<tool_name>\\w+)\\.call\\(query="(?P<query>[^"]*)"\\)``
    anywhere): that call, with the text before and after it kept as content; None when there is
    none.  Searched for its literal ``.call(query="`` (no regex backtracking over a long word)."""
    at = raw.find(_QUERY)
    while at >= 0:
        start = _word_start(raw, at)
        value_start = at + len(_QUERY)
        close = raw.find('"', value_start)
        if start < at and close >= 0 and raw.startswith(")", close + 1):
            call = {"type": "function", "function": {
                "name": raw[start:at], "arguments": {"query": raw[value_start:close]}}}
            notes = [("recovered-call", start, "a built-in call inside the text read as a call")]
            parts: list[tuple[str, Any]] = []
            if raw[:start].strip():
                parts.append(("content", raw[:start]))
                notes.insert(0, ("text-before-call", 0, "text before a tool call kept as content"))
            parts.append(("tool_calls", [call]))
            if raw[close + 2:].strip():
                parts.append(("content", raw[close + 2:]))
                notes.append(("stray-text", close + 2, "text after a tool call kept as content"))
            return Outcome(parts, notes)
        at = raw.find(_QUERY, at + 1)
    return None


def _is_word(text: str) -> bool:
    """Whether ``text`` is a run of word characters (``\\w+``: a tool's name as Meta's pattern
    reads one)."""
    return bool(text) and all(c.isalnum() or c == "_" for c in text)


def _recover_python(raw: str, marker: str) -> Any:
    """What follows ``<|python_tag|>`` in the recovering reading: the exact built-in call (whose
    name is a run of word characters, as every built-in tool's is: code that happens to hold
    ``.call(`` is not read as a call named ``print("x``); else
    JSON calls (vLLM's rule, Meta's ``maybe_extract_custom_tool_call`` first); else Meta's
    built-in call found in the text (:func:`meta_builtin_call`); else, when there is any text,
    the ``code`` of a ``code_interpreter`` call (Meta's ``elif ipython``); else the tag itself
    is content."""
    try:
        call = builtin_call(raw, marker)
        if _is_word(call["function"]["name"]):
            return call
    except ParseError:
        pass
    if raw.lstrip().startswith("{"):
        return _recover.json_calls(raw, True, (PYTHON_TAG, ""), openers=CALL_OPENER)
    found = meta_builtin_call(raw)
    if found is not None:
        return found
    if not raw.strip():
        return Outcome([("content", PYTHON_TAG + raw)],
                       [("not-a-call", 0, "<|python_tag|> with nothing after it kept as content")])
    call = {"type": "function", "function": {"name": "code_interpreter", "arguments": {"code": raw}}}
    return Outcome([("tool_calls", [call])],
                   [("python-code", 0, "text after <|python_tag|> that is no call read as "
                                       "code_interpreter's code")])


def _content_before_call(raw: str, marker: str) -> Any:
    """Content before a call the recovering reading found: verbatim; only whitespace is the
    gap before the call: handed to a JSON call (which drops it if it reads, and keeps it as
    content with the call's text if it does not), dropped before ``<|python_tag|>`` (the token
    begins the call, as Meta's decoder reads it)."""
    if marker in _JSON_OPENERS or marker == PYTHON_TAG:
        if not raw.strip():
            return Outcome([], [], carry=raw if marker in _JSON_OPENERS else "")
        return Outcome([("content", raw)], [("text-before-call", 0, "text before a tool call kept as content")])
    return raw


_LEADS = (('{"name": "', "call", True), (PYTHON_TAG, "builtin", False))

STATES = {
    s.name: s
    for s in (
        State("start", "content", leads=_LEADS, lead_miss="content"),
        State("content", "content", markers=_ENDS),
        State("call", "tool_calls", markers=_ENDS, value=_call, eager=True),
        State("builtin", "tool_calls", markers=_ENDS, value=builtin_call, eager=True),
        State("end", None, stray=IGNORE),
    )
}
RECOVER = {
    s.name: s
    for s in (
        State("start", "content", leads=_LEADS, lead_miss="content"),
        State("content", "content",
              markers=_ENDS + tuple((o, "call", True) for o in _JSON_OPENERS)
              + ((PYTHON_TAG, "builtin", False),),
              value=_content_before_call,
              notes={o: ("call-in-text", "a tool call inside the text read as a call")
                     for o in _JSON_OPENERS}),
        State("call", "tool_calls", markers=_ENDS,
              value=_recover.exact_or(_call, _recover_calls), eager=True),
        State("builtin", "tool_calls", markers=_ENDS, value=_recover_python, eager=True),
        State("end", None, stray=IGNORE),
    )
}
START = "start"

# The grammar's facts beside its tables (``parsing/grammars.py`` says what each means).
RESERVED = ("<|start_header_id|>", "<|python_tag|>")
PREFIXES = ("", "<|start_header_id|>assistant<|end_header_id|>\n\n")
STRING_ARGUMENTS = True
SINGLE_CALL = True
RECOVER_OPENERS = _JSON_OPENERS
CANONICAL = {"reasoning": "dropped", "content": "strip", "with_calls": "empty"}
