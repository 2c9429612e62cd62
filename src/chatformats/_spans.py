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

from itertools import accumulate, chain, compress, repeat
from operator import eq, ne

from typing import TYPE_CHECKING, Any, Iterable, Optional, Sequence, Tuple

__all__ = ["Span", "Recorder", "Rendering", "build", "runs", "check_records"]


if TYPE_CHECKING:
    _SpanTuple = Tuple[int, int, Optional[str]]
else:
    _SpanTuple = tuple


class Span(_SpanTuple):
    """``text[start:end]`` came from ``source``: the path of an input value
    (``messages[2].tool_calls[0].function.arguments``, ``tools[1]``), or ``None`` for text the
    template writes itself (literals, separators, the date).

    A tuple ``(start, end, source)`` with those names, written out rather than made by
    ``typing.NamedTuple``, which generates its constructor with ``exec`` when the class is
    defined (restricted runtimes forbid code compiled at run time)."""

    __slots__ = ()

    def __new__(cls, start: int, end: int, source: str | None) -> Span:
        return tuple.__new__(cls, (start, end, source))

    def __getnewargs__(self) -> tuple[int, int, str | None]:
        return (self[0], self[1], self[2])

    @property
    def start(self) -> int:
        return self[0]

    @property
    def end(self) -> int:
        return self[1]

    @property
    def source(self) -> str | None:
        return self[2]

    def __repr__(self) -> str:
        return f"Span(start={self[0]!r}, end={self[1]!r}, source={self[2]!r})"


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

    A rendering that :func:`build` made computes ``spans`` on first use, from the pieces'
    offsets and sources it keeps (a trainer reads only the assistant ranges).
    """

    __slots__ = ("_text", "_spans", "_assistant_spans", "_recorded")

    _text: str
    _spans: tuple[Span, ...] | None
    _assistant_spans: tuple[tuple[int, int], ...]
    _recorded: tuple[list[int], dict[int, str]] | None

    def __init__(self, text: str, spans: tuple[Span, ...] | None,
                 assistant_spans: tuple[tuple[int, int], ...],
                 _recorded: tuple[list[int], dict[int, str]] | None = None) -> None:
        object.__setattr__(self, "_text", text)
        object.__setattr__(self, "_spans", spans)
        object.__setattr__(self, "_assistant_spans", assistant_spans)
        object.__setattr__(self, "_recorded", _recorded)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Rendering is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a Rendering is read-only")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Rendering, (self._text, self.spans, self._assistant_spans))

    @property
    def text(self) -> str:
        return self._text

    @property
    def spans(self) -> tuple[Span, ...]:
        spans = self._spans
        if spans is None:
            assert self._recorded is not None
            spans = runs(*self._recorded)
            object.__setattr__(self, "_spans", spans)
            object.__setattr__(self, "_recorded", None)
        return spans

    @property
    def assistant_spans(self) -> tuple[tuple[int, int], ...]:
        return self._assistant_spans

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Rendering):
            return NotImplemented
        return (self._text, self.spans, self._assistant_spans) == (
            other._text, other.spans, other._assistant_spans)

    def __hash__(self) -> int:
        return hash((self._text, self.spans, self._assistant_spans))

    def __repr__(self) -> str:
        return (f"Rendering(text={self._text[:40]!r}{'...' if len(self._text) > 40 else ''}, "
                f"{len(self.spans)} spans, assistant_spans={self._assistant_spans!r})")

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
        for span in self.spans:
            if span.start >= end:
                break
            spans.append(span if span.end <= end else Span(span.start, end, span.source))
        turns = tuple((s, min(e, end)) for s, e in self._assistant_spans if s < end)
        return Rendering(self._text[:end], tuple(spans), turns)


def build(text: str, recorder: Recorder) -> Rendering:
    """The :class:`Rendering` of ``text``, which a port joined from ``recorder.pieces``: the
    generated ranges in characters, and the pieces' offsets and sources, from which the
    rendering's ``spans`` are made on first use (:func:`runs`).

    Only the offsets (one C-level pass) and the ranges are computed here: making the spans
    costs more than the render itself on long chats (``chat_100``), and ``render_spans`` must
    cost at most 2.5 times ``render``."""
    starts = list(accumulate(map(len, recorder.pieces), initial=0))
    if starts[-1] != len(text):  # a port that returned something other than its pieces
        from .errors import InternalError

        raise InternalError("spans: the port's pieces do not join to its text")
    turns = tuple((starts[first], starts[end]) for first, end in recorder.turns)
    return Rendering(text, None, turns, (starts, recorder.sources))


def runs(starts: list[int], sources: dict[int, str]) -> tuple[Span, ...]:
    """A span per run of non-empty pieces with the same source, from each piece's offset
    (``starts``, the text's length last) and the sources recorded by piece index.

    In the common case, where no two non-empty sourced pieces touch (template text separates
    every two input values, as in every benchmark workload), the spans are the sourced pieces'
    bounds in order with the template text between them as spans of no source, made without a
    Python-level loop over pieces or spans; otherwise piece by piece."""
    count = len(starts) - 1
    index = sorted(sources)
    if index and index[-1] >= count:  # recorded for a piece never emitted
        index = [i for i in index if i < count]
    begin = list(map(starts.__getitem__, index))
    finish = list(map(starts.__getitem__, map((1).__add__, index)))
    paths = list(map(sources.__getitem__, index))
    if not all(map(ne, begin, finish)):  # empty sourced pieces give no span
        keep = list(map(ne, begin, finish))
        begin, finish, paths = (list(compress(begin, keep)), list(compress(finish, keep)),
                                list(compress(paths, keep)))
    if any(map(eq, begin[1:], finish)):  # sourced pieces that touch: piece by piece
        return _runs_by_piece(starts, sources)
    # 0, b0, f0, b1, f1, ..., len(text): the spans (0, b0, None), (b0, f0, p0), (f0, b1, None), ...
    bounds = [0, *chain.from_iterable(zip(begin, finish)), starts[-1]]
    owners = [None, *chain.from_iterable(zip(paths, repeat(None)))]
    spans = list(map(tuple.__new__, repeat(Span), zip(bounds, bounds[1:], owners)))
    if spans[-1][0] == spans[-1][1]:  # the text ends with a sourced piece (or is empty)
        del spans[-1]
    if spans and spans[0][1] == 0:  # the text starts with a sourced piece
        del spans[0]
    return tuple(spans)


def _runs_by_piece(starts: list[int], sources: dict[int, str]) -> tuple[Span, ...]:
    """:func:`runs`, one piece at a time."""
    spans: list[Span] = []
    current: str | None = None
    run_start = 0
    for index in range(len(starts) - 1):
        start, end = starts[index], starts[index + 1]
        if start == end:
            continue
        source = sources.get(index)
        if source != current:
            if start > run_start:
                spans.append(Span(run_start, start, current))
            run_start, current = start, source
    if starts[-1] > run_start:
        spans.append(Span(run_start, starts[-1], current))
    return tuple(spans)


def check_records(name: str, port: Any) -> None:
    """Raise :class:`~chatformats.ChatFormatError` unless format ``name``'s ``port`` records
    spans (takes a ``spans`` parameter): a format whose port does not yet cannot give a
    :class:`Rendering`."""
    code = getattr(port, "__code__", None)
    if code is None or "spans" not in code.co_varnames[:code.co_argcount]:
        from .errors import ChatFormatError

        raise ChatFormatError(f"{name}: spans are not recorded for this format yet")
