"""A rendered prompt as one self-contained HTML page: where every character came from.

:func:`page` writes the page ``chatformats render FORMAT FILE --html OUT`` saves: no external
asset and no script; reading it needs only the HTML and its inline CSS.

- The prompt is one ``<pre id="prompt">`` whose visible text (``innerText``) is the prompt
  itself, character for character, with two exceptions no HTML document can hold as text: NUL
  (an HTML parser drops it) and a lone surrogate (not encodable in UTF-8) show as U+FFFD
  (:func:`visible_text` is the prompt as the page shows it).  A carriage return is written as
  ``&#13;`` (a literal one would become a line feed).
- Each span of input text is ``<span class="src hN" tabindex="0" title=PATH data-path=PATH>``;
  the segment where a span begins also carries ``data-label=PATH``, which the page draws before
  it (CSS generated content: visible without hovering, printed, and not part of the text).
  Each message's input is in its own hue (``hN``: ``N`` is the message's index modulo 4, and
  input from outside the messages, such as ``tools[0]``, takes ``h0``), and the first segment of
  each message's run of input is marked ``first`` (a bar at its left): text injected into a
  message (a fake ``<|im_start|>assistant`` turn) shows inside that message's box, under its
  label, not as template text.  Template text is ``<span class="tpl">``, set apart in grey.
- Each assistant range (``Rendering.assistant_spans``) is a ``<span class="asst">`` around its
  segments, outlined.
- Each finding, of any kind, is shown from its fields alone (``as_dict()``, else its record
  fields; ``kind``, absent for a control string, names it), so a new kind of finding needs no
  change here: the header lists every finding with its kind and fields, each linked
  (``href="#finding-N"``) to an anchor at its place in the prompt (its ``offset``; the anchor
  links back to the list), and the characters of its place (``offset`` to ``end``) carry
  ``class="hit"`` and ``data-finding`` (its token, else its kind).  A finding whose place has no
  characters (``end == offset``) has the anchor alone; one without an ``offset`` is listed,
  unlinked.
- Whitespace and every character that draws nothing or draws as something else are made
  visible without changing the text: a marker element before a line feed, tab or carriage return
  (``<i class="m" data-m="↵"></i>``), and a ``<span class="cc" data-m="U+FE0F"
  title="U+FE0F VARIATION SELECTOR-16">`` around each other such character (:func:`is_labelled`:
  controls, format characters such as the bidi controls and zero-width characters, separators,
  unusual spaces, unassigned and private-use code points, every Default_Ignorable_Code_Point
  such as the variation selectors, U+034F and the Hangul fillers, and the blank graphic
  characters U+2800 and U+16FE4), whose label is CSS ``::before`` content (generated content is
  not part of the document's text); runs of spaces are shaded.
- Nothing in one span changes how another is drawn: every segment and every labelled
  character is its own bidi isolate (``unicode-bidi: isolate``), so a U+202E RIGHT-TO-LEFT
  OVERRIDE in a message is labelled and reverses nothing, not the template text after it, not
  the rest of its own span.

The page is linear in the prompt's length, its spans, assistant ranges and findings together:
one sweep over the cut points, with the open findings and assistant ranges carried along.
The only links are in-page (``#finding-N``); the page has no script and no external reference.
"""

from __future__ import annotations

import html as _html
import unicodedata
from bisect import bisect_right
from typing import Any, Iterable

__all__ = ["page", "visible_text", "is_labelled", "DEFAULT_IGNORABLE"]

#: A marker drawn before each of these characters (the character itself stays in the text).
_MARKS = {"\n": "\u21b5", "\t": "\u2192", "\r": "\u240d"}

_STYLE = """
:root { color-scheme: light; }
* { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em; color: #111; }
h1 { font-size: 1.2em; margin: 0 0 .3em; }
.summary { margin: 0 0 1em; color: #333; }
.summary code { background: #f3f3f3; padding: 0 .25em; }
.legend span, .legend a { margin-right: 1em; }
ol.findings .kind { font-weight: 600; }
pre.prompt { white-space: pre-wrap; word-break: break-all; font: 13px/1.9 ui-monospace,
  SFMono-Regular, Menlo, Consolas, monospace; border: 1px solid #ccc; padding: 1em;
  background: #fff; }
.tpl, .src, .cc { unicode-bidi: isolate; }
.tpl { color: #777; background: #f4f4f4; }
.src { color: #000; border-bottom: 1px solid; -webkit-box-decoration-break: clone;
  box-decoration-break: clone; }
.src.h0 { background: #e8f1ff; border-color: #3a78d8; }
.src.h1 { background: #fff1dc; border-color: #c77700; }
.src.h2 { background: #e6f6ea; border-color: #2e8b47; }
.src.h3 { background: #f6e8fb; border-color: #8e44ad; }
.src.first { border-left: 3px solid; padding-left: 2px; }
.src[data-label]::before { content: attr(data-label) " \\25B8  "; font: 10px system-ui,
  sans-serif; color: #fff; background: #555; padding: 0 .3em; margin-right: .2em;
  border-radius: 2px; vertical-align: super; }
.src.h0[data-label]::before { background: #3a78d8; }
.src.h1[data-label]::before { background: #b36b00; }
.src.h2[data-label]::before { background: #2e7d42; }
.src.h3[data-label]::before { background: #7d3c98; }
.src:hover, .src:focus { outline: 1px solid #333; }
.asst { outline: 2px solid #2e9d57; outline-offset: 1px; border-radius: 2px; }
.hit { background: #ffd6d6 !important; color: #900; text-decoration: underline wavy #d00; }
a.anchor { text-decoration: none; }
a.anchor::before { content: "\\2691" attr(data-n); font: 10px system-ui, sans-serif;
  color: #fff; background: #d00; padding: 0 .25em; border-radius: 2px; vertical-align: super; }
:target { outline: 3px solid #d00; }
i.m { font-style: normal; }
i.m::before { content: attr(data-m); color: #bbb; }
.cc::before { content: "\\2039" attr(data-m) "\\203a"; color: #b35c00; font-size: 10px; }
.sp { background-image: radial-gradient(circle, #bbb 1px, transparent 1.2px);
  background-size: 1ch 100%; background-position: center; }
""".strip()


#: Default_Ignorable_Code_Point, as Unicode's DerivedCoreProperties.txt lists it (Unicode 14.0 to
#: 16.0 give these same ranges; ``unicodedata`` does not expose the property): inclusive ranges.
#: Characters a renderer draws as nothing when it has no glyph for them.
#: ``tests/test_surface_faults.py`` checks the table against what ``unicodedata`` computes
#: (categories, the variation selectors by name, every format character but the documented
#: exceptions).
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),    # Cf  SOFT HYPHEN
    (0x034F, 0x034F),    # Mn  COMBINING GRAPHEME JOINER
    (0x061C, 0x061C),    # Cf  ARABIC LETTER MARK
    (0x115F, 0x1160),    # Lo  HANGUL CHOSEONG FILLER..HANGUL JUNGSEONG FILLER
    (0x17B4, 0x17B5),    # Mn  KHMER VOWEL INHERENT AQ..KHMER VOWEL INHERENT AA
    (0x180B, 0x180D),    # Mn  MONGOLIAN FREE VARIATION SELECTOR ONE..THREE
    (0x180E, 0x180E),    # Cf  MONGOLIAN VOWEL SEPARATOR
    (0x180F, 0x180F),    # Mn  MONGOLIAN FREE VARIATION SELECTOR FOUR
    (0x200B, 0x200F),    # Cf  ZERO WIDTH SPACE..RIGHT-TO-LEFT MARK
    (0x202A, 0x202E),    # Cf  LEFT-TO-RIGHT EMBEDDING..RIGHT-TO-LEFT OVERRIDE
    (0x2060, 0x2064),    # Cf  WORD JOINER..INVISIBLE PLUS
    (0x2065, 0x2065),    # Cn  <reserved-2065>
    (0x2066, 0x206F),    # Cf  LEFT-TO-RIGHT ISOLATE..NOMINAL DIGIT SHAPES
    (0x3164, 0x3164),    # Lo  HANGUL FILLER
    (0xFE00, 0xFE0F),    # Mn  VARIATION SELECTOR-1..VARIATION SELECTOR-16
    (0xFEFF, 0xFEFF),    # Cf  ZERO WIDTH NO-BREAK SPACE
    (0xFFA0, 0xFFA0),    # Lo  HALFWIDTH HANGUL FILLER
    (0xFFF0, 0xFFF8),    # Cn  <reserved-FFF0>..<reserved-FFF8>
    (0x1BCA0, 0x1BCA3),  # Cf  SHORTHAND FORMAT LETTER OVERLAP..SHORTHAND FORMAT UP STEP
    (0x1D173, 0x1D17A),  # Cf  MUSICAL SYMBOL BEGIN BEAM..MUSICAL SYMBOL END PHRASE
    (0xE0000, 0xE0000),  # Cn  <reserved-E0000>
    (0xE0001, 0xE0001),  # Cf  LANGUAGE TAG
    (0xE0002, 0xE001F),  # Cn  <reserved-E0002>..<reserved-E001F>
    (0xE0020, 0xE007F),  # Cf  TAG SPACE..CANCEL TAG
    (0xE0080, 0xE00FF),  # Cn  <reserved-E0080>..<reserved-E00FF>
    (0xE0100, 0xE01EF),  # Mn  VARIATION SELECTOR-17..VARIATION SELECTOR-256
    (0xE01F0, 0xE0FFF),  # Cn  <reserved-E01F0>..<reserved-E0FFF>
)

#: Graphic characters (not default-ignorable) whose glyph is blank: BRAILLE PATTERN BLANK
#: (So) and KHITAN SMALL SCRIPT FILLER (Mn).
_BLANK_GRAPHICS = frozenset({"\u2800", "\U00016fe4"})

_IGNORABLE = frozenset(chr(cp) for low, high in DEFAULT_IGNORABLE for cp in range(low, high + 1))


def is_labelled(char: str) -> bool:
    """Whether the page draws ``char`` with a label (its code point, and its name on hover):
    every character that draws nothing or draws as something else — Unicode category C*
    (controls, format characters such as the bidi controls, surrogates, private use,
    unassigned) or Z* (separators, spaces other than U+0020), a Default_Ignorable_Code_Point
    (:data:`DEFAULT_IGNORABLE`: the variation selectors, U+034F, the Hangul fillers, U+17B4,
    U+180B...), or a blank graphic character (U+2800, U+16FE4)."""
    if char == " ":
        return False
    return (unicodedata.category(char)[0] in "CZ" or char in _IGNORABLE
            or char in _BLANK_GRAPHICS)


def _label(char: str) -> tuple[str, str]:
    """``("U+FE0F", "U+FE0F VARIATION SELECTOR-16")``: the label and its title (the name where
    Unicode gives one)."""
    code = f"U+{ord(char):04X}"
    name = unicodedata.name(char, "")
    return code, f"{code} {name}" if name else code


def _unrepresentable(char: str) -> bool:
    return char == "\x00" or "\ud800" <= char <= "\udfff"


def visible_text(prompt: str) -> str:
    """``prompt`` as the page shows it (its ``innerText``): NUL and lone surrogates, which no HTML
    document holds as text, as U+FFFD; every other character as is."""
    if "\x00" not in prompt and not any("\ud800" <= c <= "\udfff" for c in prompt):
        return prompt
    return "".join("\ufffd" if _unrepresentable(c) else c for c in prompt)


def _text(chunk: str) -> str:
    """The HTML for ``chunk`` of the prompt: escaped, with markers that are not text."""
    out: list[str] = []
    run: list[str] = []  # ordinary characters

    def flush() -> None:
        if run:
            out.append(_html.escape("".join(run), quote=False))
            run.clear()

    i, n = 0, len(chunk)
    while i < n:
        char = chunk[i]
        if char == " ":
            j = i
            while j < n and chunk[j] == " ":
                j += 1
            if j - i > 1 or i == 0 or j == n:  # runs, and spaces at a segment's edge
                flush()
                out.append(f'<span class="sp">{" " * (j - i)}</span>')
            else:
                run.append(" ")
            i = j
            continue
        if char in _MARKS:
            flush()
            out.append(f'<i class="m" data-m="{_MARKS[char]}"></i>')
            out.append("&#13;" if char == "\r" else char)
        elif is_labelled(char):
            flush()
            label, title = _label(char)
            shown = "\ufffd" if _unrepresentable(char) else char
            out.append(f'<span class="cc" data-m="{label}" title="{title}">{shown}</span>')
        else:
            run.append(char)
        i += 1
    flush()
    return "".join(out)


def _attr(value: str) -> str:
    """``value`` for a double-quoted attribute (characters HTML cannot hold as U+FFFD)."""
    return _html.escape(visible_text(value), quote=True).replace("\r", "&#13;")


#: The first segment of each input span is labelled with its path, in one of these hues by the
#: message it belongs to (``messages[i]``: hue ``i % len``; other inputs, such as ``tools[0]``,
#: the first), so consecutive messages differ and text injected into one shows inside it.
_HUES = 4


def _message_of(source: str) -> int | None:
    """``i`` for a source path under ``messages[i]``, else ``None``."""
    if not source.startswith("messages["):
        return None
    close = source.find("]", 9)
    digits = source[9:close] if close > 9 else ""
    return int(digits) if digits.isdigit() else None


def _fields(finding: Any) -> dict[str, Any]:
    """A finding's fields, whatever its kind: ``as_dict()`` where it has one (every
    :class:`chatformats.Finding`), else its record fields."""
    as_dict = getattr(finding, "as_dict", None)
    if callable(as_dict):
        return dict(as_dict())
    names: Any = getattr(finding, "_fields", None) or getattr(type(finding), "__slots__", ())
    return {name: getattr(finding, name) for name in names}


def _kind(finding: Any) -> str:
    """A finding's kind (its ``kind`` field; a finding without one is a control string)."""
    kind = getattr(finding, "kind", None)
    return kind if isinstance(kind, str) and kind else "control"


def _place(finding: Any, length: int) -> tuple[int, int] | None:
    """The characters of the prompt a finding is about, ``(offset, end)`` (``end == offset`` for
    a place with no characters, such as where dropped input would have gone), or ``None`` for a
    finding with no place in the prompt."""
    offset = getattr(finding, "offset", None)
    if type(offset) is not int or not 0 <= offset <= length:
        return None
    end = getattr(finding, "end", offset)
    if type(end) is not int or not offset <= end <= length:
        end = offset
    return offset, end


def _value_html(value: Any) -> str:
    if isinstance(value, str):
        return f"<code>{_attr(value)}</code>"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value_html(item) for item in value) + "]"
    return _attr(str(value))


def _finding_item(number: int, finding: Any, place: tuple[int, int] | None) -> str:
    """One finding in the list above the prompt: its kind and every field, linked to its place
    in the prompt (and the place links back here)."""
    fields = "; ".join(f"{_attr(name)} {_value_html(value)}"
                       for name, value in _fields(finding).items())
    kind = f'<span class="kind">{_attr(_kind(finding))}</span>'
    if place is None:
        return (f'<li id="finding-{number}-item">{kind} {fields} '
                "<em>(no place in the prompt)</em></li>")
    return (f'<li id="finding-{number}-item"><a href="#finding-{number}">{kind} at prompt '
            f"offset {place[0]}</a>: {fields}</li>")


def page(rendering: Any, findings: Iterable[Any] = (), *, title: str = "chatformats",
         layer: str = "template") -> str:
    """The page for ``rendering`` (a :class:`chatformats.Rendering`) and its audit
    ``findings`` (see the module docstring; a finding of any kind is shown from its fields)."""
    text = rendering.text
    spans = rendering.spans
    findings = tuple(findings)
    places = [_place(finding, len(text)) for finding in findings]
    marked = [k for k, place in enumerate(places) if place is not None]
    assistant = [(s, e) for s, e in rendering.assistant_spans if e > s]
    cuts = {0, len(text)}
    for span in spans:
        cuts.update((span.start, span.end))
    for start, end in assistant:
        cuts.update((start, end))
    for k in marked:
        cuts.update(places[k])  # type: ignore[arg-type]
    bounds = sorted(c for c in cuts if 0 <= c <= len(text))
    span_starts = [span.start for span in spans]
    # The assistant range to open at each offset (the first one that starts there), and the
    # findings by offset: one sweep, each finding entering and leaving the open set once.
    opens: dict[int, int] = {}
    for start, end in assistant:
        opens.setdefault(start, end)
    by_offset = sorted(marked, key=lambda k: (places[k][0], k))  # type: ignore[index]
    entering = 0
    anchored = 0  # the findings whose anchor is written (by_offset order)
    active: list[int] = []  # the findings over the current segment, in the findings' order

    body: list[str] = []
    open_until = -1
    for a, b in zip(bounds, bounds[1:]):
        if a == b:
            continue
        if open_until < 0 and a in opens:
            end = opens[a]
            body.append(f'<span class="asst" title="assistant range {a}-{end}">')
            open_until = end
        while anchored < len(by_offset) and places[by_offset[anchored]][0] <= a:  # type: ignore[index]
            number = by_offset[anchored] + 1
            body.append(f'<a class="anchor" id="finding-{number}" href="#finding-{number}-item" '
                        f'data-n="{number}" title="finding {number}"></a>')
            anchored += 1
        index = bisect_right(span_starts, a) - 1
        span = spans[index] if spans else None
        source = span.source if span is not None else None
        added = False
        while entering < len(by_offset) and places[by_offset[entering]][0] <= a:  # type: ignore[index]
            active.append(by_offset[entering])
            entering += 1
            added = True
        if active:
            kept = [k for k in active if b <= places[k][1]]  # type: ignore[index]
            if added:
                kept.sort()
            active = kept
        classes = "src" if source is not None else "tpl"
        attrs = ""
        if source is not None:
            message = _message_of(source)
            classes += f" h{(message or 0) % _HUES}"
            attrs = f' tabindex="0" title="{_attr(source)}" data-path="{_attr(source)}"'
            if span is not None and a == span.start:  # the path, shown where the span begins
                attrs += f' data-label="{_attr(source)}"'
                if message is not None and (index == 0 or spans[index - 1].source is None
                                            or _message_of(spans[index - 1].source) != message):
                    classes += " first"
        if active:
            classes += " hit"
            described = dict.fromkeys(getattr(findings[k], "token", None) or _kind(findings[k])
                                      for k in active)
            attrs += f' data-finding="{_attr(" ".join(described))}"'
        body.append(f'<span class="{classes}"{attrs}>{_text(text[a:b])}</span>')
        if open_until == b:
            body.append("</span>")
            open_until = -1
    if open_until >= 0:
        body.append("</span>")
    while anchored < len(by_offset):  # places at the very end of the prompt
        number = by_offset[anchored] + 1
        body.append(f'<a class="anchor" id="finding-{number}" href="#finding-{number}-item" '
                    f'data-n="{number}" title="finding {number}"></a>')
        anchored += 1

    sourced = sum(1 for span in spans if span.source is not None)
    kinds: dict[str, int] = {}
    for finding in findings:
        kinds[_kind(finding)] = kinds.get(_kind(finding), 0) + 1
    listed = "".join(_finding_item(k + 1, finding, places[k]) for k, finding in enumerate(findings))
    counts = ", ".join(f"{count} {_attr(kind)}" for kind, count in kinds.items())
    findings_html = (f"<p><strong>{len(findings)} finding{'s' if len(findings) != 1 else ''} "
                     f"({counts}):</strong></p><ol class=\"findings\">{listed}</ol>"
                     if findings else "<p>No finding.</p>")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{_attr(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{_attr(title)}</h1>"
        f"<div class=\"summary\"><p>{len(text)} characters, {layer} layer; {len(spans)} spans "
        f"({sourced} from the input); {len(assistant)} assistant "
        f"range{'s' if len(assistant) != 1 else ''}.</p>"
        "<p class=\"legend\"><span class=\"tpl\">template text</span>"
        "<span class=\"src h0\" data-label=\"messages[0].content\">input text, labelled with "
        "its path, each message in its own colour</span>"
        "<span class=\"asst\">assistant range</span>"
        "<span class=\"hit\">finding in input text</span>"
        "<a class=\"anchor\" data-n=\"1\"></a> a finding's place (links to the list)</p>"
        f"{findings_html}</div>"
        f"<pre id=\"prompt\" class=\"prompt\" dir=\"ltr\">{''.join(body)}</pre>"
        "</body></html>\n"
    )
