"""Nothing is lost: every character of a completion is accounted for by the parse.

The law (docs/parsing.md, "Nothing is lost"), for every format with a parser, both readings,
one-shot and streamed, on rendered turns, on rendered turns with a drift injected, and on
arbitrary strings built from the format's control strings and free text:

1. **A tiling.** :attr:`ResponseParser.spans` covers the completion from its first character to
   its last, in order, without a hole: each character is in a marker (a control string the
   grammar has), a region's text, the whitespace between structures, or text ignored after the
   end of the turn.
2. **Ignored text is reported.** Text after the end of the turn that is not whitespace is an
   ``after-end`` diagnostic of the recovering reading (the exact reading declares it not part of
   the message, docs/parsing.md).
3. **Each region's text is in its value.** The pieces of the region's value (a text; each tool
   call's name, its arguments as written or a JSON value whose text appears, each argument's
   key and value; the content a recovery kept) are located, without overlap, in the region's
   text; what is left is only whitespace and the grammar's declared syntax
   (:func:`chatformats.parsing.syntax`: its control strings and the envelope of its calls, such
   as ``"name"`` and ``:``).  A plain text value must be one contiguous piece.
4. **The values are the message.** The values of the regions, in order, joined per field, are
   the returned message's content, reasoning and tool calls.

So a character can only leave the message as part of a declared token or as whitespace.  What
the law does not prove: that whitespace inside a text survives (whitespace is syntax in every
format's trims), and that the pieces are where the parser took them from (a piece is located at
its first free occurrence, which may be an equal text elsewhere in the region).
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chatformats
from chatformats import ParseError, ResponseParser
from chatformats.parsing import family, syntax
from chatformats.parsing._scan import Outcome

from . import budget
from . import test_parse as tp

FORMATS = [name for name in chatformats.formats() if chatformats.get_format(name).grammar]

_DECODER = json.JSONDecoder()


class Loss(AssertionError):
    """A character of the completion the parse does not account for."""


# ------------------------------------------------------------------ locating pieces


class Region:
    """A region's text and the characters of it claimed so far."""

    def __init__(self, raw: str, tokens: tuple[str, ...], names_in_ids: bool = False) -> None:
        self.raw = raw
        self.tokens = tokens
        # the grammar writes a call's name inside its id (Kimi's functions.NAME:K: the canonical
        # fact ids "positional"), and nowhere else
        self.names_in_ids = names_in_ids
        self.claimed = [False] * len(raw)

    def free(self, i: int, j: int) -> bool:
        return not any(self.claimed[i:j])

    def claim(self, i: int, j: int) -> None:
        for k in range(i, j):
            self.claimed[k] = True

    def find(self, piece: str, whole: bool) -> int | None:
        """Where ``piece`` first occurs unclaimed (``whole``: bounded by syntax too), or None."""
        start = self.raw.find(piece)
        while start >= 0:
            end = start + len(piece)
            if self.free(start, end) and (not whole or self.bounded(start, end)):
                return start
            start = self.raw.find(piece, start + 1)
        return None

    def text(self, piece: str, passes: tuple[bool, ...] = (True, False)) -> bool:
        """Claim ``piece`` where it first occurs unclaimed (or the whole text, where the piece
        holds all of it: a recovery that kept the opener and closer too)."""
        return self.first((piece,), passes)

    def first(self, pieces: tuple[str, ...], passes: tuple[bool, ...] = (True, False)) -> bool:
        """Claim the leftmost unclaimed occurrence of any of ``pieces`` (the spellings of one
        value: a value is read where it is written first, not where another call's text happens
        to spell it), bounded by syntax first."""
        if "" in pieces:
            return True
        # An occurrence bounded by syntax first (a name "a" is not the "a" of "name").
        for whole in passes:
            found = [(at, -len(p), p) for p in pieces if (at := self.find(p, whole)) is not None]
            if found:
                at, _, piece = min(found)
                self.claim(at, at + len(piece))
                return True
        if False in passes and self.raw and any(self.raw in piece for piece in pieces):
            self.claim(0, len(self.raw))
            return True
        return False

    def bounded(self, i: int, j: int) -> bool:
        """``raw[i:j]`` is preceded and followed by the region's edge, whitespace, a claimed
        character or a syntax token."""
        raw, claimed = self.raw, self.claimed
        before = (i == 0 or raw[i - 1].isspace() or claimed[i - 1]
                  or any(raw.endswith(t, 0, i) for t in self.tokens))
        after = (j == len(raw) or raw[j].isspace() or claimed[j]
                 or any(raw.startswith(t, j) for t in self.tokens))
        return before and after

    def split_text(self, piece: str) -> None:
        """Claim ``piece`` as consecutive fragments, each the longest prefix of what is left that
        occurs unclaimed after the last (recovered content joined from several stretches)."""
        at = 0
        while piece:
            best = None
            for k in range(len(piece), 0, -1):
                i = self.raw.find(piece[:k], at)
                while i >= 0 and not self.free(i, i + k):
                    i = self.raw.find(piece[:k], i + 1)
                if i >= 0:
                    best = (i, k)
                    break
            if best is None:
                return
            i, k = best
            self.claim(i, i + k)
            at, piece = i + k, piece[k:]

    def value(self, target: Any) -> bool:
        """Claim a JSON text (or a Python literal's) in the region that reads as ``target``."""
        raw = self.raw
        for i, c in enumerate(raw):
            if c not in '{["-0123456789tfnNTF' or self.claimed[i]:
                continue
            try:
                got, end = _DECODER.raw_decode(raw, i)
            except ValueError:
                continue
            if _same(got, target) and self.free(i, end):
                self.claim(i, end)
                return True
        return False

    def scalar(self, target: Any) -> bool:
        """A value as text (``str``), as its JSON text, or as its Python spelling."""
        spellings = ([target] if isinstance(target, str) else []) + [
            json.dumps(target, ensure_ascii=False), json.dumps(target), repr(target)]
        for passes in ((True,), (False,)):  # bounded by syntax anywhere first
            if self.first(tuple(spellings), passes):
                return True
        if self.value(target):
            return True
        return isinstance(target, str) and target.strip() != target and self.text(target.strip())

    def mapping(self, target: Any) -> None:
        """A mapping as a JSON text, else each key and value (an empty one is not searched
        for: its text, if any, is syntax)."""
        if target in ({}, []) or self.value(target):
            return
        if isinstance(target, dict):
            for key, v in target.items():
                self.scalar(key)
                if isinstance(v, (dict, list)):
                    self.mapping(v)
                else:
                    self.scalar(v)
        elif isinstance(target, list):
            for v in target:
                self.mapping(v) if isinstance(v, (dict, list)) else self.scalar(v)
        else:
            self.scalar(target)

    def call(self, call: Any) -> None:
        fn = call["function"]
        args = fn["arguments"]
        # A string of arguments as written, or as the JSON string written, first: a short id
        # or name may spell a piece of it ("null" in '{"a": null}').
        whole = isinstance(args, str) and self.scalar(args)
        if "id" in call:  # before the name: an id may hold the name (Kimi's functions.NAME:K)
            self.scalar(call["id"])
        if not (self.names_in_ids and "id" in call and isinstance(call["id"], str)
                and fn["name"] in call["id"]):
            self.scalar(fn["name"])
        if isinstance(args, str):
            if not whole:
                self.mapping(json.loads(args)) if _json(args) else self.split_text(args)
        else:
            self.mapping(args)
        for key, v in fn.items():
            if key not in ("name", "arguments"):
                self.scalar(key)
                self.mapping(v)

    def left(self) -> list[str]:
        """The unclaimed stretches."""
        out, run = [], []
        for c, taken in zip(self.raw, self.claimed):
            if taken:
                if run:
                    out.append("".join(run))
                run = []
            else:
                run.append(c)
        if run:
            out.append("".join(run))
        return out


def _json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b or (isinstance(a, (int, float)) and not isinstance(a, bool)
                                             and isinstance(b, (int, float)) and a == b)


def tokenizes(gap: str, tokens: tuple[str, ...]) -> bool:
    """``gap`` is whitespace (``str.isspace``: what the grammars' trims remove, as Jinja's
    ``trim`` does) and ``tokens`` only (any segmentation)."""
    n = len(gap)
    ok = [False] * (n + 1)
    ok[n] = True
    for i in range(n - 1, -1, -1):
        if gap[i].isspace() and ok[i + 1]:
            ok[i] = True
            continue
        ok[i] = any(gap.startswith(t, i) and ok[i + len(t)] for t in tokens)
    return ok[0]


# ------------------------------------------------------------------ the law


def _parts(region: str, value: Any) -> list[tuple[str, Any]]:
    """A region's values in the order the parser gives them to the message (``_scan._leave``:
    the region's own kind first, then the others)."""
    if not isinstance(value, Outcome):
        return [(region, value)]
    own = [v for r, v in value.parts if r == region]
    return [(region, v) for v in own] + [(r, v) for r, v in value.parts if r != region]


_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def quoted(diagnostics: list[dict[str, Any]]) -> tuple[str, ...]:
    """The texts the diagnostics quote (as ``repr`` writes a ``str``): what a recovery reports
    it read."""
    out = []
    for d in diagnostics:
        for m in _QUOTED.finditer(d["detail"]):
            try:
                text = ast.literal_eval(m.group())
            except (ValueError, SyntaxError):
                continue
            if isinstance(text, str) and text:
                out.append(text)
    return tuple(out)


def check(name: str, completion: str, parser: ResponseParser, message: Any) -> None:
    """The law (module docstring) for one parse of ``completion``."""
    declared = syntax(name)
    tokens = declared + quoted(message.diagnostics)
    names_in_ids = tp.facts_of(name)["ids"] == "positional"
    spans = [s for s in parser.spans if s[1] > 0 or s[0] >= 0 and s[1] > s[0]]
    # 1. a tiling of the completion
    reached = 0
    for start, end, kind, what in spans:
        if start > max(reached, 0):
            raise Loss(f"{completion[reached:start]!r} at {reached} is in no span")
        reached = max(reached, end)
        if kind == "marker" and what not in declared:
            raise Loss(f"marker {what!r} is not declared syntax")
    if reached < len(completion):
        raise Loss(f"{completion[reached:]!r} at {reached} is in no span")
    content: list[str] = []
    reasoning: list[str] = []
    calls: list[Any] = []
    for start, end, kind, what in parser.spans:
        if kind == "ignored":
            # 2. ignored text is reported
            if not parser.strict:
                lead = len(what) - len(what.lstrip())
                assert any(d["kind"] == "after-end" and d["offset"] <= start + lead
                           for d in message.diagnostics), (what, message.diagnostics)
            continue
        if kind != "region":
            continue
        field, raw, value = what
        region = Region(raw, tokens, names_in_ids)
        parts = _parts(field, value)
        # The texts first (longer and more particular than a call's pieces), then the calls.
        for part, v in parts:
            if part == "tool_calls":
                calls.extend(v if isinstance(v, list) else [v])
                continue
            (content if part == "content" else reasoning).append(v)
            if not isinstance(value, Outcome):
                # 3. a plain text value is one piece of its text, less whitespace round it
                at = raw.find(v)
                if at < 0 or raw[:at].strip() or raw[at + len(v):].strip():
                    raise Loss(f"{field} value {v!r} is not its text {raw!r} less whitespace")
                region.claim(at, at + len(v))
            elif not region.text(v):
                region.split_text(v)
        for part, v in parts:
            if part == "tool_calls":
                for call in (v if isinstance(v, list) else [v]):
                    region.call(call)
        # 3. what the values do not hold is declared syntax
        for gap in region.left():
            if start >= 0 and not tokenizes(gap, tokens):
                raise Loss(f"{gap!r} of {field} text {raw!r} is in no value and no syntax "
                           f"(values: {_parts(field, value)!r})")
    # 4. the values are the message
    assert message["content"] == "".join(content)
    assert message.get("reasoning_content", "") == "".join(reasoning)
    assert message.get("tool_calls", []) == calls


def parse_both(name: str, prefix: str, completion: str, cuts: list[int], strict: bool) -> None:
    """The law one-shot and streamed (``cuts``), one reading."""
    results = []
    for chunks in ([completion], tp.chunked(completion, cuts)):
        parser = ResponseParser(name, prefix=prefix, strict=strict)
        try:
            for chunk in chunks:
                parser.feed(chunk)
            message = parser.close()
        except ParseError as exc:
            assert strict, exc  # the recovering reading reads every completion
            results.append(str(exc))
            continue
        check(name, completion, parser, message)
        results.append((dict(message), message.diagnostics))
    assert results[0] == results[1]


# ------------------------------------------------------------------ inputs


def markers(name: str) -> tuple[str, ...]:
    return tuple(sorted(set(tp.CONTROL[family(name)]) | set(syntax(name)), key=str))


@st.composite
def drifted(draw: st.DrawFn, name: str) -> tuple[str, str]:
    """(prefix, completion): a rendered turn with one drift injected — a control string or free
    text inserted (text round a call, whitespace before an opener, a duplicate opener), a
    control string deleted (a missing closer or opener, a call without its wrapper), the
    arguments key renamed, one character deleted (malformed JSON), or the turn cut short."""
    prefix, completion, _, _ = draw(tp.case(name, calls=draw(st.integers(0, 2))))
    kind = draw(st.sampled_from(["insert", "delete", "parameters", "char", "cut"]))
    marks = markers(name)
    at = draw(st.integers(0, len(completion)))
    if kind == "insert":
        piece = draw(st.one_of(st.sampled_from(marks), st.sampled_from(tp.NEAR),
                               st.sampled_from(tp.FRAGMENTS), st.text(max_size=6)))
        return prefix, completion[:at] + piece + completion[at:]
    if kind == "delete":
        present = [m for m in marks if m in completion]
        if not present:
            return prefix, completion
        mark = draw(st.sampled_from(present))
        where = [i for i in range(len(completion)) if completion.startswith(mark, i)]
        i = draw(st.sampled_from(where))
        return prefix, completion[:i] + completion[i + len(mark):]
    if kind == "parameters":
        return prefix, completion.replace('"arguments"', '"parameters"', 1)
    if kind == "char":
        return prefix, completion[:at] + completion[at + 1:]
    return prefix, completion[:at]


@st.composite
def rendered(draw: st.DrawFn, name: str) -> tuple[str, str]:
    prefix, completion, _, _ = draw(tp.case(name, calls=draw(st.integers(0, 2))))
    return prefix, completion


@st.composite
def arbitrary(draw: st.DrawFn, name: str) -> tuple[str, str]:
    return draw(st.sampled_from(tp.PREFIXES[family(name)])), draw(tp.any_completion(name))


CUTS = st.lists(st.integers(0, 10_000), max_size=6)


@pytest.mark.parametrize("name", FORMATS)
# Sized for the module's budget: about 40 s of CPU under ``ci`` for the 29 formats.
@settings(max_examples=budget.per_format(240), deadline=None)
@given(data=st.data())
def test_nothing_lost(name: str, data: st.DataObject) -> None:
    """The law (module docstring) on rendered turns, drifted turns and arbitrary strings."""
    source = data.draw(st.sampled_from([rendered, drifted, arbitrary, arbitrary]))
    prefix, completion = data.draw(source(name))
    cuts = data.draw(CUTS)
    for strict in (False, True):
        parse_both(name, prefix, completion, cuts, strict)


@settings(max_examples=budget.per_format(200), deadline=None)
@given(name=st.sampled_from(FORMATS), prefix=st.just(""), completion=st.text(max_size=40),
       cuts=CUTS)
# Regressions the law found, each a loss it caught (docs/parsing.md, "Nothing is lost"):
# an XML call's text outside its parameters was dropped (here "<|im_start|>", "hello", "bye");
@example(name="minicpm-v-4.6-thinking", prefix="", completion="<function=<think><|im_start|>",
         cuts=[])
# a name was read up to the ">" of the "</function>" the spans called the call's closer;
@example(name="qwen3-coder", prefix="", completion="\n<function=<</function>", cuts=[])
# the whitespace before a duplicate opener was the region's text while the opener's marker sat
# inside the region's span (spans out of order);
@example(name="qwen3-instruct-2507-2025-07", prefix="<|im_start|>assistant\n", cuts=[3],
         completion="<think>\n\n<think>\n\n<|im_end|>\n")
# stray text before a call's closer and after it were joined into one content text that is
# nowhere in the completion ("<" and "/function>" read as "</function>");
@example(name="qwen3-coder-2025-07", prefix="<|im_start|>assistant\n", cuts=[],
         completion="<tool_call>\n<function=search>\n<parameter=search>\nNone\n</parameter>\n"
                    "<</function>/function>\n</tool_call>\n<tool_call>\n<function=search>\n"
                    "</function>\n</tool_call><|im_end|>\n")
@example(name="qwen3-coder", prefix="", cuts=[20],
         completion="<tool_call>\n<function=f>\nhello<parameter=a>\n1\n</parameter>\nbye\n"
                    "</function>\n</tool_call>")
# "parameters" beside "arguments" was dropped from the function;
@example(name="llama-3.2-vision", prefix="", cuts=[],
         completion='{"name": "f", "arguments": {}, "parameters": {"a": 1}}')
# a key given twice kept its last value and dropped the others without a word (JSON, and the
# XML and GLM arguments);
@example(name="qwen3-tool-agent", prefix="", cuts=[],
         completion='<tool_call>\n{"name": "f", "arguments": {"a": 1}, "arguments": {"b": 2}}'
                    '\n</tool_call>')
@example(name="qwen3-tool-agent", prefix="", cuts=[],
         completion='<tool_call>\n{"name": "f", "name": "g", "arguments": {}}\n</tool_call>')
@example(name="glm-4.5", prefix="", cuts=[30],
         completion="<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n"
                    "<arg_key>a</arg_key>\n<arg_value>2</arg_value>\n</tool_call>")
@example(name="qwen3-coder", prefix="", cuts=[],
         completion="<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n"
                    "<parameter=a>\n2\n</parameter>\n</function>\n</tool_call>")
# a gpt-oss recipient holding "functions." twice lost what followed the second;
@example(name="gpt-oss", prefix="<|start|>assistant", cuts=[],
         completion="  to=functions.to=functions.search<|channel|>commentary json<|message|>{}"
                    "<|call|>")
# text after the end of the turn was ignored without a report.
@example(name="qwen3-tool-agent", prefix="", completion="answer<|im_end|>\nmore", cuts=[17])
@example(name="gpt-oss", prefix="", completion="<|channel|>final<|message|>a<|return|>b", cuts=[])
# a call header's content type other than json was dropped (here "<"; now a content-type diagnostic)
@example(name="gpt-oss", prefix="", completion='{"name": <<|channel|>analysis<|message|>', cuts=[])
# the locator's own regressions: a name equal to its call's id was taken to be written inside it
# (as Kimi writes names), so the name's own text was left over;
@example(name="cogito", prefix="<|start_header_id|>assistant<|end_header_id|>\n\n", cuts=[],
         completion='[{"name": "search", "arguments": {}}, {"name": "search", "arguments": {}}, '
                    '{"name": "b", "arguments": {}, "id": "b"}]<|eot_id|>')
# an id ("null") was located inside the call's string of arguments, written after it;
@example(name="cogito", prefix="<|start_header_id|>assistant<|end_header_id|>\n\n", cuts=[],
         completion='[{"name": "search", "arguments": "{\\"search\\": null}", "id": "null"}]'
                    '<|eot_id|>')
# a string argument written as a JSON string in the first call and
# as its text in the second is read where it is written first
@example(name="kimi-k2", prefix="<|im_assistant|>assistant<|im_middle|>", cuts=[],
         completion='<|tool_calls_section_begin|><|tool_call_begin|>functions.search:0'
                    '<|tool_call_argument_begin|>"{\\"limit\\": [false, {\\"<\\": 0.0}, {}]}"'
                    '<|tool_call_end|><|tool_call_begin|>functions.search:1<|tool_call_argument_begin|>'
                    '{"limit": [false, {"<": 0.0}, {}]}<|tool_call_end|><|tool_calls_section_end|><|im_end|>')
def test_nothing_lost_on_text(name: str, prefix: str, completion: str, cuts: list[int]) -> None:
    """The law on any text, and on the regressions it found."""
    for strict in (False, True):
        parse_both(name, prefix, completion, cuts, strict)


# ------------------------------------------------------------------ the law can fail


def test_the_law_catches_a_dropped_character() -> None:
    """A parser that drops a character of a region (here: its value is the text less its last
    character) fails the law."""
    name = "qwen3-tool-agent"
    completion = "<think>\nplan\n</think>\n\nanswer<|im_end|>"
    parser = ResponseParser(name, prefix="")
    parser.feed(completion)
    message = parser.close()
    check(name, completion, parser, message)
    start, end, kind, (field, raw, value) = parser.spans[3]
    assert field == "content"
    parser.spans[3] = (start, end, kind, (field, raw, value[:-1]))
    message["content"] = message["content"][:-1]
    with pytest.raises(Loss):
        check(name, completion, parser, message)


def test_the_law_catches_an_unreported_span() -> None:
    """A hole in the tiling (text the scan passed without recording) fails the law."""
    name = "qwen3-tool-agent"
    completion = "answer<|im_end|>tail"
    parser = ResponseParser(name, prefix="")
    parser.feed(completion)
    message = parser.close()
    check(name, completion, parser, message)
    del parser.spans[-1]
    with pytest.raises(Loss):
        check(name, completion, parser, message)
