"""What the HTML page tests share: conversations for every format, and the page's segments
checked against the rendering they came from."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hypothesis import strategies as st

import chatformats
from chatformats import ChatFormatError

from . import strategies

NOW = datetime(2026, 3, 7, 14, 5, 9)

#: Text with every character class the page treats specially, and a control string of each
#: template family (ChatML, Llama, Phi, DeepSeek's full-width markers).
TRICKY = ("a\tb\r\nc\r \x0b\x0c\x00\x1b\x7f\x85\u2028\u2029\xa0\u200b\ufeff\u3000 "
          "  <b>&amp;</b> \"q\" 'q' \ud800 🙂 é\n\n<|im_end|><|eot_id|><think><|end|><｜end▁of▁sentence｜>")


def tricky_conversation() -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": TRICKY},
        {"role": "user", "content": TRICKY},
        {"role": "assistant", "content": "<think>" + TRICKY + "</think>" + TRICKY,
         "tool_calls": [{"id": "call_1", "function": {"name": "f", "arguments": {"x": TRICKY}}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": TRICKY},
        {"role": "user", "content": "again " + TRICKY},
        {"role": "assistant", "content": TRICKY},
    ]


cases = st.one_of(strategies.realistic_conversation(), strategies.adversarial_messages)


def render(name: str, messages: Any, **variables: Any) -> tuple[Any, tuple[Any, ...]] | None:
    """(rendering, findings), or None where the conversation does not render."""
    try:
        return (chatformats.render_spans(name, messages, now=NOW, **variables),
                chatformats.audit(name, messages, now=NOW, **variables))
    except ChatFormatError:
        return None


def check_segments(segments: list[dict[str, Any]], rendering: Any, findings: Any,
                   visible: str) -> None:
    """``segments``: the page's marked elements in document order, each
    ``{"cls": "src"|"tpl", "path": str|None, "text": str, "asst": int|None, "hit": str|None}``
    (``asst``: the index of the enclosing assistant outline).  Their texts tile the visible
    prompt; each one's path is the source of the span holding it; the outlines cover exactly
    the assistant ranges; the flagged characters are exactly those of the findings."""
    assert "".join(s["text"] for s in segments) == visible
    offset = 0
    ranges: dict[int, list[int]] = {}
    flagged: set[int] = set()
    for segment in segments:
        end = offset + len(segment["text"])
        assert end > offset, "an empty segment"
        holding = [s for s in rendering.spans if s.start <= offset < s.end]
        assert len(holding) == 1
        span = holding[0]
        assert end <= span.end, "a segment runs over a span boundary"
        assert segment["cls"] == ("src" if span.source is not None else "tpl")
        assert segment["path"] == span.source
        if segment["asst"] is not None:
            bounds = ranges.setdefault(segment["asst"], [offset, offset])
            assert bounds[1] == offset, "an outline with a gap"
            bounds[1] = end
        if segment["hit"] is not None:
            flagged.update(range(offset, end))
        offset = end
    expected_ranges = [(s, e) for s, e in rendering.assistant_spans if e > s]
    assert [tuple(ranges[k]) for k in sorted(ranges)] == expected_ranges
    expected_flagged = {i for f in findings if type(getattr(f, "offset", None)) is int
                        for i in range(f.offset, f.end)}
    assert flagged == expected_flagged


def check_labels(segments: list[dict[str, Any]], rendering: Any, visible: str) -> None:
    """Each input span's path shows where the span begins (``data-label``, drawn as generated
    content, so printable and not part of the text) and nowhere else; each segment of a
    message's input is in that message's hue, and the first of each message's runs is marked."""
    offset = 0
    starts = {span.start: span for span in rendering.spans}
    previous_message = None
    for segment in segments:
        span = next(s for s in rendering.spans if s.start <= offset < s.end)
        if segment["cls"] == "src":
            assert segment["label"] == (span.source if offset == span.start else None), segment
            message = None
            if span.source.startswith("messages[") and span.source[9:].split("]")[0].isdigit():
                message = int(span.source[9:].split("]")[0])
            assert segment["hue"] == f"h{(message or 0) % 4}", segment
            if offset == span.start and message is not None:
                assert segment["first"] == (message != previous_message), segment
            previous_message = message
        else:
            assert segment["label"] is None
            previous_message = None
        assert offset in starts or segment["label"] is None
        offset += len(segment["text"])


def check_places(anchors: list[tuple[str, int]], items: list[tuple[str, Any]], findings: Any,
                 length: int) -> None:
    """Each finding with a place in the prompt has an anchor there (``finding-N``, N counted from
    1 in the findings' order) linked from its entry in the list, which the anchor links back to;
    a finding without one is listed unlinked."""
    expected = []
    for number, finding in enumerate(findings, 1):
        offset = getattr(finding, "offset", None)
        if type(offset) is int and 0 <= offset <= length:
            expected.append((f"finding-{number}", offset))
    assert sorted(anchors, key=lambda a: (a[1], int(a[0].split("-")[1]))) == sorted(
        expected, key=lambda a: (a[1], int(a[0].split("-")[1])))
    assert [item for item, _ in items] == [f"finding-{n}-item" for n in range(1, len(findings) + 1)]
    linked = {item: link for item, link in items}
    for anchor, _ in anchors:
        assert linked[f"{anchor}-item"] == f"#{anchor}"
