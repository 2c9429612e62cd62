"""Completions read back into assistant messages: the inverse of each format.

- :func:`parse_response` — the assistant message a completion encodes.
- :class:`ResponseParser` — the same, streamed: ``feed(chunk)`` returns transformers'
  ``ResponseParser`` events (``region_open`` / ``region_chunk`` / ``region_close``),
  ``close()`` returns the message.

A message is ``{"role": "assistant", "content": str}`` plus ``"reasoning_content"`` (when
non-empty) and ``"tool_calls"`` (``[{"type": "function", "function": {"name", "arguments"},
"id"?}]``, when any), returned as a :class:`ParsedMessage` (a ``dict``) whose ``diagnostics``
list what the recovering reading recovered.

Two readings: the default recovers from the drift real models show, as the servers users
compare with do (docs/parsing.md names the server rule for each kind of drift): what can be
read as a tool call is a call, what cannot is content, nothing is lost, and each recovery is
a diagnostic.  ``strict=True`` is the exact inverse of the template: anything that is not a
turn the template writes is a :class:`~chatformats.errors.ParseError`.  On what the template
writes, the two give the same message.  Either way every tool call has ``type``, a string
``function.name`` and ``function.arguments`` (a mapping, or a string where the format's
convention is a string).  ``prefix`` is the prompt the completion continues: its text after the
last assistant header of the format (the generation prompt's, e.g. ``<think>\\n``) is read
first, so a block the template opened or closed is understood (no header in it: the
completion starts the turn).  The turn ends at the format's end-of-turn token; text after it
is not part of the message.  With ``tools``, arguments are cast by the tools' JSON schemas as
transformers casts them (:mod:`._cast`), or as the server the grammar follows converts them
(Qwen3-Coder: as vLLM's ``Qwen3CoderToolParser``, :func:`._cast.qwen3_coder_value`).

Each format's grammar is a description (:data:`.grammars.DESCRIPTIONS`, built by
:mod:`._build`) or, for a syntax of its own, a module beside its port (``parsing/<grammar>.py``);
the scanner they share is :mod:`._scan`; ``docs/parsing.md`` states what each format's parse
gives back.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..errors import ChatFormatError, ParseError
from ._cast import cast_tool_call, tool_parameters
from ._scan import Scanner, check_states

__all__ = ["parse_response", "ResponseParser", "ParsedMessage", "ParseError"]

from .grammars import DESCRIPTIONS as _DESCRIPTIONS

_LOADED: dict[str, Any] = {}


class ParsedMessage(dict):  # type: ignore[type-arg]
    """The assistant message (a plain ``dict``: it compares, copies and serialises as one) with
    ``diagnostics``: a list of ``{"kind", "offset", "detail"}``, one per recovery the reading
    made (``offset`` in the completion; negative: in the prefix), empty when the completion is
    exactly what the template writes, always empty with ``strict=True``."""

    __slots__ = ("diagnostics",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.diagnostics: list[dict[str, Any]] = []


def family(name: Any) -> str:
    """The grammar module that reads format ``name``'s completions (``name`` as
    :func:`chatformats.get_format` takes it: a format name, an alias, a model id, a bound
    format); :class:`ChatFormatError` for a format that has no parser yet."""
    from .._registry import get_format

    fmt = get_format(name)
    if not fmt.grammar:
        raise ChatFormatError(f"format {fmt.name!r} has no parser")
    return fmt.grammar


def load_grammar(grammar_name: str) -> Any:
    """Grammar ``grammar_name``: built from its description, or its module."""
    g = _LOADED.get(grammar_name)
    if g is None:
        if grammar_name in _DESCRIPTIONS:
            from ._build import build

            g = build(dict(_DESCRIPTIONS[grammar_name]))
        else:
            g = importlib.import_module(f".{grammar_name}", __name__)
        _LOADED[grammar_name] = g
    return g


def grammar(name: Any) -> Any:
    """The grammar of format ``name`` (``STATES``, ``RECOVER``, ``START``, ``ANCHOR``, ``NAME``)."""
    return load_grammar(family(name))


def syntax(name: Any) -> tuple[str, ...]:
    """The strings format ``name``'s parser may read without putting them in the message: the
    control strings of both its tables (markers and leads), its assistant header, and the
    syntax its call bodies declare (``SYNTAX``: the envelope of a call, such as ``"name"`` and
    ``:``).  Whitespace is syntax too.  "Nothing is lost" (docs/parsing.md) is stated with
    these."""
    g = grammar(name)
    out: set[str] = set(g.ANCHOR if isinstance(g.ANCHOR, tuple) else (g.ANCHOR,))
    for table in (g.STATES, g.RECOVER):
        for state in table.values():
            out.update(lit for lit, _, _ in state.markers + state.leads)
    out.update(getattr(g, "SYNTAX", ()))
    return tuple(sorted(out))


def reserved(name: Any) -> tuple[str, ...]:
    """What a text field of a message in format ``name``'s representable domain never holds
    (docs/parsing.md): the markers of its grammar's exact table, then its ``RESERVED`` strings
    (``parsing/grammars.py``), each once, in that order.  A text holding one of them need not
    read back as itself."""
    g = grammar(name)
    out: dict[str, None] = {}
    for state in g.STATES.values():
        out.update(dict.fromkeys(state.table))
    out.update(dict.fromkeys(g.RESERVED))
    return tuple(out)


def canonical(name: Any, message: Any, conversation: Any = (), variables: Any = None) -> dict[str, Any]:
    """What format ``name``'s template keeps of the assistant ``message`` rendered after
    ``conversation`` with ``variables``: the message the parse of that turn gives back (the
    round-trip law, docs/parsing.md).  Read off the grammar's ``CANONICAL`` facts and the
    spec's ``canonical`` overrides (:mod:`._canonical`)."""
    from .._registry import get_format
    from ._canonical import canonical as _canonical

    return _canonical(get_format(name), grammar(name), message, conversation, variables)


def response_template(name: Any) -> dict[str, Any]:
    """A copy of format ``name``'s transformers ``response_template`` (formats that share a
    grammar share it); ``get_format(name).response_template`` is the same."""
    from .._response_templates import for_grammar

    return for_grammar(family(name))


def limits(name: Any) -> tuple[str, ...]:
    """What format ``name``'s ``response_template`` cannot express
    (``chatformats._response_templates.LIMITS``)."""
    from .._response_templates import LIMITS

    return LIMITS[family(name)]


class ResponseParser:
    """Streaming parser of one completion of format ``name``.

    ``initial_events`` are the events of the prefix's own part of the turn (a ``<think>\\n``
    prefill opens the reasoning region); ``feed(chunk)`` returns the events ``chunk`` completes;
    ``close()`` ends the input and returns the message (its events in ``final_events``);
    ``finalize()`` returns ``(message, final_events)`` as transformers' ``ResponseParser`` does.
    Any split of the same text into chunks gives the same message and the same text per region.
    """

    def __init__(self, name: str, *, prefix: str, tools: Any = None, strict: bool = False) -> None:
        if not isinstance(prefix, str):
            raise TypeError(f"prefix must be a str (the prompt, or \"\"), not {type(prefix).__name__}")
        g = grammar(name)
        self.name = name
        self.strict = bool(strict)
        # A grammar may convert arguments its own way (Qwen3-Coder: as vLLM does); every other
        # casts them as transformers does.
        cast = getattr(g, "CAST", None)
        self._caster = cast(tools) if cast is not None else None
        self._params = tool_parameters(tools) if cast is None else {}
        self._reasoning: list[str] = []
        self._content: list[str] = []
        self._tool_calls: list[Any] = []
        self._scanner = Scanner(name, g.STATES if self.strict else g.RECOVER, g.START,
                                self._on_close)
        self._scanner.report_ignored = not self.strict
        self._error: ParseError | None = None
        self._closed = False
        self.final_events: list[dict[str, Any]] = []
        # The assistant header (or several: DeepSeek-V3.1's turn after a tool result has none,
        # it follows <｜tool▁output▁end｜>): the turn is read after the last of them.
        start = -1
        for anchor in (g.ANCHOR if isinstance(g.ANCHOR, tuple) else (g.ANCHOR,)):
            at = prefix.rfind(anchor)
            if at >= 0:
                start = max(start, at + len(anchor))
        tail = prefix[start:] if start >= 0 else ""
        self._scanner.offset = -len(tail)
        # (no text of the turn in the prefix: nothing to scan, no events)
        self.initial_events = self._run(tail, False) if tail else []
        if self._scanner.state.name == "end":
            raise ParseError(f"{name}: the prefix's assistant turn is already closed")

    @property
    def diagnostics(self) -> list[dict[str, Any]]:
        """What the recovering reading recovered so far (see :class:`ParsedMessage`)."""
        return self._scanner.diagnostics

    @property
    def spans(self) -> list[tuple[int, int, str, Any]]:
        """Where each character read so far went: ``(start, end, kind, what)`` in completion
        offsets (negative: the prefix's part of the turn), in order, together covering every
        character passed: ``kind`` ``"marker"`` (``what``: the control string), ``"region"``
        (``what``: ``(field, text, value)``, the text a region read and its value, a
        :class:`._scan.Outcome` where the recovering reading split it), ``"space"`` (the
        whitespace between a format's structures) or ``"ignored"`` (text after the end of the
        turn; the recovering reading reports it as an ``after-end`` diagnostic).  The law
        "nothing is lost" (docs/parsing.md) is checked on it."""
        return self._scanner.spans

    @property
    def work(self) -> int:
        """Characters searched so far (a measure of the scan's cost; see :mod:`._scan`)."""
        return self._scanner.work

    def _on_close(self, region: str, value: Any) -> Any:
        if region == "tool_calls":
            calls = value if isinstance(value, list) else [value]
            if self._caster is not None:
                for call in calls:
                    self._caster(call)
            elif self._params:
                for call in calls:
                    try:
                        cast_tool_call(call, self._params)
                    except RecursionError:
                        raise ParseError(f"{self.name}: a tool's schema is nested too deeply "
                                         "to cast arguments by") from None
            self._tool_calls.extend(calls)
        elif region == "reasoning_content":
            self._reasoning.append(value)
        else:
            self._content.append(value)
        return value

    def _run(self, text: str, eos: bool) -> list[dict[str, Any]]:
        if self._error is not None:
            raise self._error
        try:
            return self._scanner.run(text, eos)
        except ParseError as exc:
            self._error = exc
            raise
        except RecursionError:
            self._error = ParseError(f"{self.name}: a tool call is nested too deeply to parse")
            raise self._error from None

    def feed(self, chunk: str) -> list[dict[str, Any]]:
        """The events ``chunk`` completes (a partial control token at its end is held back)."""
        if self._closed:
            raise ChatFormatError("ResponseParser already closed")
        if not isinstance(chunk, str):
            raise TypeError(f"chunk must be a str, not {type(chunk).__name__}")
        return self._run(chunk, False)

    def finalize(self) -> tuple[ParsedMessage, list[dict[str, Any]]]:
        """End the input: ``(message, events)``."""
        if self._closed:
            raise ChatFormatError("ResponseParser already closed")
        self.final_events = self._run("", True)
        return self._message(), self.final_events

    def _message(self) -> ParsedMessage:
        self._closed = True
        # The scanner's callback is this parser's bound method: dropped, the two hold no cycle
        # and the completion's copies are freed on return instead of by the cyclic collector.
        self._scanner.on_close = None  # type: ignore[assignment]
        message = ParsedMessage(role="assistant", content="".join(self._content))
        reasoning = "".join(self._reasoning)
        if reasoning:
            message["reasoning_content"] = reasoning
        if self._tool_calls:
            message["tool_calls"] = self._tool_calls
        message.diagnostics = list(self._scanner.diagnostics)
        return message

    def close(self) -> ParsedMessage:
        """End the input and return the message."""
        return self.finalize()[0]


def parse_response(name: str, response: Any, *, prefix: Any, tools: Any = None,
                   strict: bool = False, tokenizer: Any = None) -> Any:
    """The assistant message ``response`` encodes in format ``name`` (see the module docstring;
    ``strict=True``: the exact reading).

    ``response`` may be a list of strings (a batch: a list of messages); ``prefix`` is then
    one string for all or a list of one per response.  Linear in ``len(prefix) +
    len(response)``.

    With ``tokenizer`` (a ``tokenizers.Tokenizer`` or a transformers fast tokenizer),
    ``response`` is the completion's token ids (or a list of them: a batch), and control tokens
    are recognised by id: a control string the model spelled with ordinary tokens is text
    (:mod:`._ids`).
    """
    if tokenizer is not None:
        from ..ids import encoder
        from ._ids import parse_ids

        enc = encoder(tokenizer)
        if isinstance(response, (list, tuple)) and response and all(
                isinstance(r, (list, tuple)) for r in response):
            prefixes = _prefixes(prefix, len(response))
            return [parse_ids(parse_response, name, r, enc, p, tools, strict)
                    for r, p in zip(response, prefixes)]
        if not isinstance(prefix, str):
            raise TypeError(f"prefix must be a str, not {type(prefix).__name__}")
        return parse_ids(parse_response, name, response, enc, prefix, tools, strict)
    if isinstance(response, str):
        if not isinstance(prefix, str):
            raise TypeError(f"prefix must be a str, not {type(prefix).__name__}")
        parser = ResponseParser(name, prefix=prefix, tools=tools, strict=strict)
        # The whole text at once with the end of input: the message of feed() then close()
        # (any split gives the same message), without a second pass over held-back text.
        parser.final_events = parser._run(response, True)
        return parser._message()
    if not isinstance(response, (list, tuple)) or not all(isinstance(r, str) for r in response):
        raise TypeError("response must be a str or a list of str")
    parsed = []
    for index, (one, one_prefix) in enumerate(zip(response, _prefixes(prefix, len(response)))):
        try:
            parsed.append(parse_response(name, one, prefix=one_prefix, tools=tools, strict=strict))
        except ChatFormatError as exc:  # named by its place in the batch
            from .._core import in_batch

            in_batch(exc, index, "response")
            raise
    return parsed


def _prefixes(prefix: Any, count: int) -> list[Any]:
    if isinstance(prefix, str):
        return [prefix] * count
    if isinstance(prefix, (list, tuple)) and len(prefix) == count:
        return list(prefix)
    raise TypeError("prefix must be a str, or a list of str with one per response")


def _check_grammars() -> None:
    """Every format's table is one the scanner streams exactly (used by the tests)."""
    from .._registry import table

    for grammar_name in {fmt.grammar for fmt in table().values()} - {""}:
        g = load_grammar(grammar_name)
        check_states(g.STATES)
        check_states(g.RECOVER)
        assert g.START in g.STATES and g.START in g.RECOVER
        assert all(type(s) is str and s for s in g.RESERVED), grammar_name
        assert g.PREFIXES[0] == "" and all(type(p) is str for p in g.PREFIXES), grammar_name
        assert type(g.STRING_ARGUMENTS) is bool and type(g.SINGLE_CALL) is bool, grammar_name
        assert type(g.RECOVER_OPENERS) is tuple, grammar_name
