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
count into the next ``extend``, and ``within``: characters into that piece, so a boundary inside
a literal needs no extra piece).  A sourced piece is all one input value's text (a port splits a
piece that would mix an input with template text).  Without a recorder the port's only extra
work is one ``if spans:`` per sourced piece.

:func:`build` wraps the pieces and records in a :class:`Rendering`, which works out its
character :class:`Span` s and generated ranges when they are first read.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from itertools import accumulate, compress
from operator import eq, lt, ne

from typing import Any, Iterable

__all__ = ["Span", "Recorder", "Rendering", "build"]


class Span(tuple):  # type: ignore[type-arg]
    """``text[start:end]`` came from ``source``: the path of an input value
    (``messages[2].tool_calls[0].function.arguments``, ``tools[1]``), or ``None`` for text the
    template writes itself (literals, separators, the date).  A ``(start, end, source)`` tuple
    (made without ``namedtuple``, which generates code at run time)."""

    __slots__ = ()

    def __new__(cls, start: int, end: int, source: str | None) -> Span:
        return tuple.__new__(cls, (start, end, source))

    def __getnewargs__(self) -> tuple[int, int, str | None]:
        return (self[0], self[1], self[2])

    @property
    def start(self) -> int:
        return self[0]  # type: ignore[no-any-return]

    @property
    def end(self) -> int:
        return self[1]  # type: ignore[no-any-return]

    @property
    def source(self) -> str | None:
        return self[2]  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"Span(start={self[0]!r}, end={self[1]!r}, source={self[2]!r})"


class Recorder:
    """What a port records when spans are asked for (see the module docstring).

    - ``pieces``: the port's output list;
    - ``sources``: piece index -> the path of the input value that piece is (a copy, a slice
      after strip/split, or its JSON);
    - ``turns``: each generated range, in order, as ``[first piece, characters into it, end
      piece, characters into it]``.
    """

    __slots__ = ("pieces", "sources", "turns")

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.sources: dict[int, str] = {}
        self.turns: list[list[int]] = []  # see the class docstring

    def source(self, path: str, ahead: int = 0) -> None:
        """The piece ``ahead`` pieces after the end of ``pieces`` (0: the next one appended) is
        (a slice of, or the JSON of) the value at ``path``."""
        self.sources[len(self.pieces) + ahead] = path

    def open(self, ahead: int = 0, within: int = 0) -> None:
        """``{% generation %}``: generated text starts ``within`` characters into that piece (a
        boundary inside a literal the plain render emits as one piece)."""
        position = len(self.pieces) + ahead
        self.turns.append([position, within, position, within])

    def close(self, ahead: int = 0, within: int = 0) -> None:
        """``{% endgeneration %}``: the open range ends ``within`` characters into that piece."""
        turn = self.turns[-1]
        turn[2] = len(self.pieces) + ahead
        turn[3] = within


class Spans(Sequence[Span]):
    """The spans of a :class:`Rendering`: a read-only sequence of :class:`Span`, tiling its text.

    Kept as three columns (starts, ends, sources) and made into :class:`Span` records as they are
    read: a long conversation has a few spans per message, and a record each, made up front,
    would cost more than the render itself.  Compares equal to any sequence of the same spans."""

    __slots__ = ("_starts", "_ends", "_sources")

    _starts: list[int]
    _ends: list[int]
    _sources: list[str | None]

    def __init__(self, starts: list[int], ends: list[int], sources: list[str | None]) -> None:
        _set_starts(self, starts)
        _set_ends(self, ends)
        _set_sources(self, sources)

    @classmethod
    def of(cls, spans: Any) -> Spans:
        spans = list(spans)
        return cls([s[0] for s in spans], [s[1] for s in spans], [s[2] for s in spans])

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("spans are read-only")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Spans, (self._starts, self._ends, self._sources))

    def __len__(self) -> int:
        return len(self._starts)

    def __getitem__(self, index: Any) -> Any:
        if type(index) is slice:
            return tuple(map(_new_span, zip(self._starts[index], self._ends[index], self._sources[index])))
        return _new_span((self._starts[index], self._ends[index], self._sources[index]))

    def __iter__(self) -> Any:
        return map(_new_span, zip(self._starts, self._ends, self._sources))

    def __reversed__(self) -> Any:
        return map(_new_span, zip(reversed(self._starts), reversed(self._ends), reversed(self._sources)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Spans):
            return (self._starts == other._starts and self._ends == other._ends
                    and self._sources == other._sources)
        try:
            return tuple(self) == tuple(other)  # type: ignore[arg-type]
        except TypeError:
            return NotImplemented

    def __hash__(self) -> int:
        return hash((tuple(self._starts), tuple(self._ends), tuple(self._sources)))

    def __repr__(self) -> str:
        return f"Spans({list(self)!r})"


_set_starts = Spans.__dict__["_starts"].__set__
_set_ends = Spans.__dict__["_ends"].__set__
_set_sources = Spans.__dict__["_sources"].__set__


class Rendering:
    """A rendered prompt and its structure, read-only.

    - ``text``: the prompt, exactly what ``render`` / ``apply_chat_template`` return;
    - ``spans``: :class:`Span` s, contiguous and non-overlapping, tiling ``text`` (a read-only
      sequence, :class:`Spans`);
    - ``assistant_spans``: the ``(start, end)`` ranges of ``text`` the model generates, one per
      assistant turn that has one (``docs/spans.md`` says where each format's range starts and
      ends).

    ``spans`` and ``assistant_spans`` are worked out from what the port recorded the first time
    they are read (a training pipeline that reads only ``assistant_spans`` does not pay for the
    spans).
    """

    __slots__ = ("_text", "_spans", "_assistant_spans", "_recorder")

    _text: str
    _spans: Spans | None
    _assistant_spans: tuple[tuple[int, int], ...] | None
    _recorder: Recorder | None

    def __init__(self, text: str, spans: Any,
                 assistant_spans: tuple[tuple[int, int], ...]) -> None:
        _set_text(self, text)
        _set_spans(self, spans if type(spans) is Spans else Spans.of(spans))
        _set_assistant_spans(self, tuple(assistant_spans))
        _set_recorder(self, None)

    @classmethod
    def recorded(cls, text: str, recorder: Recorder) -> Rendering:
        """The rendering of ``text``, which a port joined from ``recorder.pieces``."""
        self = object.__new__(cls)
        _set_text(self, text)
        _set_spans(self, None)
        _set_assistant_spans(self, None)
        _set_recorder(self, recorder)
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Rendering is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a Rendering is read-only")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Rendering, (self._text, self.spans, self.assistant_spans))

    @property
    def text(self) -> str:
        return self._text

    @property
    def spans(self) -> Spans:
        spans = self._spans
        if spans is None:
            spans = _spans_of(self._text, self._recorder)  # type: ignore[arg-type]
            _set_spans(self, spans)
        return spans

    @property
    def assistant_spans(self) -> tuple[tuple[int, int], ...]:
        turns = self._assistant_spans
        if turns is None:
            turns = _turns_of(self._recorder)  # type: ignore[arg-type]
            _set_assistant_spans(self, turns)
        return turns

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Rendering):
            return NotImplemented
        return (self.text, self.spans, self.assistant_spans) == (
            other.text, other.spans, other.assistant_spans)

    def __hash__(self) -> int:
        return hash((self.text, self.spans, self.assistant_spans))

    def __repr__(self) -> str:
        text = self._text
        return (f"Rendering(text={text[:40]!r}{'...' if len(text) > 40 else ''}, "
                f"{len(self.spans)} spans, assistant_spans={self.assistant_spans!r})")

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
        spans = self.assistant_spans
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
        turns = tuple((s, min(e, end)) for s, e in self.assistant_spans if s < end)
        return Rendering(self._text[:end], Spans.of(spans), turns)


# The slots' own setters (``__setattr__`` refuses every assignment).
_set_text = Rendering.__dict__["_text"].__set__
_set_spans = Rendering.__dict__["_spans"].__set__
_set_assistant_spans = Rendering.__dict__["_assistant_spans"].__set__
_set_recorder = Rendering.__dict__["_recorder"].__set__


def build(text: str, recorder: Recorder) -> Rendering:
    """The :class:`Rendering` of ``text``, which a port joined from ``recorder.pieces``."""
    return Rendering.recorded(text, recorder)


def _turns_of(recorder: Recorder) -> tuple[tuple[int, int], ...]:
    """The generated ranges, in characters."""
    turns = recorder.turns
    if not turns:
        return ()
    starts = list(accumulate(map(len, recorder.pieces), initial=0))
    return tuple((starts[first] + into_first, starts[end] + into_end)
                 for first, into_first, end, into_end in turns)


def _spans_of(text: str, recorder: Recorder) -> Spans:
    """A span per non-empty sourced piece and one per run of template text between them
    (consecutive pieces of one source merged into one span).

    Every step is one of Python's C-level loops (``map``, ``compress``, slice assignment): a
    long conversation has a few spans per message, and a Python loop per span would cost more
    than the render itself."""
    pieces = recorder.pieces
    starts = list(accumulate(map(len, pieces), initial=0))
    size = len(text)
    if starts[-1] != size:  # a port that returned something other than its pieces
        from .errors import InternalError

        raise InternalError("spans: the port's pieces do not join to its text")
    sources = recorder.sources
    order = sorted(sources)
    if order and order[-1] >= len(pieces):  # recorded for a piece never emitted
        order = [index for index in order if index < len(pieces)]
    begins = list(map(starts.__getitem__, order))
    ends = list(map(starts.__getitem__, map(_next, order)))
    # Spans alternate: template text before the first sourced piece, the piece, template text
    # up to the next one, ..., template text after the last.  Empty ones are dropped (an empty
    # piece, or no template text between two pieces); then runs of one source (two pieces of
    # one value in a row, template text on both sides of a dropped empty piece) become one span.
    count = 2 * len(order) + 1
    lows = [0] * count
    lows[1::2] = begins
    lows[2::2] = ends
    highs = [size] * count
    highs[0:-1:2] = begins
    highs[1::2] = ends
    paths: list[str | None] = [None] * count
    paths[1::2] = map(sources.__getitem__, order)
    keep = list(map(lt, lows, highs))
    lows = list(compress(lows, keep))
    highs = list(compress(highs, keep))
    paths = list(compress(paths, keep))
    if any(map(eq, paths, paths[1:])):
        firsts = [0]
        firsts += compress(range(1, len(paths)), map(ne, paths[1:], paths))
        lasts = list(map(_previous, firsts[1:]))
        lasts.append(len(paths) - 1)
        lows = list(map(lows.__getitem__, firsts))
        highs = list(map(highs.__getitem__, lasts))
        paths = list(map(paths.__getitem__, firsts))
    return Spans(lows, highs, paths)


_next = (1).__add__
_previous = (-1).__add__
#: ``Span(*triple)`` without NamedTuple's Python-level ``__new__``.
_new_span = partial(tuple.__new__, Span)
