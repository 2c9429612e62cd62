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

from itertools import accumulate

from typing import Any, Iterable, NamedTuple, Sequence

__all__ = ["Span", "Recorder", "Rendering", "build", "check_records"]


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

    _text: str
    _spans: tuple[Span, ...]
    _assistant_spans: tuple[tuple[int, int], ...]

    def __init__(self, text: str, spans: tuple[Span, ...],
                 assistant_spans: tuple[tuple[int, int], ...]) -> None:
        object.__setattr__(self, "_text", text)
        object.__setattr__(self, "_spans", spans)
        object.__setattr__(self, "_assistant_spans", assistant_spans)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Rendering is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a Rendering is read-only")

    @property
    def text(self) -> str:
        return self._text

    @property
    def spans(self) -> tuple[Span, ...]:
        return self._spans

    @property
    def assistant_spans(self) -> tuple[tuple[int, int], ...]:
        return self._assistant_spans

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

    def assistant_mask(self, offsets: Iterable[Sequence[int]]) -> list[int]:
        """A 0/1 per token: 1 for a token the model generates, from the tokenizer's character
        ``offsets`` of ``text`` (one ``(start, end)`` per token, as ``tokenizers.Encoding.offsets``
        or a fast tokenizer's ``return_offsets_mapping`` give them).

        The rule is transformers 5.24's ``assistant_masks`` (``apply_chat_template`` with
        ``return_assistant_tokens_mask=True``), applied to :attr:`assistant_spans`: one pass over
        the tokens in order, with a cursor on the ranges that only moves forward; a token is
        first skipped past every range that ends at or before its start, and marked 1 when a
        range remains and the token ends after that range's start ("every token overlapping a
        range", so a range cut by truncation keeps its remaining tokens).  Once no range is left
        every later token is 0.  Consequences of that rule, kept as they are: a special token a
        tokenizer adds with offsets ``(0, 0)`` is 0; tokens sharing one character (the bytes of
        one emoji) are marked alike; offsets out of order are read in the order given."""
        spans = self._assistant_spans
        count = len(spans)
        mask: list[int] = []
        mark = mask.append
        index = 0
        for pair in offsets:
            try:
                start, end = pair
                while index < count and start >= spans[index][1]:
                    index += 1
                mark(1 if index < count and end > spans[index][0] else 0)
            except (TypeError, ValueError):
                raise TypeError(
                    f"offsets must be (start, end) pairs of integers, one per token, not {pair!r}"
                ) from None
        return mask

    def cut(self, end: int) -> Rendering:
        """This rendering up to character ``end`` (what ``continue_final_message`` keeps)."""
        spans = []
        for span in self._spans:
            if span.start >= end:
                break
            spans.append(span if span.end <= end else Span(span.start, end, span.source))
        turns = tuple((s, min(e, end)) for s, e in self._assistant_spans if s < end)
        return Rendering(self._text[:end], tuple(spans), turns)


def build(text: str, recorder: Recorder) -> Rendering:
    """The :class:`Rendering` of ``text``, which a port joined from ``recorder.pieces``: a span per
    run of non-empty pieces with the same source; the generated ranges in characters."""
    pieces = recorder.pieces
    starts = list(accumulate(map(len, pieces), initial=0))
    if starts[-1] != len(text):  # a port that returned something other than its pieces
        from .errors import InternalError

        raise InternalError("spans: the port's pieces do not join to its text")
    sources = recorder.sources
    spans: list[Span] = []
    current: str | None = None
    run_start = 0
    for index in range(len(pieces)):
        start, end = starts[index], starts[index + 1]
        if start == end:
            continue
        source = sources.get(index)
        if source != current:
            if start > run_start:
                spans.append(Span(run_start, start, current))
            run_start, current = start, source
    if len(text) > run_start:
        spans.append(Span(run_start, len(text), current))
    turns = tuple((starts[first], starts[end]) for first, end in recorder.turns)
    return Rendering(text, tuple(spans), turns)


def check_records(name: str, port: Any) -> None:
    """Raise :class:`~chatformats.ChatFormatError` unless format ``name``'s ``port`` records
    spans (takes a ``spans`` parameter): a format whose port does not yet cannot give a
    :class:`Rendering`."""
    code = getattr(port, "__code__", None)
    if code is None or "spans" not in code.co_varnames[:code.co_argcount]:
        from .errors import ChatFormatError

        raise ChatFormatError(f"{name}: spans are not recorded for this format yet")
