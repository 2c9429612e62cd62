"""``chatformats._spans.build`` against the obvious per-character definition: on any pieces,
sources and generated ranges, the spans tile the text, each span is one run of characters of one
source (a character's source is its piece's), runs are maximal, and the generated ranges are the
pieces' character offsets."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from chatformats._spans import Recorder, Span, build

pieces = st.lists(st.sampled_from(["", "a", "bc", "<|x|>", "\n"]), max_size=12)


@st.composite
def recordings(draw: st.DrawFn) -> Recorder:
    recorder = Recorder()
    recorder.pieces.extend(draw(pieces))
    n = len(recorder.pieces)
    if n:
        for index in draw(st.lists(st.integers(0, n - 1), max_size=n)):
            # A path as a string, or a message field's key (Recorder.field; never both forms of
            # one path, as the ports record them).
            recorder.sources[index] = draw(st.sampled_from(
                ["messages[0].tool_calls[0].id", 0, ~1, (1, ".reasoning_content"), "tools[1]", "x"]))
        for _ in range(draw(st.integers(0, 3))):
            first = draw(st.integers(0, n))
            end = draw(st.integers(first, n))
            into_first = draw(st.integers(0, len(recorder.pieces[first]) if first < n else 0))
            into_end = draw(st.integers(0, len(recorder.pieces[end]) if end < n else 0))
            recorder.turns += (first, into_first, end, into_end)
    return recorder


def expected_spans(recorder: Recorder) -> list[Span]:
    written = {0: "messages[0].content", ~1: "messages[1].role",
               (1, ".reasoning_content"): "messages[1].reasoning_content"}
    paths = {i: written[key] if type(key) is not str else key for i, key in recorder.sources.items()}
    owners = [paths.get(i) for i, piece in enumerate(recorder.pieces) for _ in piece]
    spans: list[Span] = []
    for position, owner in enumerate(owners):
        if spans and spans[-1].source == owner:
            spans[-1] = Span(spans[-1].start, position + 1, owner)
        else:
            spans.append(Span(position, position + 1, owner))
    return spans


@settings(max_examples=300)
@given(recorder=recordings())
@example(recorder=Recorder())
def test_build_is_the_per_character_definition(recorder: Recorder) -> None:
    text = "".join(recorder.pieces)
    rendering = build(text, recorder)
    assert rendering.text == text
    assert list(rendering.spans) == expected_spans(recorder)
    assert rendering.spans == expected_spans(recorder) and len(rendering.spans) == len(expected_spans(recorder))
    offsets = [0]
    for piece in recorder.pieces:
        offsets.append(offsets[-1] + len(piece))
    turns = recorder.turns
    assert rendering.assistant_spans == tuple(
        (offsets[turns[k]] + turns[k + 1], offsets[turns[k + 2]] + turns[k + 3])
        for k in range(0, len(turns), 4))
