"""A rendered prompt as one self-contained HTML page: where every character came from.

:func:`page` writes the page ``chatformats render FORMAT FILE --html OUT`` saves: no external
asset and no script; reading it needs only the HTML and its inline CSS.

- The prompt is one ``<pre id="prompt">`` whose visible text (``innerText``) is the prompt
  itself, character for character, with two exceptions no HTML document can hold as text: NUL
  (an HTML parser drops it) and a lone surrogate (not encodable in UTF-8) show as U+FFFD
  (:func:`visible_text` is the prompt as the page shows it).  A carriage return is written as
  ``&#13;`` (a literal one would become a line feed).
- Each span of input text is ``<span class="src" tabindex="0" title=PATH data-path=PATH>``: its
  source path shows on hover, and on keyboard focus (``:focus``) in the page's own style.
  Template text is ``<span class="tpl">``, set apart in grey.
- Each assistant range (``Rendering.assistant_spans``) is a ``<span class="asst">`` around its
  segments, outlined.
- Each audit finding is flagged: the characters of the occurrence carry ``class="hit"`` and
  ``data-finding`` (the token), and the page's header lists the findings.
- Whitespace and control characters are made visible without changing the text: a marker
  element before a line feed, tab or carriage return (``<i class="m" data-m="↵"></i>``), and a
  ``<span class="cc" data-m="U+000B">`` around any other control or invisible character, whose
  label is CSS ``::before`` content (generated content is not part of the document's text);
  runs of spaces are shaded.
"""

from __future__ import annotations

import html as _html
import unicodedata
from bisect import bisect_right
from typing import Any, Iterable

__all__ = ["page", "visible_text"]

#: A marker drawn before each of these characters (the character itself stays in the text).
_MARKS = {"\n": "\u21b5", "\t": "\u2192", "\r": "\u240d"}

_STYLE = """
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em; color: #111; }
h1 { font-size: 1.2em; margin: 0 0 .3em; }
.summary { margin: 0 0 1em; color: #333; }
.summary code { background: #f3f3f3; padding: 0 .25em; }
.legend span { margin-right: 1em; }
pre.prompt { white-space: pre-wrap; word-break: break-all; font: 13px/1.5 ui-monospace,
  SFMono-Regular, Menlo, Consolas, monospace; border: 1px solid #ccc; padding: 1em;
  background: #fff; }
.tpl { color: #777; background: #f4f4f4; }
.src { color: #000; background: #e8f1ff; border-bottom: 1px solid #9bbcf0; }
.src:hover, .src:focus { background: #cfe0ff; outline: 1px solid #3a78d8; }
.src:focus::after { content: " \\2190  " attr(data-path); font: 11px system-ui, sans-serif;
  color: #fff; background: #3a78d8; padding: 0 .3em; border-radius: 2px; }
.asst { outline: 2px solid #2e9d57; outline-offset: 1px; border-radius: 2px; }
.hit { background: #ffd6d6; color: #900; text-decoration: underline wavy #d00; }
.hit.src::before { content: "\\26a0"; color: #d00; }
i.m { font-style: normal; }
i.m::before { content: attr(data-m); color: #bbb; }
.cc::before { content: "\\2039" attr(data-m) "\\203a"; color: #b35c00; font-size: 10px; }
.sp { background-image: radial-gradient(circle, #bbb 1px, transparent 1.2px);
  background-size: 1ch 100%; background-position: center; }
""".strip()


def _is_special(char: str) -> bool:
    """Whether a character is drawn with a label (control, format, line/paragraph separator,
    unusual space): its Unicode category is C* or Z* and it is not an ordinary space."""
    return char != " " and unicodedata.category(char)[0] in "CZ"


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
        elif _is_special(char):
            flush()
            label = f"U+{ord(char):04X}"
            shown = "\ufffd" if _unrepresentable(char) else char
            out.append(f'<span class="cc" data-m="{label}" title="{label}">{shown}</span>')
        else:
            run.append(char)
        i += 1
    flush()
    return "".join(out)


def _attr(value: str) -> str:
    """``value`` for a double-quoted attribute (characters HTML cannot hold as U+FFFD)."""
    return _html.escape(visible_text(value), quote=True).replace("\r", "&#13;")


def page(rendering: Any, findings: Iterable[Any] = (), *, title: str = "chatformats",
         layer: str = "template") -> str:
    """The page for ``rendering`` (a :class:`chatformats.Rendering`) and its audit
    ``findings`` (see the module docstring)."""
    text = rendering.text
    spans = rendering.spans
    findings = tuple(findings)
    assistant = [(s, e) for s, e in rendering.assistant_spans if e > s]
    cuts = {0, len(text)}
    for span in spans:
        cuts.update((span.start, span.end))
    for start, end in assistant:
        cuts.update((start, end))
    for finding in findings:
        cuts.update((finding.offset, finding.end))
    bounds = sorted(c for c in cuts if 0 <= c <= len(text))
    span_starts = [span.start for span in spans]

    body: list[str] = []
    open_until = -1
    for a, b in zip(bounds, bounds[1:]):
        if a == b:
            continue
        if open_until < 0:
            for start, end in assistant:
                if start == a:
                    body.append(f'<span class="asst" title="assistant range {start}-{end}">')
                    open_until = end
                    break
        source = spans[bisect_right(span_starts, a) - 1].source if spans else None
        hits = [f.token for f in findings if f.offset <= a and b <= f.end]
        classes = "src" if source is not None else "tpl"
        attrs = ""
        if source is not None:
            attrs = f' tabindex="0" title="{_attr(source)}" data-path="{_attr(source)}"'
        if hits:
            classes += " hit"
            attrs += f' data-finding="{_attr(" ".join(dict.fromkeys(hits)))}"'
        body.append(f'<span class="{classes}"{attrs}>{_text(text[a:b])}</span>')
        if open_until == b:
            body.append("</span>")
            open_until = -1
    if open_until >= 0:
        body.append("</span>")

    sourced = sum(1 for span in spans if span.source is not None)
    listed = "".join(
        f"<li><code>{_attr(f.token)}</code> in <code>{_attr(f.path)}</code> at offset "
        f"{f.input_offset}{' of its rendered text' if f.form != 'value' else ''} "
        f"(prompt offset {f.offset})</li>" for f in findings)
    findings_html = (f"<p><strong>{len(findings)} control string"
                     f"{'s' if len(findings) != 1 else ''} in input text:</strong></p><ul>"
                     f"{listed}</ul>" if findings else "<p>No control string in input text.</p>")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{_attr(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{_attr(title)}</h1>"
        f"<div class=\"summary\"><p>{len(text)} characters, {layer} layer; {len(spans)} spans "
        f"({sourced} from the input); {len(assistant)} assistant "
        f"range{'s' if len(assistant) != 1 else ''}.</p>"
        "<p class=\"legend\"><span class=\"tpl\">template text</span>"
        "<span class=\"src\">input text (its path on hover or focus)</span>"
        "<span class=\"asst\">assistant range</span>"
        "<span class=\"hit\">control string in input text</span></p>"
        f"{findings_html}</div>"
        f"<pre id=\"prompt\" class=\"prompt\">{''.join(body)}</pre>"
        "</body></html>\n"
    )
