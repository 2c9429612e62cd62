"""Spans: which characters of a prompt came from which input value, and which the model generates.

A port emits its prompt as a list of pieces (``out``), the template's literals and the values
it renders, and joins them once.  Asked for spans (``chatformats.render_spans``), the render
core hands the port a :class:`Recorder`; the port then emits into ``spans.pieces`` and, just
before emitting, says what it emits: the template's line first, its provenance second::

    out = spans.pieces if spans is not None else []
    ...
    if spans is not None:
        spans.message(index)  # the line's values: messages[index].role, then its content
    extend(("<|im_start|>", role, "\n", content, "<|im_end|>\n"))  # L31-32

- the next piece: :meth:`Recorder.source` (a path: ``tools[0]``) and :meth:`Recorder.field`
  (a message's field: ``spans.field(index, ".tool_call_id")``);
- the next *line*, an ``extend`` of the template's literals and the values between them
  (a literal first, then a value, a literal, ...: the template's ``'a' + x + 'b' + y``):
  :meth:`Recorder.message` (a message's role and content, and a reasoning field between them),
  :meth:`Recorder.fields` (fields of one message) and :meth:`Recorder.line` (any sources), each
  naming the line's values in order (:meth:`Recorder.values`: for a line that starts with a
  value);
- what the model generates (the template's ``{% generation %}`` block):
  :meth:`Recorder.open` and :meth:`Recorder.close`, each at the next piece or after a literal
  the next pieces begin with (``spans.close(after="<|im_end|>")``: after that token, not its
  newline);
- a header the plain render emits as one literal (``'<|im_start|>user\\n'``, the branch having
  tested the role): :meth:`Recorder.role` emits it in pieces, the role sourced.

A sourced value is all one input's text, or a :class:`Parts` source: a value a template joined
from several inputs (a content given as a list of parts), sliced (``|trim``) or split
(``</think>``) after the join, which is cut into one span per input when the spans are read.
Without a recorder a port's only extra work is one ``if spans is not None:`` per recorded line
(``docs/spans.md`` says what it costs).

:func:`build` wraps the pieces and records in a :class:`Rendering`, which works out its
character :class:`Span` s and generated ranges when they are first read.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from itertools import accumulate, compress, islice
from operator import eq, itemgetter

from typing import Any, Iterable, Tuple, Union

__all__ = ["Span", "Recorder", "Rendering", "Parts", "Cuts", "build", "content_source", "sliced", "think_sources", "trimmed_content", "trimmed_at",
           "think_split_at"]

#: A recorded source: a path, or a message field's key (:meth:`Recorder.field`): ``index`` for
#: ``messages[index].content``, ``~index`` for its ``.role``, ``(index, tail)`` for another field;
#: or a :class:`Cuts` (a piece drawn from several sources).
Path = Union[str, int, Tuple[int, str]]


def _path(key: Path | None) -> str | None:
    """The path a recorded source stands for."""
    kind = type(key)
    if kind is int:
        return f"messages[{key}].content" if key >= 0 else f"messages[{~key}].role"  # type: ignore[operator]
    if kind is tuple:
        return f"messages[{key[0]}]{key[1]}"  # type: ignore[index]
    return key  # type: ignore[return-value]


def _key(index: int, tail: str) -> Path:
    """The key :meth:`Recorder.field` records for ``f"messages[{index}]{tail}"``."""
    return index if tail == ".content" else ~index if tail == ".role" else (index, tail)


class Cuts(tuple):  # type: ignore[type-arg]
    """The source of a piece drawn from several: ``(length, source)`` pairs from the piece's
    start (``source`` ``None`` for the template's text; the piece's rest, if any, is the
    template's too).  The piece is cut in one span per source when the spans are read."""

    __slots__ = ()


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
    - ``sources``: piece index -> the source of that piece (a copy of an input value, a slice
      after strip/split, or its JSON): a path, or the key of ``f"messages[{index}]{tail}"``
      (:meth:`field`), written when read, or a :class:`Cuts`;
    - ``turns``: each generated range, in order, as four integers: the piece it opens at, the
      characters from that piece's start to where it opens (the length of :meth:`open`'s
      ``after``), the piece it closes at, the characters from that one's start (one flat list,
      no container per turn: ``docs/spans.md``, "Cost");
    - ``cut``: whether a piece's source is a :class:`Cuts`.

    Where a method names "the next line", the port's next ``extend`` is a template line: the
    template's literals and the values between them, a literal first (``'<|im_start|>' + role +
    '\\n' + content``): the sources are the line's values, in order.
    """

    __slots__ = ("pieces", "sources", "turns", "starts", "cut")

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.starts: list[int] | None = None  # each piece's offset in the text, once read
        self.sources: dict[int, Any] = {}
        self.turns: list[int] = []  # see the class docstring
        self.cut = False

    # -- the next piece

    def source(self, path: Path) -> None:
        """The next piece is (a slice of, or the JSON of) the value at ``path``."""
        self.sources[len(self.pieces)] = path

    def field(self, index: int, tail: str) -> None:
        """The next piece is ``messages[index]`` + ``tail`` (``".tool_call_id"``).  Recorded as a
        key, the path written only when a span is read: ``index`` for the content, ``~index``
        for the role (an int: nothing to allocate for a small one), ``(index, tail)`` for any
        other field.  A message's field is always recorded this way, never as the string (runs
        of one source are merged by comparing what was recorded)."""
        self.sources[len(self.pieces)] = (
            index if tail == ".content" else ~index if tail == ".role" else (index, tail))

    def role(self, index: int, before: str, role: str, after: str, value: Any = None,
             second: Any = None, opens: str | None = None) -> str:
        """A header the plain render emits as one literal, ``before + role + after``
        (``'<|im_start|>' + message.role + '\\n'``), with its role a piece of its own: emits
        ``before`` and ``role`` (``messages[index].role``) and returns ``after``, the header's
        rest, for the line to begin with; ``value`` and ``second``: the sources of that line's
        values (:meth:`line`).  ``opens``: :meth:`open` after that text, which the header
        begins with."""
        pieces = self.pieces
        count = len(pieces)
        if opens is not None:
            opens_at = len(opens)
            self.turns += (count, opens_at, count, opens_at)
        sources = self.sources
        sources[count + 1] = ~index
        pieces += (before, role)
        if value is not None:
            sources[count + 3] = value
            if type(value) is Cuts:
                self.cut = True
        if second is not None:
            sources[count + 5] = second
            if type(second) is Cuts:
                self.cut = True
        return after

    # -- the next line

    def message(self, index: int, reasoning: str | None = None, opens: str | None = None,
                generated: str | None = None) -> None:
        """The next line's values are ``messages[index]``'s role, its ``reasoning`` field
        (``".reasoning_content"``; ``".content"`` for reasoning split out of the content) when
        given, and its content.  ``opens``: :meth:`open` after that text, which the line begins
        with; ``generated``: the same, and the range closes at the line's end, the literal
        after the content (the whole turn in one line)."""
        sources = self.sources
        count = len(self.pieces)
        sources[count + 1] = ~index
        if reasoning is None:
            sources[count + 3] = index
            end = count + 5
        else:
            sources[count + 3] = index if reasoning == ".content" else (index, reasoning)
            sources[count + 5] = index
            end = count + 7
        if opens is not None:
            opens_at = len(opens)
            self.turns += (count, opens_at, count, opens_at)
        elif generated is not None:
            self.turns += (count, len(generated), end, 0)

    def fields(self, index: int, tail: str, second: str | None = None) -> None:
        """The next line's value is the field ``tail`` of ``messages[index]`` (:meth:`field`),
        and its next value the field ``second`` when given."""
        sources = self.sources
        position = len(self.pieces) + 1
        sources[position] = index if tail == ".content" else ~index if tail == ".role" else (index, tail)
        if second is not None:
            sources[position + 2] = (
                index if second == ".content" else ~index if second == ".role" else (index, second))

    def line(self, first: Any, second: Any = None, third: Any = None,
             fourth: Any = None) -> None:
        """The next line's values come from these sources, in order: a path, a field's key, a
        :class:`Cuts` (:meth:`Parts.source`), or ``None`` for a value that is not an input's."""
        sources = self.sources
        position = len(self.pieces) + 1
        if first is not None:
            sources[position] = first
            if type(first) is Cuts:
                self.cut = True
        if second is not None:
            sources[position + 2] = second
            if type(second) is Cuts:
                self.cut = True
        if third is not None:
            sources[position + 4] = third
            if type(third) is Cuts:
                self.cut = True
        if fourth is not None:
            sources[position + 6] = fourth
            if type(fourth) is Cuts:
                self.cut = True

    def values(self, first: Any, second: Any = None, third: Any = None,
               fourth: Any = None) -> None:
        """:meth:`line` for a line that starts with a value (``out[:-1] + ', "id": "' + id``)."""
        sources = self.sources
        position = len(self.pieces)
        sources[position] = first
        if second is not None:
            sources[position + 2] = second
        if third is not None:
            sources[position + 4] = third
        if fourth is not None:
            sources[position + 6] = fourth

    # -- what the model generates

    def open(self, after: str = "") -> None:
        """``{% generation %}``: the generated range opens at the next piece, or after ``after``,
        text the next pieces begin with (a boundary inside a literal the plain render emits
        as one piece)."""
        position = len(self.pieces)
        within = len(after)
        self.turns += (position, within, position, within)

    def close(self, after: str = "") -> None:
        """``{% endgeneration %}``: the open range closes at the next piece, or after ``after``,
        text the next pieces begin with (``"<|im_end|>"``: after that token, not the newline
        that follows it in the same literal)."""
        turns = self.turns
        turns[-2] = len(self.pieces)
        turns[-1] = len(after)


class Parts:
    """A value a template joined from parts with ``separator`` (a content list's texts and pads,
    ``parts|join('\\n')``): where each of its characters came from, to source a slice of it
    (after ``|trim``, or either half of a ``</think>`` split) by :meth:`source`.

    ``parts``: ``(text, path)`` each, ``path`` ``None`` for the template's own text (a pad);
    ``runs``: ``(start, end, path)`` of the joined text, the separators the template's."""

    __slots__ = ("runs",)

    def __init__(self, parts: Iterable[tuple[str, str | None]], separator: str = "\n") -> None:
        runs: list[tuple[int, int, str | None]] = []
        position = 0
        for number, (piece, path) in enumerate(parts):
            if number:
                runs.append((position, position + len(separator), None))
                position += len(separator)
            runs.append((position, position + len(piece), path))
            position += len(piece)
        self.runs = runs

    def source(self, at: int, value: str) -> Any:
        """The source of ``value``, the joined text's slice from ``at``: one part's path, a
        :class:`Cuts` when it spans several, ``None`` when it is the template's text only."""
        end = at + len(value)
        cuts: list[tuple[int, str | None]] = []  # (length, path) of each source's share, in order
        for start, stop, path in self.runs:
            start, stop = max(start, at), min(stop, end)
            if start < stop:
                if cuts and cuts[-1][1] == path:
                    cuts[-1] = (cuts[-1][0] + stop - start, path)
                else:
                    cuts.append((stop - start, path))
        if len(cuts) > 1:
            return Cuts(cuts)
        return cuts[0][1] if cuts else None


def trimmed_content(index: int, content: Any, parts: Any, rendered: str, value: str) -> Any:
    """The source of ``value``, ``rendered|trim`` where ``rendered`` is what a template rendered
    from ``messages[index].content`` (``content``; ``parts`` as for :func:`content_source`):
    ``sliced(content_source(...), trimmed_at(rendered), value)`` in one call."""
    if type(content) is str:
        return index
    return sliced(Parts(parts or ()), trimmed_at(rendered), value)


def sliced(source: Any, at: int, value: str) -> Any:
    """The source of ``value``, a slice from ``at`` of what ``source`` rendered: a
    :class:`Parts`' share (:meth:`Parts.source`), else ``source`` itself (every slice of a
    string value is sourced by its path); ``None`` for an empty value."""
    if not value:
        return None
    return source.source(at, value) if type(source) is Parts else source


def content_source(index: int, content: Any, parts: Any) -> Any:
    """The source of what a template rendered from ``messages[index].content`` (``content``):
    the content's key (:meth:`Recorder.field`) for a string, else a :class:`Parts` of ``parts``,
    the ``(text, path)`` of each part as the template rendered it."""
    return index if type(content) is str else Parts(parts or ())


def think_sources(index: int, content: Any, parts: Any, rendered: str, field: Any,
                  reasoning: str, answer: str) -> tuple[Any, Any]:
    """The sources of an assistant turn's ``reasoning`` and ``answer`` as ``_jinja.think_split``
    leaves them (``|trim`` and the ``</think>`` split of what the template rendered from
    ``messages[index].content``, ``content``, as ``rendered``; ``parts`` as for
    :func:`content_source`): the message's ``reasoning_content`` (``field``) when it is a
    string, else a slice of the content.  ``None`` for an empty one."""
    if type(content) is str:  # every slice of a string content, either half of the split too
        if type(field) is str:
            return ((index, ".reasoning_content") if reasoning else None), (index if answer else None)
        return (index if reasoning else None), (index if answer else None)
    source = Parts(parts or ())
    at = trimmed_at(rendered)
    if type(field) is str:
        return ((index, ".reasoning_content") if reasoning else None), sliced(source, at, answer)
    trimmed = rendered.strip()
    if "</think>" in trimmed:  # both halves are slices of the content
        reasoning_at, at = think_split_at(trimmed, at)
        return sliced(source, reasoning_at, reasoning), sliced(source, at, answer)
    return None, sliced(source, at, answer)


def trimmed_at(text: str) -> int:
    """Where ``text|trim`` starts in ``text``."""
    return len(text) - len(text.lstrip())


def think_split_at(content: str, at: int) -> tuple[int, int]:
    """Where the reasoning (after ``|trim``) and the answer of ``_jinja.think_split(content)``
    start, ``content`` starting at ``at``: the reasoning ends where
    ``content.split('</think>')[0].rstrip('\\n')`` does; the answer is a suffix of ``content``."""
    from ._jinja import think_split

    reasoning, answer = think_split(content)
    head = content.partition("</think>")[0].rstrip("\n")
    return at + len(head) - len(reasoning) + trimmed_at(reasoning), at + len(content) - len(answer)


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
    through a refusing ``__setattr__``: ``docs/spans.md``, "Cost").
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


def _cut(recorder: Recorder) -> tuple[list[int], dict[int, Any]]:
    """Each piece's offset and source, a piece whose source is a :class:`Cuts` cut in one piece
    per source (the pieces themselves are left as they are)."""
    starts = _starts_of(recorder)
    sources = recorder.sources
    cut_starts: list[int] = []
    cut_sources: dict[int, Any] = {}
    for index in range(len(recorder.pieces)):
        source = sources.get(index)
        if type(source) is Cuts:
            position = starts[index]
            for length, path in source:
                if path is not None:
                    cut_sources[len(cut_starts)] = path
                cut_starts.append(position)
                position += length
            if position < starts[index + 1]:  # the piece's rest: the template's
                cut_starts.append(position)
        else:
            if source is not None:
                cut_sources[len(cut_starts)] = source
            cut_starts.append(starts[index])
    cut_starts.append(starts[-1])
    return cut_starts, cut_sources


def _spans_of(text: str, recorder: Recorder) -> Spans:
    """A span per non-empty sourced piece and one per run of template text between them
    (consecutive pieces of one source merged into one span).

    Every step but one is one of Python's C-level loops (``map``, ``compress``, slice
    assignment, ``itemgetter``), and as few of them as the common case allows: a long
    conversation has a few spans per message, and a Python loop per span, or a dozen passes over
    them, would cost more than the render itself.  The one Python loop is over the empty spans
    (and, for a piece with :class:`Cuts`, one over the pieces)."""
    if recorder.cut:
        starts, sources = _cut(recorder)
    else:
        starts, sources = _starts_of(recorder), recorder.sources
    count = len(starts) - 1  # pieces
    size = len(text)
    if starts[-1] != size:  # a port that returned something other than its pieces
        from .errors import InternalError

        raise InternalError("spans: the port's pieces do not join to its text")
    order = sorted(sources)
    if order and order[-1] >= count:  # recorded for a piece never emitted
        order = [index for index in order if index < count]
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
