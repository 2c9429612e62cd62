"""Reading back a ``gpt-oss`` assistant turn (``ports/gpt_oss.py``): Harmony messages.

What the template writes after the generation prompt ``<|start|>assistant`` (L289-314), as the
last message of a conversation:

- an answer: ``<|channel|>final<|message|>`` + content + ``<|return|>`` (``<|end|>`` where the
  answer is history), after ``<|channel|>analysis<|message|>`` + thinking + ``<|end|>`` +
  ``<|start|>assistant`` when the message has a ``thinking`` key;
- a tool call: `` to=functions.NAME<|channel|>commentary json<|message|>`` + the arguments by
  ``tojson`` + ``<|call|>``, after ``<|channel|>analysis<|message|>`` + the analysis (the
  message's content, else its thinking) + ``<|end|>`` + ``<|start|>assistant`` when it has one.
  Only the first call is written; its id is not.

The exact reading (``STATES``) inverts that: the analysis message's text is the reasoning, the
final message's the content, the call's name and its arguments' JSON (an object, or a string:
string arguments go through ``tojson`` too and read back as that string) the one tool call.  A
content type other than ``json`` is refused (a message has nowhere to keep it).

The recovering reading (``RECOVER``) follows openai-harmony's ``StreamableParser``
(``src/encoding.rs``), which vLLM runs over a gpt-oss completion
(``vllm/entrypoints/harmony_utils.py``, ``parse_output_into_messages``, with the parser started
in the assistant's header): a message is a header up to ``<|message|>`` and a body up to a stop
token (``<|end|>``, ``<|return|>``, ``<|call|>``); the next message opens at ``<|start|>``. The
header is read as ``parse_header_from_tokens`` reads it: the channel is what follows
``<|channel|>`` up to whitespace or ``<``; the rest, with a space put before ``<|constrain|>``,
splits on whitespace into the role (after ``<|start|>``; the first message's is the
assistant's), a recipient (``to=...``) and a content type.  Each message is then what vLLM's
``OpenAIToolParser`` makes of it (``vllm/entrypoints/openai/tool_parsers/openai_tool_parser.py``):
a recipient ``functions.NAME`` is a tool call named ``recipient.split("functions.")[1]`` whose
arguments are the body as JSON when the content type is absent or holds ``json``, the body as a
string otherwise; the ``final`` channel is content; the ``analysis`` channel is reasoning.  Where
vLLM drops text, it is kept here with a diagnostic: a ``commentary`` message with no recipient
(a preamble) and a message on another or no channel are content; a call to another recipient
(``browser.search``, ``python``) is a call named by its recipient; a call whose JSON does not
decode keeps its body as string arguments; a header that does not parse, a message by another
role, text between messages and text with no header are content with their markup; a message
left open at the end is read by its header.  Several analysis or final messages are joined
without a separator.  The turn ends at ``<|return|>`` or ``<|call|>`` (vLLM stops sampling
there); what follows is not part of the message.

Streaming: a message whose header is ``<|channel|>analysis`` or ``<|channel|>final`` (after
``<|start|>``, ``assistant<|channel|>...``) is read by a state of its own, so its body streams
as reasoning or content; any other message is one region, read whole when its stop token (or
the end) comes, with the header rules above (which read those two headers the same way).
"""

from __future__ import annotations

from typing import Any

from ..errors import ParseError
from . import _json
from ._scan import IGNORE, Outcome, State, excerpt

NAME = "gpt-oss"
ANCHOR = "<|start|>assistant"
_ANALYSIS = "<|channel|>analysis<|message|>"
_FINAL = "<|channel|>final<|message|>"
_CALL_HEAD = " to=functions."
_NEXT_FINAL = "<|start|>assistant<|channel|>final<|message|>"
_NEXT_CALL = "<|start|>assistant to=functions."
_COMMENTARY = "<|channel|>commentary "
_START = "<|start|>"
_MESSAGE = "<|message|>"
_CHANNEL = "<|channel|>"
_CONSTRAIN = "<|constrain|>"
_END = "<|end|>"
_RETURN = "<|return|>"
_CALL = "<|call|>"
_ROLES = ("system", "developer", "user", "assistant", "tool")
#: What a message's header reads as syntax (parsing.syntax): its control strings, the roles,
#: the channels it gives a meaning to, a recipient's ``to=`` and ``functions.``, the ``json``
#: content type, and the arguments' JSON.  Any other header word is a value (a call's name)
#: or is quoted by a diagnostic.
SYNTAX = (_START, _MESSAGE, _CHANNEL, _CONSTRAIN, _END, _RETURN, _CALL, "to=", "functions.",
          "analysis", "commentary", "final", "json") + _ROLES + _json.SYNTAX


def _verbatim(raw: str, marker: str) -> str:
    return raw


# -- the exact reading


def _call(raw: str, marker: str) -> dict[str, Any]:
    """``NAME<|channel|>commentary json<|message|>ARGS`` up to ``<|call|>``: the one call."""
    if marker != _CALL:
        raise ParseError(f"{NAME}: a tool call without {_CALL!r}: {excerpt(raw)}")
    at = raw.find(_COMMENTARY)
    body = raw.find(_MESSAGE, at + len(_COMMENTARY)) if at >= 0 else -1
    if at < 0 or body < 0:
        raise ParseError(f"{NAME}: malformed tool call, expected NAME{_COMMENTARY}TYPE{_MESSAGE}: "
                         f"{excerpt(raw)}")
    content_type = raw[at + len(_COMMENTARY):body]
    if content_type != "json":
        raise ParseError(f"{NAME}: a tool call's content type must be 'json' (the message has no "
                         f"field for another); got {content_type!r}")
    text = raw[body + len(_MESSAGE):]
    arguments = _json.load(NAME, text)
    if not isinstance(arguments, (dict, str)):
        raise ParseError(f"{NAME}: a tool call's arguments must be a JSON object or string; "
                         f"got {excerpt(text)}")
    return {"type": "function", "function": {"name": raw[:at], "arguments": arguments}}


STATES = {
    s.name: s
    for s in (
        State("start", None, markers=((_ANALYSIS, "analysis", False), (_FINAL, "final", False),
                                      (_CALL_HEAD, "call", False)),
              what="before the first message's channel"),
        State("analysis", "reasoning_content", markers=((_END, "next", False),), value=_verbatim,
              eager=True),
        State("next", None, markers=((_NEXT_FINAL, "final", False), (_NEXT_CALL, "call", False)),
              what="after the analysis message"),
        State("final", "content", markers=((_RETURN, "end", False), (_END, "end", False)),
              value=_verbatim),
        State("call", "tool_calls", markers=((_CALL, "end", False),), value=_call, eager=True),
        State("end", None, stray=IGNORE),
    )
}


# -- the recovering reading


def header(text: str, first: bool) -> tuple[str | None, str | None, str | None, str | None]:
    """openai-harmony's ``parse_header_from_tokens`` on a header's text: ``(role, channel,
    recipient, content_type)``; ``role`` is None for the first message (the parser was started
    with the assistant's role); :class:`ValueError` where harmony fails."""
    channel = None
    at = text.find(_CHANNEL)
    if at >= 0:
        after = text[at + len(_CHANNEL):]
        end = 0
        while end < len(after) and not (after[end].isspace() or after[end] == "<"):
            end += 1
        if end == 0:
            raise ValueError("channel marker present but no channel value found in header")
        channel = after[:end]
        text = text[:at] + after[end:]
    text = text.strip()
    if _CONSTRAIN in text:
        text = text.replace(_CONSTRAIN, " " + _CONSTRAIN).strip()
    parts = text.split()
    role = None
    if not first:
        if not parts:
            raise ValueError("message header did not contain a role")
        role = parts[0]
        if role not in _ROLES:
            if len(parts) > 1 or parts[0].startswith("to="):
                parts.pop(0)  # an unknown role with a recipient: harmony reads a tool's message
                role = "tool"
            else:
                raise ValueError(f"Unknown role: {role}")
    if parts and parts[0] == (role or "assistant"):
        parts.pop(0)
    recipient = content_type = None
    if parts:
        count = len(parts)
        last = parts.pop()
        if last.startswith("to="):
            recipient = last[3:]
        elif count == 1:
            recipient = last
        else:
            content_type = last
            if parts:
                if len(parts) != 1:
                    raise ValueError("Could not parse header: too many tokens remaining after "
                                     "extracting content-type and recipient")
                raw_recipient = parts.pop()
                recipient = raw_recipient[3:] if raw_recipient.startswith("to=") else raw_recipient
    if parts:
        raise ValueError(f"unexpected tokens remaining in message header: {parts!r}")
    return role, channel, recipient, content_type


def _arguments(body: str, content_type: str | None, notes: list[tuple[str, int, str]],
               at: int) -> Any:
    """vLLM's rule: JSON when the content type is absent or holds ``json``; the body as a
    string otherwise (and where it does not decode to an object or a string)."""
    if content_type is None or "json" in content_type:
        decoded = _json.loads(body)
        if isinstance(decoded, (dict, str)):
            return decoded
        notes.append(("bad-json", at, "a tool call whose arguments are no JSON object or string: "
                                      "the text kept as string arguments"))
    return body


def _message(raw: str, marker: str, first: bool) -> Outcome:
    """One Harmony message (its header's rest, ``<|message|>``, its body) as the region it
    belongs to."""
    notes: list[tuple[str, int, str]] = []
    if marker == "":
        notes.append(("unclosed-message", len(raw), "a message without a stop token, read by "
                                                    "its header"))
    split = raw.find(_MESSAGE)
    markup = raw if first else _START + raw
    if split < 0:
        notes.append(("no-header", 0, f"text without {_MESSAGE!r} kept as content"))
        return Outcome([("content", markup)] if markup else [], notes)
    body = raw[split + len(_MESSAGE):]
    try:
        role, channel, recipient, content_type = header(raw[:split], first)
    except ValueError as exc:
        notes.append(("bad-header", 0, f"a header harmony cannot read ({exc}): the message kept "
                                       "as content"))
        return Outcome([("content", markup + marker)], notes)
    at = split + len(_MESSAGE)
    if role not in (None, "assistant"):
        notes.append(("not-assistant", 0, f"a message by {role!r} kept as content"))
        return Outcome([("content", markup + marker)], notes)
    if recipient is not None:
        if recipient.startswith("functions."):
            # All that follows "functions." (vLLM's recipient.split("functions.")[1] drops what
            # follows a second "functions.": kept here).
            name = recipient[len("functions."):]
        else:
            name = recipient
            notes.append(("builtin-tool-call", 0, f"a call to {recipient!r} (not a function) "
                                                  "read as a call of that name"))
        if channel != "commentary":
            notes.append(("call-channel", 0, f"a tool call on the {channel!r} channel"))
        if content_type is not None and content_type not in ("json", _CONSTRAIN + "json"):
            notes.append(("content-type", 0, f"the content type {content_type!r} of a tool "
                                             "call (not json): a header word, no part of the call"))
        arguments = _arguments(body, content_type, notes, at)
        return Outcome([("tool_calls", [{"type": "function",
                                         "function": {"name": name, "arguments": arguments}}])],
                       notes)
    if channel == "analysis":
        return Outcome([("reasoning_content", body)] if body else [], notes)
    if channel != "final":
        what = "a commentary message with no recipient (a preamble)" if channel == "commentary" \
            else f"a message on the {channel!r} channel" if channel else "a message with no channel"
        notes.append(("not-final", 0, f"{what} kept as content"))
    return Outcome([("content", body)] if body else [], notes)


def _first(raw: str, marker: str) -> Outcome:
    return _message(raw, marker, True)


def _later(raw: str, marker: str) -> Outcome:
    return _message(raw, marker, False)


def _between(raw: str, marker: str) -> Outcome:
    """Text between a message's ``<|end|>`` and the next ``<|start|>`` (harmony refuses it)."""
    if raw.isspace() or not raw:
        return Outcome([], [])
    return Outcome([("content", raw)], [("stray-text", 0, "text between messages kept as content")])


def _body(region: str) -> Any:
    """The body of a message whose header was one of the common ones (a lead): ``region``'s
    text, as :func:`_message` reads that header."""

    def value(raw: str, marker: str) -> Outcome:
        notes = [("unclosed-message", len(raw), "a message without a stop token, read by its "
                                                "header")] if marker == "" else []
        return Outcome([(region, raw)], notes)

    return value


_STOPS = ((_END, "between", False), (_RETURN, "end", False), (_CALL, "end", False))

# The common headers are leads (where a message begins), so that an analysis or final message
# streams as reasoning or content; any other header is read whole with its body (_message),
# which gives these two headers the same reading.
_FIRST_LEADS = ((_ANALYSIS, "analysis", False), (_FINAL, "final", False))
_LATER_LEADS = (("assistant" + _ANALYSIS, "analysis", False), ("assistant" + _FINAL, "final", False))

RECOVER = {
    s.name: s
    for s in (
        State("start", None, leads=_FIRST_LEADS, lead_miss="first"),
        State("first", "tool_calls", markers=_STOPS, value=_first),
        State("between", "content", markers=((_START, "later", False),), value=_between),
        State("later", None, leads=_LATER_LEADS, lead_miss="message"),
        State("message", "tool_calls", markers=_STOPS, value=_later),
        State("analysis", "reasoning_content", markers=_STOPS, value=_body("reasoning_content"),
              eager=True),
        State("final", "content", markers=_STOPS, value=_body("content"), eager=True),
        State("end", None, stray=IGNORE),
    )
}
START = "start"

# The grammar's facts beside its tables (``parsing/grammars.py`` says what each means).
RESERVED = ("<|start|>", "<|message|>", "<|channel|>", "<|constrain|>")
PREFIXES = ("", "<|start|>assistant")
STRING_ARGUMENTS = True
SINGLE_CALL = False
RECOVER_OPENERS = ()
CANONICAL = {"reasoning": "as-given", "with_calls": "to-reasoning", "calls": "first"}
