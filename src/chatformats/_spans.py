"""Spans: which characters of a prompt came from which input value, and which the model generates.

A port emits its prompt as a list of pieces (``out``) and joins them once.  Asked for spans
(``chatformats.render_spans``), the render core hands the port a :class:`Recorder`; the port then
emits into ``spans.pieces`` and, before each piece that comes from an input value, records that
value's path (``messages[3].content``) for the piece about to be emitted::

    out = spans.pieces if spans else []
    ...
    if spans:
        spans.source(f"messages[{index}].content", 1)  # the 2nd piece of the next extend
    extend(("<|im_start|>user\\n", content, "<|im_end|>\\n"))

and where the template's ``{% generation %}`` block would open and close (what the model
generates in an assistant turn), ``spans.open()`` / ``spans.close()`` (also with an ``ahead``
count into the next ``extend``).  A piece is either all template text or all one input value's
(a port splits a piece that would mix them).  Without a recorder the port's only extra work is
one ``if spans:`` per sourced piece.

:func:`build` turns the pieces and records into character :class:`Span` s that tile the text.
"""

from __future__ import annotations

from functools import partial
from itertools import accumulate

from typing import Any, NamedTuple

__all__ = ["Span", "Recorder", "Rendering", "build"]


class Span(NamedTuple):
    """``text[start:end]`` came from ``source``: the path of an input value
    (``messages[2].tool_calls[0].function.arguments``, ``tools[1]``), or ``None`` for text the
    template writes itself (literals, separators, the date)."""

    start: int
    end: int
    source: str | None


class Recorder:
    """What a port records when spans are asked for (see the module docstring).

    - ``pieces``: the port's output list;
    - ``sources``: piece index -> the path of the input value that piece is (a copy, a slice
      after strip/split, or its JSON);
    - ``turns``: ``[first piece, end piece)`` of each generated range, in order.
    """

    __slots__ = ("pieces", "sources", "turns")

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.sources: dict[int, str] = {}
        self.turns: list[list[int]] = []

    def source(self, path: str, ahead: int = 0) -> None:
        """The piece ``ahead`` pieces after the end of ``pieces`` (0: the next one appended) is
        (a slice of, or the JSON of) the value at ``path``."""
        self.sources[len(self.pieces) + ahead] = path

    def open(self, ahead: int = 0) -> None:
        """``{% generation %}``: generated text starts at that piece."""
        position = len(self.pieces) + ahead
        self.turns.append([position, position])

    def close(self, ahead: int = 0) -> None:
        """``{% endgeneration %}``: the open range ends before that piece."""
        self.turns[-1][1] = len(self.pieces) + ahead


class Rendering:
    """A rendered prompt and its structure, read-only.

    - ``text``: the prompt, exactly what ``render`` / ``apply_chat_template`` return;
    - ``spans``: :class:`Span` s, contiguous and non-overlapping, tiling ``text``;
    - ``assistant_spans``: the ``(start, end)`` ranges of ``text`` the model generates, one per
      assistant turn that has one (``docs/spans.md`` says where each format's range starts and
      ends).
    """

    __slots__ = ("_text", "_spans", "_assistant_spans")

    def __init__(self, text: str, spans: tuple[Span, ...],
                 assistant_spans: tuple[tuple[int, int], ...]) -> None:
        _set_text(self, text)
        _set_spans(self, spans)
        _set_assistant_spans(self, assistant_spans)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Rendering is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a Rendering is read-only")

    @property
    def text(self) -> str:
        return self._text  # type: ignore[no-any-return]

    @property
    def spans(self) -> tuple[Span, ...]:
        return self._spans  # type: ignore[no-any-return]

    @property
    def assistant_spans(self) -> tuple[tuple[int, int], ...]:
        return self._assistant_spans  # type: ignore[no-any-return]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Rendering):
            return NotImplemented
        return (self._text, self._spans, self._assistant_spans) == (
            other._text, other._spans, other._assistant_spans)

    def __hash__(self) -> int:
        return hash((self._text, self._spans, self._assistant_spans))

    def __repr__(self) -> str:
        return (f"Rendering(text={self._text[:40]!r}{'...' if len(self._text) > 40 else ''}, "
                f"{len(self._spans)} spans, assistant_spans={self._assistant_spans!r})")

    def cut(self, end: int) -> Rendering:
        """This rendering up to character ``end`` (what ``continue_final_message`` keeps)."""
        spans = []
        for span in self._spans:
            if span.start >= end:
                break
            spans.append(span if span.end <= end else Span(span.start, end, span.source))
        turns = tuple((s, min(e, end)) for s, e in self._assistant_spans if s < end)
        return Rendering(self._text[:end], tuple(spans), turns)


# The slots' own setters (``__setattr__`` refuses every assignment).
_set_text = Rendering.__dict__["_text"].__set__
_set_spans = Rendering.__dict__["_spans"].__set__
_set_assistant_spans = Rendering.__dict__["_assistant_spans"].__set__


def build(text: str, recorder: Recorder) -> Rendering:
    """The :class:`Rendering` of ``text``, which a port joined from ``recorder.pieces``: a span per
    sourced piece (consecutive pieces of one source merged) and one per run of template text
    between them; the generated ranges in characters.  The loop runs over the sourced pieces only
    (the template's pieces between them are one span each way)."""
    pieces = recorder.pieces
    starts = list(accumulate(map(len, pieces), initial=0))
    if starts[-1] != len(text):  # a port that returned something other than its pieces
        from .errors import InternalError

        raise InternalError("spans: the port's pieces do not join to its text")
    sources = recorder.sources
    triples: list[tuple[int, int, str | None]] = []
    append = triples.append
    position = 0  # where the spans so far end
    last = None  # the last sourced span's source
    for index in sorted(sources):
        start = starts[index]
        end = starts[index + 1]
        if start == end:
            continue
        source = sources[index]
        if start != position:
            append((position, start, None))
        elif source == last and triples:  # the same value again, right after: one span
            append((triples.pop()[0], end, source))
            position = end
            continue
        append((start, end, source))
        position = end
        last = source
    if position != len(text):
        append((position, len(text), None))
    spans = tuple(map(_new_span, triples))
    turns = tuple((starts[first], starts[end]) for first, end in recorder.turns)
    return Rendering(text, spans, turns)


#: ``Span(*triple)`` without NamedTuple's Python-level ``__new__``.
_new_span = partial(tuple.__new__, Span)
