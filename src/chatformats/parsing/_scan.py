"""The scanner every format's parser shares: one left-to-right pass over a completion.

A format is a small table of states (:class:`State`).  Each state names the message field its
text belongs to (its *region*: ``"reasoning_content"``, ``"content"``, ``"tool_calls"``, or
``None`` for the format's own structure, such as Solar's ``<|begin|>assistant``), the control
strings (*markers*) that end it and the state each leads to, and optionally *lead* markers that
count only at the very start of the state's text (Qwen's ``<think>`` opens a think block only
where the turn begins).

Rules the scanner implements:

1. The earliest complete marker in the current state ends it (longest first where two start
   at the same place; :func:`check_states` proves no marker of a state contains another).
2. Text up to a marker goes to the state's region; a ``keep`` marker is also the first text of
   the next state (Llama's ``{"name": "`` starts the tool call's JSON).
3. While streaming, the longest tail of the input that is a proper prefix of a marker is held
   back; everything before it is final and emitted at once.  At the end of input nothing can
   grow, so the held text is ordinary text.
4. Text of a structural state (region ``None``) may only be whitespace, unless the state
   ignores text (after the end of the turn, where a server stops reading).
5. A state with ``lead_space`` (the recovering tables') also finds its lead markers after up to
   :data:`LEAD_SPACE` whitespace characters (a model that writes ``\n<think>``; a lead that
   begins with whitespace itself is tried first where the state begins); a lead whose
   target is the state itself is a duplicate opener (``<think>`` after a prefill that opened the
   block): it is dropped and the state goes on.
6. A state's ``value(raw, marker)`` may return an :class:`Outcome`: the values of several
   regions (a tool-call region whose text is partly content) and diagnostics, reported at
   their offsets in the completion.  This is how the recovering reading says what it did.
7. Every character the scan passes is in :attr:`Scanner.spans`, the completion's tiling: a
   marker, a region's text (with what its value made of it), the whitespace of a structural
   state, or text a state ignores (after the end of the turn), which the recovering reading
   also reports as an ``after-end`` diagnostic.  ``tests/test_parse_lossless.py`` checks from
   it that nothing is lost (docs/parsing.md, "Nothing is lost").

Each region emits transformers' ``ResponseParser`` events: ``region_open``, ``region_chunk``
(``{"text", "dirty"}``: ``dirty`` for tool calls, whose value exists only once parsed) and
``region_close`` (``{"value"}``, the state's ``value(raw, marker)``).  Reasoning and tool-call
regions open at their marker; content opens at its first character.

Linear time: the regex alternation of a state's literal markers is searched from the current
position only, each position is searched once (held-back text, at most the longest marker, is
searched again with the next chunk), and ``work`` counts the characters searched so that a test
can check the bound without a clock.  A state whose markers begin with different characters
(the recovering Llama content: ``<|eot_id|>`` and ``{"name"``) has one alternation per first
character, each with a literal prefix ``re`` searches for quickly; within one chunk each keeps
its last match, valid while the scan has not passed it, so each is searched forward only.
An alternation whose markers all end with one closing character (``>``) first looks for that
character with ``str.find`` (:func:`_find`): text without it is passed at ``memchr`` speed, and
the regex walks only the window before each occurrence (a few of them, then on from there).
"""

from __future__ import annotations

import re
from typing import Any, Callable

from ..errors import ParseError

Value = Callable[[str, str], Any]

#: What a structural state does with text: refuse anything but whitespace, or ignore it all.
SPACE = "space"
IGNORE = "ignore"

#: The whitespace a ``lead_space`` state skips before its lead markers, at most.
LEAD_SPACE = 16
_SPACE = " \t\r\n"

#: What a ParseError quotes of the text it is about, at most (characters of the excerpt).
EXCERPT = 120


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """``repr(text)`` when it is short; else the repr of its first and last characters with
    the number left out between them: a bounded, one-line quotation of any text."""
    if len(text) <= limit:
        return repr(text)
    head, tail = limit * 2 // 3, limit // 3
    return f"{text[:head]!r} ... {len(text) - head - tail} characters ... {text[-tail:]!r}"


class Outcome:
    """What a recovering ``value`` made of a region's text: ``parts``, a list of ``(region,
    value)`` (``"content"`` text, ``"tool_calls"`` lists of calls, ``"reasoning_content"``
    text) in order, and ``notes``, a list of ``(kind, offset, detail)`` diagnostics with
    ``offset`` relative to the region's first character.  ``carry``: text the region gives
    the next state as the start of its own (whitespace before a call, which the call's value
    drops when the call reads and keeps as content when it does not: nothing is lost)."""

    __slots__ = ("parts", "notes", "carry")

    def __init__(self, parts: list[tuple[str, Any]], notes: list[tuple[str, int, str]],
                 carry: str = "") -> None:
        self.parts = parts
        self.notes = notes
        self.carry = carry


class State:
    """One state of a format's scanner (see the module docstring)."""

    __slots__ = ("name", "region", "markers", "leads", "lead_miss", "lead_space", "value", "eager",
                 "stray", "what", "notes", "pattern", "patterns", "closers", "table",
                 "longest", "tail")

    def __init__(self, name: str, region: str | None, *, markers: tuple[tuple[str, str, bool], ...] = (),
                 leads: tuple[tuple[str, str, bool], ...] = (), lead_miss: str | None = None,
                 lead_space: bool = False, value: Value | None = None, eager: bool = False,
                 stray: str = SPACE, what: str = "",
                 notes: dict[str, tuple[str, str]] | None = None) -> None:
        self.name = name
        self.region = region
        self.markers = markers
        self.leads = leads
        self.lead_miss = lead_miss
        self.lead_space = lead_space
        # marker -> (kind, detail): a diagnostic the recovering reading reports when the marker
        # ends this state (a drift it recovers from, such as <tool_call> inside reasoning).
        self.notes = notes or {}
        self.value = value
        self.eager = eager
        self.stray = stray
        self.what = what or name
        literals = sorted({m[0] for m in markers}, key=len, reverse=True)
        self.pattern = _alternation(literals) if literals else None
        # One alternation per first character (a single one when they all share it).
        groups: dict[str, list[str]] = {}
        for lit in literals:
            groups.setdefault(lit[0], []).append(lit)
        self.patterns = tuple(_alternation(g) for g in groups.values()) if len(groups) > 1 else ()
        # Each alternation's closing character (see _find), or None.
        self.closers = {p: _closer(g) for p, g in zip(self.patterns, groups.values())}
        if self.pattern is not None and not self.patterns:
            self.closers[self.pattern] = _closer(literals)
        self.table = {m[0]: (m[1], m[2]) for m in markers}
        self.longest = max((len(s) for s in literals), default=0)
        self.tail = _tail_pattern(literals)


def _alternation(literals: list[str]) -> re.Pattern[str]:
    """A regex matching any of ``literals`` (longest first), their common prefix written once
    so that ``re`` searches for it as a literal (``<|eo(?:t_id|>|m_id|>)``)."""
    prefix = literals[0]
    for lit in literals[1:]:
        while not lit.startswith(prefix):
            prefix = prefix[:-1]
    rests = "|".join(re.escape(lit[len(prefix):]) for lit in literals)
    return re.compile(re.escape(prefix) + ("(?:" + rests + ")" if len(literals) > 1 else ""))


def _tail_pattern(literals: list[str]) -> re.Pattern[str] | None:
    """A regex matching, at the end of a text, any proper prefix of one of ``literals``
    (for ``<|eot_id|>``: ``<``, ``<|``, ... ``<|eot_id|`` before the end): the leftmost match
    from where such a tail could start is the longest (see :func:`_held`)."""
    alternatives = []
    for lit in literals:
        if len(lit) < 2:
            continue
        rest = ""
        for ch in reversed(lit[1:-1]):
            rest = f"(?:{re.escape(ch)}{rest})?"
        alternatives.append(re.escape(lit[0]) + rest)
    return re.compile("(?:" + "|".join(alternatives) + ")\\Z") if alternatives else None


def _closer(literals: list[str]) -> tuple[str, int] | None:
    """``(c, longest)`` when every literal ends with the character ``c`` and holds it nowhere
    else (control tokens end so: ``>``, ``|>``, ``｜>``), else None (see :func:`_find`)."""
    c = literals[0][-1]
    if all(lit[-1] == c and c not in lit[:-1] for lit in literals):
        return c, max(len(lit) for lit in literals)
    return None


#: Occurrences of a closing character :func:`_find` tries before it searches on with the regex.
CLOSER_TRIES = 4
#: The text :func:`_find` leaves to the regex alone, shorter than this (the calls cost more).
CLOSER_MIN = 256


def _find(pattern: re.Pattern[str], closer: tuple[str, int] | None, buf: str, pos: int) -> Any:
    """``pattern.search(buf, pos)``, the same match, found sooner where the alternation has a
    closing character (:func:`_closer`).  Every match ends at an occurrence of it and holds no
    other, so matches end in the order they start: the first match is the first one found in
    the window that ends at an occurrence, the occurrences taken in order.  ``str.find`` of one
    character (``memchr``) skips text without any closing character far faster than the regex
    walks it (a near miss such as ``<|`` or ``<thi`` is a prefix of a marker, without its
    closing character); after :data:`CLOSER_TRIES` occurrences without a match the regex
    searches on after the last of them (text full of the character costs at most those tries
    more)."""
    if closer is None:
        return pattern.search(buf, pos)
    c, longest = closer
    i = pos
    for _ in range(CLOSER_TRIES):
        q = buf.find(c, i)
        if q < 0:
            return None
        m = pattern.search(buf, max(pos, q + 1 - longest), q + 1)
        if m is not None:
            return m
        i = q + 1
    return pattern.search(buf, i)  # (a match holds no closing character but its last)


def check_states(states: dict[str, State]) -> None:
    """Refuse a table the scanner cannot stream exactly: a marker that contains another marker
    of its state (the shorter one could complete first while the longer is still partial), a
    target that is not a state."""
    for st in states.values():
        lits = [m[0] for m in st.markers] + [m[0] for m in st.leads]
        markers = [m[0] for m in st.markers]
        leads = [m[0] for m in st.leads]
        for a in markers:
            for b in markers:
                if a != b and b in a:
                    raise AssertionError(f"state {st.name}: marker {b!r} is inside {a!r}")
        for a in leads:  # leads are matched where the state begins: none may begin another
            for b in leads:
                if a != b and a.startswith(b):
                    raise AssertionError(f"state {st.name}: lead {b!r} begins {a!r}")
        for _, target, _ in st.markers + st.leads:
            if target not in states:
                raise AssertionError(f"state {st.name}: no state {target!r}")
        if st.leads and st.lead_miss not in states:
            raise AssertionError(f"state {st.name}: lead_miss {st.lead_miss!r}")
        for lit in st.notes:
            if lit not in st.table:
                raise AssertionError(f"state {st.name}: a note for {lit!r}, which is no marker")


def _held(buf: str, pos: int, st: State) -> int:
    """The length of the longest tail of ``buf[pos:]`` that is a proper prefix of a marker of
    ``st`` (what rule 3 holds back)."""
    if st.tail is None:
        return 0
    m = st.tail.search(buf, max(pos, len(buf) - st.longest + 1))
    return len(buf) - m.start() if m is not None else 0


class Scanner:
    """The streaming state machine over one completion (the format's table, ``start`` state)."""

    def __init__(self, fmt: str, states: dict[str, State], start: str,
                 on_close: Callable[[str, Any], Any]) -> None:
        self.fmt = fmt
        self.states = states
        self.state = states[start]
        self.fresh = True  # no text of the current state seen yet (lead markers still count)
        self.opened = False
        self.pieces: list[str] = []
        self.buf = ""
        self.offset = 0  # completion offset of buf[0] (negative inside the prefix)
        self.on_close = on_close
        self.work = 0
        self.events: list[dict[str, Any]] = []
        self.done = False
        self.carry = ""  # text the state left gives the next (Outcome.carry)
        self.at = 0  # completion offset of the current state's first character
        self.diagnostics: list[dict[str, Any]] = []
        self._found: dict[Any, Any] = {}  # pattern -> its last match in this chunk's buffer
        # The tiling (rule 7): (start, end, kind, what) in completion offsets, kind "marker"
        # (what: the literal), "region" (what: (region, raw, value)), "space" or "ignored".
        self.spans: list[tuple[int, int, str, Any]] = []
        self.report_ignored = False  # the recovering reading: text ignored is a diagnostic
        self._ignored_seen = False

    def _search(self, st: State, buf: str, pos: int) -> Any:
        """The earliest marker of ``st`` in ``buf`` from ``pos`` (a regex match, or None)."""
        # (short text: the regex alone, _find's calls cost more than they save)
        short = len(buf) - pos < CLOSER_MIN
        if not st.patterns:
            if st.pattern is None:
                return None
            if short:
                return st.pattern.search(buf, pos)
            return _find(st.pattern, st.closers[st.pattern], buf, pos)
        best = None
        found = self._found
        closers = st.closers
        for p in st.patterns:
            if p in found:
                m = found[p]
                if m is not None and m.start() < pos:
                    m = found[p] = p.search(buf, pos) if short else _find(p, closers[p], buf, pos)
            else:
                m = found[p] = p.search(buf, pos) if short else _find(p, closers[p], buf, pos)
            if m is not None and (best is None or m.start() < best.start()):
                best = m
        return best

    # -- regions

    def note(self, kind: str, offset: int, detail: str) -> None:
        """Report a recovery (a diagnostic) at completion offset ``offset``."""
        self.diagnostics.append({"kind": kind, "offset": offset, "detail": detail})

    def _enter(self, name: str, at: int) -> None:
        st = self.states[name]
        self.state = st
        self.fresh = True
        self.opened = False
        carry, self.carry = self.carry, ""
        self.pieces = [carry] if carry else []
        self.at = at - len(carry)
        self._ignored_seen = False
        if st.region is not None and st.eager:
            self.opened = True
            self.events.append({"type": "region_open", "field": st.region})

    def _leave(self, marker: str, at: int) -> None:
        st = self.state
        if marker in st.notes:
            kind, detail = st.notes[marker]
            self.note(kind, at, detail)
        if st.region is None or not self.opened:
            return
        raw = "".join(self.pieces)
        value = st.value(raw, marker) if st.value is not None else raw
        self.opened = False
        self.spans.append((self.at, at, "region", (st.region, raw, value)))
        if not isinstance(value, Outcome):
            value = self.on_close(st.region, value)
            self.events.append({"type": "region_close", "field": st.region, "value": value})
            return
        for kind, offset, detail in value.notes:
            self.note(kind, self.at + offset, detail)
        self.carry = value.carry
        own = [v for region, v in value.parts if region == st.region]
        # The region closes with what it kept of its own kind (None: nothing), then each part
        # of another kind is a region of its own.
        closing: Any = None
        if own:
            closing = self.on_close(st.region, own[0] if len(own) == 1 else own)
        self.events.append({"type": "region_close", "field": st.region, "value": closing})
        for region, v in value.parts:
            if region == st.region:
                continue
            self.events.append({"type": "region_open", "field": region})
            if isinstance(v, str) and v:
                self.events.append({"type": "region_chunk", "field": region, "text": v,
                                    "dirty": False})
            self.events.append({"type": "region_close", "field": region,
                                "value": self.on_close(region, v)})

    def _text(self, text: str, at: int) -> None:
        if not text:
            return
        st = self.state
        self.fresh = False
        if st.region is None:
            if st.stray == SPACE and not text.isspace():
                # The first character only: a chunk may end anywhere, and the message must
                # read the same however the completion was split.
                lead = len(text) - len(text.lstrip())
                where = self.offset + at + lead
                place = f"at offset {where} of the completion" if where >= 0 else "in the prefix"
                raise ParseError(
                    f"{self.fmt}: unexpected text starting with {text[lead]!r} {place} ({st.what})"
                )
            where = self.offset + at
            ignored = st.stray != SPACE and not text.isspace()
            self.spans.append((where, where + len(text), "ignored" if ignored else "space", text))
            if ignored and self.report_ignored and not self._ignored_seen:
                self._ignored_seen = True
                lead = len(text) - len(text.lstrip())
                self.note("after-end", where + lead, "text after the end of the turn is not "
                                                      "part of the message")
            return
        if not self.opened:
            self.opened = True
            self.events.append({"type": "region_open", "field": st.region})
        self.pieces.append(text)
        self.events.append({"type": "region_chunk", "field": st.region, "text": text,
                            "dirty": st.region == "tool_calls"})

    # -- the scan

    def run(self, chunk: str, eos: bool) -> list[dict[str, Any]]:
        """Scan ``chunk`` (appended to what was held back); at ``eos``, close the last region.
        Returns the events produced."""
        self.events = []
        buf = self.buf + chunk if chunk else self.buf
        self._found = {}
        pos = 0
        while True:
            st = self.state
            if st.leads and self.fresh:
                skip = 0
                # A lead that itself begins with whitespace (GLM's "\n<think>") is tried where
                # the state begins, before any whitespace is skipped.
                if st.lead_space and not any(lit[0] in _SPACE and buf.startswith(lit, pos)
                                             for lit, _, _ in st.leads):
                    limit = min(len(buf), pos + LEAD_SPACE)
                    while pos + skip < limit and buf[pos + skip] in _SPACE:
                        skip += 1
                at = pos + skip
                rest = len(buf) - at
                hit = None
                # Only whitespace so far, and room for more: a lead may still follow.
                pending = st.lead_space and not eos and rest == 0 and skip < LEAD_SPACE
                for lit, target, keep in st.leads:
                    if buf.startswith(lit, at):
                        hit = (lit, target, keep)
                        break
                    if not eos and rest < len(lit) and lit.startswith(buf[at:]):
                        pending = True
                self.work += min(rest, 16) + skip + 1
                if hit is not None:
                    lit, target, keep = hit
                    where = self.offset + at
                    if target == st.name:  # a duplicate opener: drop it, stay
                        self.note("duplicate-opener", where,
                                  f"{lit!r} inside the block it opens, dropped")
                        if self.pieces:  # the region holds text already: the space is its own
                            self._text(buf[pos:at], pos)
                        else:
                            # The region begins after the dropped opener, the whitespace before
                            # it is space between the two: the spans stay in order, each
                            # character in one of them.
                            if skip:
                                self.spans.append((where - skip, where, "space", buf[pos:at]))
                            self.at = where + len(lit)
                        self.spans.append((where, where + len(lit), "marker", lit))
                        pos = at + len(lit)
                        self.fresh = False
                        continue
                    if skip:
                        self.note("space-before-opener", where,
                                  f"whitespace before {lit!r} dropped")
                        self.spans.append((where - skip, where, "space", buf[pos:at]))
                    self._leave(lit, where)
                    if not keep:
                        self.spans.append((where, where + len(lit), "marker", lit))
                    self._enter(target, where if keep else where + len(lit))
                    pos = at if keep else at + len(lit)
                    continue
                if pending:
                    break
                assert st.lead_miss is not None
                if st.lead_miss != st.name:
                    self._enter(st.lead_miss, self.offset + pos)
                self.fresh = False  # the lead was decided: the new state's leads are past
                continue
            m = self._search(st, buf, pos)
            self.work += (m.end() if m is not None else len(buf)) - pos + 1
            if m is not None:
                self._text(buf[pos:m.start()], pos)
                lit = m.group()
                target, keep = st.table[lit]
                self._leave(lit, self.offset + m.start())
                if not keep:
                    self.spans.append((self.offset + m.start(), self.offset + m.end(), "marker",
                                       lit))
                self._enter(target, self.offset + (m.start() if keep else m.end()))
                pos = m.start() if keep else m.end()
                continue
            if eos:
                self._text(buf[pos:], pos)
                pos = len(buf)
                self._leave("", self.offset + pos)
                break
            hold = _held(buf, pos, st)
            self._text(buf[pos:len(buf) - hold], pos)
            pos = len(buf) - hold
            break
        self.offset += pos
        self.buf = buf[pos:]
        return self.events
