"""Spans: which characters of a prompt came from which input value, and which the model generates.

A port emits its prompt as a list of pieces (``out``) and joins them once.  Asked for spans
(``chatformats.render_spans``), the render core hands the port a :class:`Recorder`; the port then
emits into ``spans.pieces`` and, before each piece that comes from an input value, records that
value's path (``messages[3].content``) for the piece about to be emitted::

    out = spans.pieces if spans is not None else []
    ...
    if spans is not None:
        spans.field(index, ".content", 1)  # the 2nd piece of the next extend is messages[index].content
    extend(("<|im_start|>user\\n", content, "<|im_end|>\\n"))

and where the template's ``{% generation %}`` block would open and close (what the model
generates in an assistant turn), ``spans.open()`` / ``spans.close()`` (also with an ``ahead``
count into the next ``extend``, and ``within``: characters into that piece, so a boundary inside
a literal needs no extra piece).  A sourced piece is all one input value's text (a port splits a
piece that would mix an input with template text).  Without a recorder the port's only extra
work is one ``if spans is not None:`` per sourced piece (``if spans:`` costs twice as much:
``None`` is not a bool).  A message's own field (``spans.field``, and
``spans.message`` for a turn's role and content) is recorded as a key (``index`` for its
content) and its path written when a span is first read: formatting every path up front would
cost a fifth of the render, and a training pipeline reads only the generated ranges.

:func:`build` wraps the pieces and records in a :class:`Rendering`, which works out its
character :class:`Span` s and generated ranges when they are first read.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from itertools import accumulate, compress, islice
from operator import eq, itemgetter

from typing import Any, Iterable, Tuple, Union

__all__ = ["Span", "Recorder", "Rendering", "build"]

#: A recorded source: a path, or a message field's key (:meth:`Recorder.field`): ``index`` for
#: ``messages[index].content``, ``~index`` for its ``.role``, ``(index, tail)`` for another field.
Path = Union[str, int, Tuple[int, str]]


def _path(key: Path | None) -> str | None:
    """The path a recorded source stands for."""
    kind = type(key)
    if kind is int:
        return f"messages[{key}].content" if key >= 0 else f"messages[{~key}].role"  # type: ignore[operator]
    if kind is tuple:
        return f"messages[{key[0]}]{key[1]}"  # type: ignore[index]
    return key  # type: ignore[return-value]


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
      after strip/split, or its JSON): a string, or the key of ``f"messages[{index}]{tail}"``
      (:meth:`field`), written when read;
    - ``turns``: each generated range, in order, as four integers: first piece, characters into
      it, end piece, characters into it (one flat list: a list per turn is a container the
      garbage collector tracks, and its collections cost a fifth of a long render).
    """

    __slots__ = ("pieces", "sources", "turns", "starts")

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.starts: list[int] | None = None  # each piece's offset in the text, once read
        self.sources: dict[int, Path] = {}
        self.turns: list[int] = []  # see the class docstring

    def source(self, path: Path, ahead: int = 0) -> None:
        """The piece ``ahead`` pieces after the end of ``pieces`` (0: the next one appended) is
        (a slice of, or the JSON of) the value at ``path``."""
        self.sources[len(self.pieces) + ahead] = path

    def field(self, index: int, tail: str, ahead: int = 0) -> None:
        """:meth:`source` for ``f"messages[{index}]{tail}"`` (``tail``: ``".content"``), the path
        written only when a span is read: recorded as a key, ``index`` for the content, ``~index``
        for the role (an int: nothing to allocate for a small one, and a tenth of a message's
        recording less than a tuple), ``(index, tail)`` for any other field.  A message's field
        is always recorded this way, never as the string (runs of one source are merged by
        comparing what was recorded)."""
        self.sources[len(self.pieces) + ahead] = (
            index if tail == ".content" else ~index if tail == ".role" else (index, tail))

    def message(self, index: int, role_ahead: int, content_ahead: int, opens: int = -1) -> None:
        """A message's role and content (:meth:`field`), around the header's literal, in one
        call: the render of a message costs little more than a call; and :meth:`open` at
        ``opens`` when it is not negative."""
        sources = self.sources
        count = len(self.pieces)
        sources[count + role_ahead] = ~index
        sources[count + content_ahead] = index
        if opens >= 0:
            opens += count
            self.turns += (opens, 0, opens, 0)

    def turn(self, ahead: int, end: int) -> None:
        """:meth:`open` at ``ahead`` and :meth:`close` at ``end``, in one call."""
        count = len(self.pieces)
        self.turns += (count + ahead, 0, count + end, 0)

    def open(self, ahead: int = 0, within: int = 0) -> None:
        """``{% generation %}``: generated text starts ``within`` characters into that piece (a
        boundary inside a literal the plain render emits as one piece)."""
        position = len(self.pieces) + ahead
        self.turns += (position, within, position, within)

    def close(self, ahead: int = 0, within: int = 0) -> None:
        """``{% endgeneration %}``: the open range ends ``within`` characters into that piece."""
        turns = self.turns
        turns[-2] = len(self.pieces) + ahead
        turns[-1] = within


class Spans(Sequence[Span]):
    """The spans of a :class:`Rendering`: a read-only sequence of :class:`Span`, tiling its text.

    Kept as two columns, the boundaries (span ``i`` runs from ``bounds[i]`` to ``bounds[i + 1]``)
    and the sources, and made into :class:`Span` records as they are read: a long conversation
    has a few spans per message, and a record each, made up front, would cost more than the
    render itself.  For the same reason a message field's path (recorded as a key,
    :meth:`Recorder.field`) is written when the first span is read.  Compares equal to any
    sequence of the same spans."""

    __slots__ = ("_bounds", "_sources", "_keyed")

    _bounds: list[int]  # one more than there are spans
    _sources: list[Any]  # str | None, and while _keyed also a message field's key
    _keyed: bool

    def __init__(self, bounds: list[int], sources: list[str | None], keyed: bool = False) -> None:
        self._bounds = bounds
        self._sources = sources
        self._keyed = keyed

    @classmethod
    def of(cls, spans: Any) -> Spans:
        """The spans ``spans`` (``(start, end, source)`` each), which must tile their range."""
        spans = list(spans)
        bounds = [span[0] for span in spans]
        bounds.append(spans[-1][1] if spans else 0)
        if any(span[1] != bound for span, bound in zip(spans, bounds[1:])):
            raise ValueError("spans must be contiguous: each starts where the one before ends")
        return cls(bounds, [span[2] for span in spans])

    def _paths(self) -> list[str | None]:
        """The sources column, every path written."""
        if self._keyed:
            self._sources = list(map(_path, self._sources))
            self._keyed = False
        return self._sources

    def __reduce__(self) -> tuple[Any, ...]:
        return (Spans, (self._bounds, self._paths()))

    def __len__(self) -> int:
        return len(self._sources)

    def __getitem__(self, index: Any) -> Any:
        bounds, paths = self._bounds, self._paths()
        if type(index) is slice:
            return tuple([_new_span((bounds[i], bounds[i + 1], paths[i]))
                          for i in range(len(paths))[index]])
        i = range(len(paths))[index]  # negative indices, and the IndexError
        return _new_span((bounds[i], bounds[i + 1], paths[i]))

    def __iter__(self) -> Any:
        bounds = self._bounds
        return map(_new_span, zip(bounds, islice(bounds, 1, None), self._paths()))

    def __reversed__(self) -> Any:
        return reversed(tuple(self))

    def _key(self) -> tuple[list[int], list[str | None]]:
        paths = self._paths()
        return (self._bounds if paths else [], paths)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Spans):
            return self._key() == other._key()
        try:
            return tuple(self) == tuple(other)  # type: ignore[arg-type]
        except TypeError:
            return NotImplemented

    def __hash__(self) -> int:
        bounds, paths = self._key()
        return hash((tuple(bounds), tuple(paths)))

    def __repr__(self) -> str:
        return f"Spans({list(self)!r})"


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
    spans).  Read-only as its three properties are: assigning one is an ``AttributeError``, and
    there is nothing else to set (``__slots__``; the slots are written as plain attributes, not
    through a refusing ``__setattr__``: a short chat's spans cost a tenth less that way).
    """

    __slots__ = ("_text", "_spans", "_assistant_spans", "_recorder")

    _text: str
    _spans: Spans | None
    _assistant_spans: tuple[tuple[int, int], ...] | None
    _recorder: Recorder | None

    def __init__(self, text: str, spans: Any,
                 assistant_spans: tuple[tuple[int, int], ...]) -> None:
        self._text = text
        self._spans = spans if type(spans) is Spans else Spans.of(spans)
        self._assistant_spans = tuple(assistant_spans)
        self._recorder = None

    @classmethod
    def recorded(cls, text: str, recorder: Recorder) -> Rendering:
        """The rendering of ``text``, which a port joined from ``recorder.pieces``."""
        self = object.__new__(cls)
        self._text = text
        self._spans = None
        self._assistant_spans = None
        self._recorder = recorder
        return self

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
            self._spans = spans
        return spans

    @property
    def assistant_spans(self) -> tuple[tuple[int, int], ...]:
        turns = self._assistant_spans
        if turns is None:
            turns = _turns_of(self._recorder)  # type: ignore[arg-type]
            self._assistant_spans = turns
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


#: The :class:`Rendering` of ``text``, which a port joined from ``recorder.pieces``
#: (:meth:`Rendering.recorded`, by the name the render core and the pipeline call it).
build = Rendering.recorded


def _starts_of(recorder: Recorder) -> list[int]:
    """Each piece's offset in the text, and the text's length (worked out once, for the spans
    and the generated ranges both)."""
    starts = recorder.starts
    if starts is None:
        starts = recorder.starts = list(accumulate(map(len, recorder.pieces), initial=0))
    return starts


def _turns_of(recorder: Recorder) -> tuple[tuple[int, int], ...]:
    """The generated ranges, in characters."""
    turns = recorder.turns
    if not turns:
        return ()
    starts = _starts_of(recorder)
    each = iter(turns)  # four at a time
    return tuple([(starts[first] + into_first, starts[end] + into_end)
                  for first, into_first, end, into_end in zip(each, each, each, each)])


def _spans_of(text: str, recorder: Recorder) -> Spans:
    """A span per non-empty sourced piece and one per run of template text between them
    (consecutive pieces of one source merged into one span).

    Every step but one is one of Python's C-level loops (``map``, ``compress``, slice
    assignment, ``itemgetter``), and as few of them as the common case allows: a long
    conversation has a few spans per message, and a Python loop per span, or a dozen passes over
    them, would cost more than the render itself.  The one Python loop is over the empty spans."""
    pieces = recorder.pieces
    starts = _starts_of(recorder)
    size = len(text)
    if starts[-1] != size:  # a port that returned something other than its pieces
        from .errors import InternalError

        raise InternalError("spans: the port's pieces do not join to its text")
    sources = recorder.sources
    order = sorted(sources)
    if order and order[-1] >= len(pieces):  # recorded for a piece never emitted
        order = [index for index in order if index < len(pieces)]
    # The boundaries: 0, then each sourced piece's start and end, then the text's end.  Span i
    # runs from bounds[i] to bounds[i + 1]; they alternate: template text before the first
    # sourced piece, the piece, template text up to the next one, ..., template text after the
    # last.
    get = itemgetter(*order) if len(order) > 1 else partial(_get_each, order)
    bounds = [size] * (2 * len(order) + 2)
    bounds[0] = 0
    bounds[1:-1:2] = get(starts)
    bounds[2:-1:2] = get(starts[1:])  # each piece's end
    paths: list[Any] = [None] * (2 * len(order) + 1)
    paths[1::2] = get(sources)
    # Empty spans are dropped (an empty piece, no template text before the first piece, after
    # the last or between two): span i is empty where bounds[i] == bounds[i + 1].  Without one,
    # the spans alternate template text and sourced pieces, so no two neighbours share a source;
    # with one, the spans on either side of a run of empty ones may share a source (template
    # text on both sides of an empty piece, two pieces of one value in a row) and become one.
    # Empty spans are few (an empty content), so they are handled one by one; those at the start
    # (a prompt that starts with a sourced ``bos_token``, perhaps empty) leave the rest
    # alternating, and go first.
    while len(paths) > 1 and bounds[1] == 0:
        del bounds[0], paths[0]
    if len(set(bounds)) < len(bounds):  # a repeated boundary: an empty span
        empty = list(compress(range(len(paths)), map(eq, bounds, islice(bounds, 1, None))))
        keep_span = [True] * len(paths)
        keep_bound = [True] * len(bounds)
        first = 0  # of the current run of empty spans
        for position, i in enumerate(empty):
            keep_span[i] = keep_bound[i + 1] = False  # the span and its end, equal to its start
            if position == 0 or empty[position - 1] != i - 1:
                first = i
            if position + 1 < len(empty) and empty[position + 1] == i + 1:
                continue  # the run goes on
            before, after = first - 1, i + 1
            if before >= 0 and after < len(paths) and paths[before] == paths[after]:
                keep_span[after] = keep_bound[before + 1] = False  # one source: one span
        paths = list(compress(paths, keep_span))
        bounds = list(compress(bounds, keep_bound))
    return Spans(bounds, paths, True)


def _get_each(keys: list[int], items: Any) -> list[Any]:
    """``itemgetter(*keys)(items)`` as a list, for fewer than two keys."""
    return [items[key] for key in keys]


#: ``Span(*triple)`` without NamedTuple's Python-level ``__new__``.
_new_span = partial(tuple.__new__, Span)
