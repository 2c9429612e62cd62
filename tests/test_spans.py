"""The laws of spans, for every format at both layers (``render_spans`` and
``apply_chat_template_spans``), on the shared strategies' inputs:

1. **The text is the plain call's**: ``.text`` equals ``render(...)`` /
   ``apply_chat_template(...)`` (a list of renderings for a batch), or both fail with the same
   error class and message.
2. **Spans tile the text**: contiguous, non-empty, from 0 to ``len(text)``; the assistant ranges
   are ordered, disjoint and inside the text.
3. **A sourced span comes from its source**: its path names a value the template received
   (resolved here by a path parser of its own: in the caller's ``messages`` and variables at the
   template layer; at the pipeline layer in the values transformers itself handed the template,
   caught as it renders), and the span's text is a substring of that value (a string), or exactly
   its JSON (``json.dumps(v, ensure_ascii=False)``, or with an ``indent`` the template's
   ``tojson`` uses) or the start of it (a template that slices the JSON, as Cogito's
   ``out[:-1]``), or a substring of ``str(v)`` (``{{ v }}`` of a non-string, which a template may
   trim or split like a string: MiniCPM-V joins a content's text parts, then splits them).
4. **An unsourced span is template text**: it can be cut into whole literals of the template
   (jinja2's ``TemplateData`` and string ``Const`` nodes of the reference template parsed in
   transformers' environment, and the dates its ``strftime_now`` formats give at the test's
   clock).

With ``continue_final_message`` the rendering is cut inside its last span, so that span need only
be the start of a text that satisfies 3 or 4.  Every format runs every law.
"""

from __future__ import annotations

import ast
import contextlib
import json
from functools import lru_cache
from typing import Any, Iterator

import pytest
from hypothesis import example, given, note, settings
from hypothesis.errors import InvalidArgument
from hypothesis import strategies as st
from jinja2 import nodes

import chatformats
from chatformats import ChatFormatError

from . import budget
from . import fuzz, jinja_env
from . import strategies as s
from . import transformers_oracle
from .oracle import FIXED_NOW
from .test_pipeline import call_arguments

FORMATS = chatformats.formats()

#: Examples per format under the ``ci`` profile (the profile's own count otherwise): the pipeline
#: layer's examples also render with transformers (to catch the values the template received).
from .conftest import ci_profile  # noqa: E402

_CI = ci_profile()
PER_FORMAT = budget.per_format(150)
PER_FORMAT_PIPELINE = budget.per_format(100)


#: Every format (each port records spans).
RECORDED = FORMATS


# ------------------------------------------------------------------ paths


def parse_path(path: str) -> list[Any]:
    """``messages[2].tool_calls[0].function.arguments`` -> ``["messages", 2, "tool_calls", 0,
    "function", "arguments"]``: a root name, then ``.name`` (an identifier) or ``[key]`` (an
    integer or a Python string literal) steps."""
    steps: list[Any] = []
    i, n = 0, len(path)

    def identifier(i: int) -> tuple[str, int]:
        j = i
        while j < n and (path[j].isalnum() or path[j] == "_"):
            j += 1
        assert j > i and path[i:j].isidentifier(), f"no name at {i} in {path!r}"
        return path[i:j], j

    root, i = identifier(0)
    steps.append(root)
    while i < n:
        if path[i] == ".":
            name, i = identifier(i + 1)
            steps.append(name)
        elif path[i] == "[":
            j = i + 1
            if j < n and path[j] in "'\"":  # a string literal: to its closing quote
                quote, j = path[j], j + 1
                while path[j] != quote:
                    j += 2 if path[j] == "\\" else 1
                j += 1
            else:
                while path[j] != "]":
                    j += 1
            steps.append(ast.literal_eval(path[i + 1:j]))
            assert path[j] == "]", f"unclosed [ in {path!r}"
            i = j + 1
        else:
            raise AssertionError(f"unexpected {path[i]!r} at {i} in {path!r}")
    return steps


def resolve(path: str, roots: dict[str, Any]) -> list[Any]:
    """The values ``path`` may name among ``roots`` (the template's variables, ``messages``
    among them); a path that names nothing fails the test.

    A step is what the template's own access or loop gives: ``.name`` and ``["key"]`` a
    mapping's value; ``[i]`` the i-th item a ``for`` loop gives (a list's or tuple's item, a
    string's character, a mapping's key), or, on a mapping with an integer key ``i``, that key's
    value: both are candidates then."""
    steps = parse_path(path)
    assert steps[0] in roots, f"{path}: no variable {steps[0]!r}"
    values = [roots[steps[0]]]
    for step in steps[1:]:
        below = []
        for value in values:
            if type(value) is dict and step in value:
                below.append(value[step])
            if type(step) is int and type(value) in (list, tuple, str, dict) and 0 <= step < len(value):
                below.append(list(value)[step] if type(value) is dict else value[step])
        assert below, f"{path}: no {step!r} in {values!r}"
        values = below
    return values


# ------------------------------------------------------------------ template literals


@lru_cache(maxsize=None)
def template_literals(name: str) -> tuple[dict[str, tuple[str, ...]], frozenset[int | None]]:
    """The reference template's text pieces, by first character (``TemplateData`` and string
    ``Const`` nodes, the ``strftime_now`` dates at :data:`FIXED_NOW`, and the digits where it
    writes ``loop.index0|string`` or ``loop.index|string``), and the indents its
    ``tojson`` filters use (``None`` for none)."""
    tree = jinja_env.parse(chatformats.get_format(name).template_file)
    literals: set[str] = set()
    indents: set[int | None] = {None}
    for node in tree.find_all((nodes.TemplateData, nodes.Const, nodes.Call, nodes.Filter)):
        if isinstance(node, nodes.TemplateData):
            literals.add(node.data)
        elif isinstance(node, nodes.Const) and isinstance(node.value, str):
            literals.add(node.value)
        elif isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name) \
                and node.node.name == "strftime_now":
            for arg in node.args:
                assert isinstance(arg, nodes.Const), "strftime_now with a computed format"
                literals.add(FIXED_NOW.strftime(arg.value))
        elif isinstance(node, nodes.Filter) and node.name == "string" \
                and isinstance(node.node, nodes.Getattr) and isinstance(node.node.node, nodes.Name) \
                and node.node.node.name == "loop" and node.node.attr in ("index", "index0"):
            # ``loop.index0|string``: a number the template writes itself (Kimi K2's tool-call
            # ids), its digits the template's text
            literals.update("0123456789")
        elif isinstance(node, nodes.Filter) and node.name == "tojson":
            for kwarg in node.kwargs:
                if kwarg.key == "indent":
                    assert isinstance(kwarg.value, nodes.Const)
                    indents.add(kwarg.value.value)
    by_first: dict[str, list[str]] = {}
    for literal in literals:
        if literal:
            by_first.setdefault(literal[0], []).append(literal)
    return {k: tuple(v) for k, v in by_first.items()}, frozenset(indents)


@lru_cache(maxsize=4096)
def cut_into_literals(name: str, text: str, partial_end: bool) -> bool:
    """Whether ``text`` is a concatenation of whole template literals of format ``name`` (with
    ``partial_end``, the last one may be cut short): a DP over the positions reached."""
    by_first, _ = template_literals(name)
    reached = [False] * (len(text) + 1)
    reached[0] = True
    for i in range(len(text)):
        if not reached[i]:
            continue
        for literal in by_first.get(text[i], ()):
            if text.startswith(literal, i):
                reached[i + len(literal)] = True
            elif partial_end and literal.startswith(text[i:]):
                return True
    return reached[len(text)]


# ------------------------------------------------------------------ the laws


def forms(value: Any, indents: frozenset[int | None]) -> tuple[list[str], list[str]]:
    """The texts a span sourced by ``value`` may be besides a substring of a string value: a
    substring of ``str(value)`` of a non-string, or its JSON; and those it may be the start of
    (its JSON, which a template may slice: Cogito's ``out[:-1]`` of a tool call's ``tojson``)."""
    exact = [] if type(value) is str else [str(value)]
    prefixes = []
    for indent in indents:
        with contextlib.suppress(TypeError, ValueError):
            prefixes.append(json.dumps(value, ensure_ascii=False, indent=indent))
    return exact + prefixes, prefixes


def check_rendering(name: str, rendering: chatformats.Rendering, roots: dict[str, Any],
                    cut: bool) -> None:
    """Laws 2-4 for one rendering; ``roots`` are the values the template received; ``cut``: the
    rendering was cut inside its last span (``continue_final_message``)."""
    text, spans = rendering.text, rendering.spans
    with contextlib.suppress(InvalidArgument):  # outside a Hypothesis test: no notes
        note(f"spans: {spans!r}\nassistant spans: {rendering.assistant_spans!r}")
    # 2. tiling
    position = 0
    for index, span in enumerate(spans):
        assert span.start == position and span.end > span.start, f"not a tiling at {span!r}"
        assert span.source is None or type(span.source) is str
        # one span per run of one source (a port records each path in one form)
        assert index == 0 or spans[index - 1].source != span.source, f"a run cut at {span!r}"
        position = span.end
    assert position == len(text), "the spans stop before the end of the text"
    previous = 0
    for start, end in rendering.assistant_spans:
        assert previous <= start <= end <= len(text), f"assistant ranges {rendering.assistant_spans!r}"
        previous = end
    # 3, 4. each span's text
    _, indents = template_literals(name)
    for index, span in enumerate(spans):
        piece = text[span.start:span.end]
        partial = cut and index == len(spans) - 1
        if span.source is None:
            assert cut_into_literals(name, piece, partial), \
                f"unsourced {span!r} is not template text: {piece!r}"
            continue
        values = resolve(span.source, roots)
        if any(type(value) is str and piece in value for value in values):
            continue
        assert any((type(value) is not str and piece in str(value))
                   or piece in exact or any(form.startswith(piece) for form in (exact if partial else prefixes))
                   for value, (exact, prefixes) in ((value, forms(value, indents)) for value in values)), \
            f"{span!r}: {piece!r} is not from {span.source} = {values!r}"


def outcome(call: Any) -> tuple[str, Any]:
    """``("ok", result)`` or ``("error", class name, message)`` of ``call()``."""
    try:
        return ("ok", call())
    except (ChatFormatError, TypeError) as exc:
        return ("error", type(exc).__name__, str(exc))


# ------------------------------------------------------------------ template layer


@lru_cache(maxsize=None)
def template_variables(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """Format ``name``'s own variables (each passed or not, now and then one named like an
    environment global), or any of its variables with any value."""
    own = [v for v in fuzz.template_variables(name) if v not in jinja_env.ENVIRONMENT_GLOBALS]
    per_name = {v: (s.tools_any if v in ("tools", "custom_tools")
                    else st.one_of(st.booleans(), s.variable_values)) for v in own}
    return st.one_of(s.variables(**per_name), s.variables(**per_name),
                     fuzz.any_variables(fuzz.template_variables(name)))


MESSAGES = st.one_of(s.conversations, s.conversations, fuzz.any_messages)


def assert_template_laws(name: str, messages: Any, variables: dict[str, Any]) -> None:
    plain = outcome(lambda: chatformats.render(name, messages, now=FIXED_NOW, **variables))
    spanned = outcome(lambda: chatformats.render_spans(name, messages, now=FIXED_NOW, **variables))
    if plain[0] == "error":
        assert spanned == plain
        return
    assert spanned[0] == "ok", spanned
    rendering = spanned[1]
    assert rendering.text == plain[1]
    check_rendering(name, rendering, {**variables, "messages": messages}, cut=False)


@pytest.mark.parametrize("name", RECORDED)
@settings(max_examples=PER_FORMAT)
@given(data=st.data())
def test_template_layer_laws(name: str, data: st.DataObject) -> None:
    messages = data.draw(MESSAGES, label="messages")
    variables = data.draw(template_variables(name), label="variables")
    assert_template_laws(name, messages, variables)


#: Inputs Hypothesis found, each for every format: tools that are not a list (a template's
#: ``for tool in tools`` iterates a string's characters and a mapping's keys; ``tools[0]``).
TEMPLATE_REGRESSIONS = [
    ([{"role": "system", "content": ""}], {"tools": "<think>"}),
    ([{"role": "system", "content": ""}], {"tools": {"<think>": None}}),
    ([{"role": "user", "content": "x"}], {"tools": {1: "a", 0: "b"}}),
    # a text part that is not a string: MiniCPM-V renders it with str(), joins and splits it
    ([{"role": "user", "content": "q"}, {"role": "assistant", "content": [{"type": "text", "text": ["a</think>b"]}]}], {}),
]


@pytest.mark.parametrize("messages,variables", TEMPLATE_REGRESSIONS)
@pytest.mark.parametrize("name", RECORDED)
def test_template_layer_laws_regressions(name: str, messages: Any, variables: dict[str, Any]) -> None:
    assert_template_laws(name, messages, variables)


# ------------------------------------------------------------------ pipeline layer


@contextlib.contextmanager
def template_inputs() -> Iterator[list[dict[str, Any]]]:
    """While the block runs, each render of transformers' compiled templates appends the
    keyword arguments it received (``messages``, ``tools``, ...) to the list yielded."""
    from transformers.utils import chat_template_utils as ctu

    seen: list[dict[str, Any]] = []
    compile_template = ctu._compile_jinja_template

    class Recording:
        def __init__(self, template: Any) -> None:
            self.template = template

        def render(self, **kwargs: Any) -> str:
            seen.append(kwargs)
            return self.template.render(**kwargs)

    ctu._compile_jinja_template = lambda source: Recording(compile_template(source))
    try:
        yield seen
    finally:
        ctu._compile_jinja_template = compile_template


@pytest.mark.parametrize("name", RECORDED)
@settings(max_examples=PER_FORMAT_PIPELINE)
@given(args=call_arguments())
@example(args=([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "a ",
                                                    "reasoning": "let me think"}],
               {"continue_final_message": True}))
@example(args=([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "a",
                                                    "reasoning": "let me think "}],
               {"continue_final_message": "reasoning"}))
@example(args=([[{"role": "user", "content": "hi"}], [{"role": "user", "content": "ho"}]],
               {"tools": [s.TOOL_SCHEMAS[0]], "add_generation_prompt": True}))
def test_pipeline_layer_laws(name: str, args: tuple[Any, dict[str, Any]]) -> None:
    messages, kwargs = args
    plain = outcome(lambda: chatformats.apply_chat_template(name, messages, now=FIXED_NOW, **kwargs))
    spanned = outcome(lambda: chatformats.apply_chat_template_spans(name, messages, now=FIXED_NOW, **kwargs))
    if plain[0] == "error":
        assert spanned == plain
        return
    assert spanned[0] == "ok", spanned
    texts, renderings = plain[1], spanned[1]
    batched = type(texts) is list
    if not batched:
        texts, renderings = [texts], [renderings]
    assert [r.text for r in renderings] == texts
    with template_inputs() as seen, transformers_oracle.fixed_clock():
        expected = transformers_oracle.tokenizer(name).apply_chat_template(messages, tokenize=False, **kwargs)
    assert expected == plain[1]  # the values caught are those of the same prompts
    assert len(seen) == len(renderings)
    cut = bool(kwargs.get("continue_final_message"))
    for rendering, received in zip(renderings, seen):
        check_rendering(name, rendering, received, cut)


# ------------------------------------------------------------------ the spans of recorded pieces


@settings(max_examples=300)
@given(lengths=st.lists(st.integers(0, 3), max_size=12),
       sources=st.dictionaries(st.integers(0, 13), st.sampled_from(["a", "b", "messages[0].content"]),
                               max_size=8))
def test_runs_are_the_runs_piece_by_piece(lengths, sources):
    """``build``'s spans (the bounds of the sourced pieces, without a loop over pieces) are the
    runs of non-empty pieces with one source, read piece by piece: touching sourced pieces,
    empty ones, pieces at either end, sources recorded for pieces never emitted."""
    from itertools import accumulate

    from chatformats import _spans

    starts = list(accumulate(lengths, initial=0))
    expected = []  # the runs, one piece at a time, written here from the definition
    for index, length in enumerate(lengths):
        if not length:
            continue
        source = sources.get(index)
        if expected and expected[-1][2] == source:
            expected[-1][1] += length
        else:
            expected.append([starts[index], starts[index] + length, source])
    recorder = _spans.Recorder()
    recorder.pieces.extend("x" * n for n in lengths)
    recorder.sources.update(sources)
    rendering = _spans.build("x" * starts[-1], recorder)
    assert [list(span) for span in rendering.spans] == expected


def test_renderings_are_values():
    """Read-only, comparable, picklable (worker processes send them back) and copyable; a span is
    a ``(start, end, source)`` tuple with those names."""
    import copy
    import pickle

    rendering = chatformats.render_spans("qwen3-instruct-2507", [{"role": "user", "content": "x"}], now=FIXED_NOW)
    for clone in (pickle.loads(pickle.dumps(rendering)), copy.deepcopy(rendering), copy.copy(rendering)):
        assert clone == rendering and hash(clone) == hash(rendering)
        assert clone.text == rendering.text and clone.spans == rendering.spans
    span = rendering.spans[1]
    assert (span.start, span.end, span.source) == tuple(span) == (12, 16, "messages[0].role")
    assert pickle.loads(pickle.dumps(span)) == span and type(pickle.loads(pickle.dumps(span))) is chatformats.Span
    assert repr(span) == "Span(start=12, end=16, source='messages[0].role')"
    for name in ("text", "spans", "assistant_spans", "anything"):
        with pytest.raises(AttributeError):
            setattr(rendering, name, "y")
    with pytest.raises(AttributeError):
        rendering.spans.anything = 1  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        span.start = 1  # type: ignore[misc]
    spans = rendering.spans
    assert spans[-1] == spans[len(spans) - 1] and list(reversed(spans)) == list(spans)[::-1]
    assert spans[1:3] == tuple(spans)[1:3] and spans[::-1] == tuple(spans)[::-1]
    with pytest.raises(IndexError):
        spans[len(spans)]


def test_a_rendering_is_made_of_contiguous_spans():
    """Spans given to ``Rendering`` must tile their range: one that does not start where the one
    before it ends is refused."""
    Span, Rendering = chatformats.Span, chatformats.Rendering
    assert list(Rendering("ab", (Span(0, 1, None), Span(1, 2, "x")), ()).spans) == [(0, 1, None), (1, 2, "x")]
    assert list(Rendering("", (), ()).spans) == []
    for spans in ((Span(0, 1, None), Span(0, 2, "x")), (Span(0, 1, None), Span(2, 3, "x"))):
        with pytest.raises(ValueError):
            Rendering("abc", spans, ())
