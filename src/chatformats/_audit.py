"""The audit: a format's control strings where input-derived text put them in a prompt.

A model reads ``<|im_end|>`` or ``<|eot_id|>`` in its prompt as structure, whoever wrote it.
:func:`audit` renders with spans (:func:`chatformats.render_spans`) and reports every occurrence
of one of the format's control strings (``ChatFormat.control_strings``) that is not wholly text
the template wrote itself: a :class:`Finding` per occurrence of each string (overlapping
occurrences, and occurrences of a string inside another, each reported).  Rendering never
changes: the audit only reports.

Where a finding lies in its input value (``input_offset``):

- the span's text is a copy or a slice (after strip/split) of a string value: the offset in that
  string (``form == "value"``).  A span's text is located in its value searching from the end of
  the previous span of the same value (a template writes the slices of one value in order, e.g.
  a reasoning before the answer), else from its start;
- the span's text is the value's JSON (``tojson``) or ``str()`` of a non-string value (or a value
  the path does not resolve to): the offset in that text, exactly as the prompt holds it
  (``form == "rendered"``); a JSON text is not the value, so there is no other offset to give.

An occurrence that straddles a span boundary (a token split across two content parts that the
template joins, or input text that completes a token the template began) is reported too: its
``sources`` lists the source of every span it overlaps (``None`` for template text), ``path`` is
the first input among them and ``input_offset`` where the occurrence enters that input's text.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ._finding import Finding, resolve
from ._spans import Rendering, Span

__all__ = ["Finding", "find", "resolve", "template_layer", "pipeline_layer"]


# ------------------------------------------------------------------ the scan


def find(rendering: Rendering, roots: Mapping[str, Any], control_strings: tuple[str, ...],
         special_tokens: Mapping[str, Any] | None = None) -> tuple[Finding, ...]:
    """Every occurrence of each of ``control_strings`` in ``rendering.text`` that overlaps
    input-derived text (a span with a source), ordered by offset then token; ``roots`` holds the
    values the span paths name (see the module docstring).

    ``special_tokens`` (the format's, ``{"bos_token": "<|begin_of_text|>"}``): a span sourced
    from one of these variables whose text is the model's own token is the model's structure,
    not input (the pipeline layer supplies it; a caller passing the same token at the template
    layer means it), so it counts as template text; any other value of such a variable is
    input like any other."""
    text = rendering.text
    spans: Sequence[Span] = rendering.spans
    if special_tokens:
        spans = tuple(
            Span(span.start, span.end, None)
            if span.source is not None and span.source in special_tokens
            and text[span.start:span.end] == special_tokens[span.source] else span
            for span in spans)
    if not text or all(span.source is None for span in spans):
        return ()
    starts = [span.start for span in spans]
    where = _locate(text, spans, roots)  # span index -> (start in its value, form)
    found: list[Finding] = []
    from bisect import bisect_right

    scanner = _scanner(control_strings)
    if scanner is None:
        return ()
    search, prefixes, longest = scanner
    for low, high in _windows(spans, len(text), longest):
        match = search(text, low, high)
        while match is not None:
            at = match.start()
            for token in prefixes[match.group()]:  # every control string that starts here
                end = at + len(token)
                first = bisect_right(starts, at) - 1
                last = bisect_right(starts, end - 1) - 1
                covered = spans[first:last + 1]
                if any(span.source is not None for span in covered):
                    index = next(i for i in range(first, last + 1) if spans[i].source is not None)
                    span = spans[index]
                    path = str(span.source)  # not None: chosen so
                    entry = max(at, span.start)
                    base, form = where[index]
                    found.append(Finding(token, at, path, base + entry - span.start, form,
                                         tuple(s.source for s in covered)))
            match = search(text, at + 1, high)
    found.sort(key=lambda f: (f.offset, f.token))
    return tuple(found)


# ------------------------------------------------------------------ one pass for every string
#
# The scan is one pass over the text near input-derived spans for all control strings at once:
# a regular expression built from the strings' trie (one alternative per next character, so
# each position costs the depth of the trie, not the number of strings; an optional group where
# a string ends inside a longer one, tried longer first), searched from each position where
# one matched plus one, so overlapping occurrences are all found.  At each such position the
# match is the longest control string that starts there; the others that start there are its
# prefixes among the strings (``prefixes``).  Only the windows that can hold an occurrence
# overlapping a sourced span are searched: each sourced span widened by the longest string
# less one character on each side.

#: control strings -> (compiled search, match -> the strings starting there, longest length)
_SCANNERS: dict[tuple[str, ...], tuple[Any, dict[str, tuple[str, ...]], int] | None] = {}


def _scanner(control_strings: tuple[str, ...]
             ) -> tuple[Any, dict[str, tuple[str, ...]], int] | None:
    """The scan for ``control_strings`` (cached per tuple); ``None`` when there is no string."""
    key = tuple(control_strings)
    if key in _SCANNERS:
        return _SCANNERS[key]
    import re

    tokens = [token for token in dict.fromkeys(key) if token]
    scanner = None
    if tokens:
        trie: dict[Any, Any] = {}
        for token in tokens:
            node = trie
            for char in token:
                node = node.setdefault(char, {})
            node[None] = True  # a string ends here
        pattern = re.compile(_trie_pattern(trie), re.DOTALL)
        # The strings that are prefixes of each (itself included), read off its path in the
        # trie; their order does not matter: the final sort orders the findings.
        prefixes: dict[str, tuple[str, ...]] = {}
        for token in tokens:
            node, ends = trie, []
            for length, char in enumerate(token, 1):
                node = node[char]
                if None in node:
                    ends.append(token[:length])
            prefixes[token] = tuple(ends)
        scanner = (pattern.search, prefixes, max(map(len, tokens)))
    if len(_SCANNERS) < 256:  # the registry's formats; beyond that, a caller's own are rebuilt
        _SCANNERS[key] = scanner
    return scanner


def _trie_pattern(node: dict[Any, Any]) -> str:
    """The regular expression of the strings in trie ``node``: at each node one alternative per
    next character (they exclude each other), optional where a string ends (greedy: the longer
    strings first)."""
    import re

    branches = [re.escape(char) + _trie_pattern(child)
                for char, child in node.items() if char is not None]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if None in node:
        return f"(?:{body})?"
    return body


def _windows(spans: Any, size: int, longest: int) -> list[tuple[int, int]]:
    """The stretches of the text that can hold an occurrence overlapping a sourced span: each
    sourced span widened by ``longest - 1`` on both sides, merged, in order."""
    out: list[tuple[int, int]] = []
    reach = longest - 1
    for span in spans:
        if span.source is None:
            continue
        low, high = max(0, span.start - reach), min(size, span.end + reach)
        if out and low <= out[-1][1]:
            if high > out[-1][1]:
                out[-1] = (out[-1][0], high)
        else:
            out.append((low, high))
    return out


def _locate(text: str, spans: Any, roots: Mapping[str, Any]) -> dict[int, tuple[int, str]]:
    """For each sourced span: where its text starts in its value (``"value"``), or 0 in its own
    text (``"rendered"``: the value's JSON or ``str()``, or a value the path does not reach)."""
    where: dict[int, tuple[int, str]] = {}
    cursor: dict[str, int] = {}
    for index, span in enumerate(spans):
        if span.source is None:
            continue
        value = resolve(span.source, roots)
        piece = text[span.start:span.end]
        if type(value) is str:
            at = value.find(piece, cursor.get(span.source, 0))
            if at < 0:
                at = value.find(piece)
            if at >= 0:
                where[index] = (at, "value")
                cursor[span.source] = at + len(piece)
                continue
        where[index] = (0, "rendered")
    return where


# ------------------------------------------------------------------ the layers


def template_layer(name: Any, messages: Any, now: Any, strict: bool,
                   variables: dict[str, Any]) -> tuple[Rendering, tuple[Finding, ...]]:
    """``render_spans(name, messages, now=now, strict=strict, **variables)`` and its findings."""
    from . import _registry

    silent: list[Finding] = []
    rendering = _registry.render_spans(name, messages, now, strict, variables, silent)
    fmt = _registry.get_format(name)
    return rendering, ordered(find(rendering, {**variables, "messages": messages},
                                   fmt.control_strings, fmt.special_tokens), silent)


def ordered(control: tuple[Finding, ...], silent: list[Finding]) -> tuple[Finding, ...]:
    """Every finding, ordered by offset, then kind (control strings first), then token."""
    if not silent:
        return control
    rank = {"control": 0, "dropped": 1, "repr": 2}
    return tuple(sorted((*control, *silent), key=lambda f: (f.offset, rank[f.kind], f.token, f.path)))


def pipeline_layer(name: Any, messages: Any, now: Any,
                   kwargs: dict[str, Any]) -> tuple[Rendering, tuple[Finding, ...]]:
    """``apply_chat_template_spans(name, messages, now=now, **kwargs)`` and its findings; the
    paths resolve against the values as given (the special tokens under ``kwargs``)."""
    from . import _registry, pipeline

    silent: list[list[Finding]] = []
    named = {key: kwargs.pop(key) for key in _NAMED if key in kwargs}
    rendering = pipeline._apply(name, messages, named.get("tools"), named.get("documents"),
                                named.get("add_generation_prompt", False),
                                named.get("continue_final_message", False), now,
                                kwargs.pop("strict", False), kwargs, True, silent)
    kwargs.update(named)
    fmt = _registry.get_format(name)
    roots = {**fmt.special_tokens, **kwargs, "messages": messages}
    return rendering, ordered(find(rendering, roots, fmt.control_strings, fmt.special_tokens),
                              silent[0] if silent else [])


#: ``apply_chat_template``'s named parameters (the rest of its keywords are template variables).
_NAMED = ("tools", "documents", "add_generation_prompt", "continue_final_message")
