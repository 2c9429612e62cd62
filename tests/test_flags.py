"""Flags given as numpy values (and other objects) at the pipeline layer, against transformers.

transformers rebuilds every keyword argument from plain types before the template sees it
(``_plain_template_data``: a numpy bool becomes ``True``/``False``, a numpy array the string
``"<ndarray>"``), except ``add_generation_prompt``, which it passes as given.  So
``apply_chat_template(..., add_generation_prompt=numpy.bool_(True))`` (what ``x > 0`` gives on a
numpy value) reaches the template as a numpy bool, and the template reads it as jinja2 reads
any object.

- :func:`test_raw_flags_are_read_only_for_truth`: every reference template reads each variable
  transformers passes as given (``chatformats.pipeline.TRUTH_ONLY``) only for its truth and its
  definedness, so the pipeline's :class:`~chatformats.pipeline.Truth` (the value's ``bool()``,
  taken where the port tests it) is exact.  A template that printed such a value, serialised it
  (``tojson`` fails on a numpy bool) or tested it with ``is true`` / ``is false`` (false for a
  numpy bool in jinja2) fails this test.
- :func:`test_numpy_flags_render_as_transformers_renders_them`: for every format, conversations
  with every variable its template reads (and ``add_generation_prompt``) given as numpy bools,
  integers, floats, strings and arrays (one whose truth is ambiguous among them): the same text
  as transformers, or the same failure.
"""

from __future__ import annotations

from typing import Any, Dict

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chatformats
from chatformats import TemplateTypeError
from chatformats.pipeline import TRUTH_ONLY

from . import strategies as s
from .budget import per_format
from .oracle import source
from .test_pipeline import assert_pipeline_parity

np = pytest.importorskip("numpy")
jinja2 = pytest.importorskip("jinja2")
from jinja2 import nodes  # noqa: E402

FORMATS = chatformats.formats()

# ------------------------------------------------------------------ the templates' reads


def _reads(template_source: str, name: str) -> list[tuple[int, str]]:
    """Each read of variable ``name`` in the template that is not a truth test or a definedness
    test: ``(line, what reads it)``.

    A read is a truth read when its value only decides a branch: the test of ``{% if %}`` /
    ``{% elif %}``, of a conditional expression or of a loop filter, the operand of ``not``, or
    an operand of ``and`` / ``or`` (whose value is an operand) that is itself a truth read.
    ``x is defined`` reads nothing but definedness.  ``{% set x = x if x is defined else true %}``
    rebinds the name to itself (its later reads are checked as reads of the same name)."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=["jinja2.ext.loopcontrols"])
    tree = env.parse(template_source)
    parents: Dict[int, Any] = {}
    names = []
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in node.iter_child_nodes():
            parents[id(child)] = node
            stack.append(child)
            if isinstance(child, nodes.Name) and child.name == name and child.ctx == "load":
                names.append(child)
    bad = []
    for read in names:
        current, parent = read, parents[id(read)]
        while True:
            if isinstance(parent, nodes.Not):
                break
            if isinstance(parent, (nodes.If, nodes.CondExpr, nodes.For)) and current is parent.test:
                break
            if isinstance(parent, nodes.Test) and parent.name in ("defined", "undefined") \
                    and current is parent.node:
                break
            if isinstance(parent, (nodes.And, nodes.Or)) or (
                    isinstance(parent, nodes.CondExpr) and current is not parent.test):
                current, parent = parent, parents[id(parent)]  # its value is an operand's
                continue
            if isinstance(parent, nodes.Assign) and current is parent.node \
                    and isinstance(parent.target, nodes.Name) and parent.target.name == name:
                break  # rebound to itself
            bad.append((read.lineno, type(parent).__name__))
            break
    return sorted(bad)


@pytest.mark.parametrize("name", FORMATS)
def test_raw_flags_are_read_only_for_truth(name: str) -> None:
    for variable in TRUTH_ONLY:
        assert _reads(source(name), variable) == [], (
            f"{name}'s template reads {variable} other than for its truth: port what it reads of "
            "a value transformers passes as given (chatformats.pipeline.Truth)")


def test_the_read_check_can_fail() -> None:
    """The check above sees each read that is not a truth read."""
    assert _reads("{% if x %}a{% endif %}{{ 'b' if not x and y }}", "x") == []
    assert _reads("{% set x = x if x is defined else true %}", "x") == []
    assert sorted(what for _, what in _reads(
        "{{ x }}{{ x|tojson }}{% if x is true %}{% endif %}{{ x and 1 }}{% set y = x %}", "x")) == [
        "Assign", "Filter", "Output", "Output", "Test"]


# ------------------------------------------------------------------ the property

#: numpy values a caller may pass as a flag: bools (what comparisons give), scalars of each
#: kind, and arrays (``"<ndarray>"`` once transformers rebuilds a keyword argument; passed as
#: given, one of two elements has no truth value).
numpy_flags = st.sampled_from([
    np.bool_(True), np.bool_(False), np.int64(0), np.int64(1), np.int8(-1), np.float64(0.0),
    np.float32(0.5), np.float64("nan"), np.str_(""), np.str_("yes"), np.array(True),
    np.array([0]), np.array([1, 2]), np.array([]),
])


@st.composite
def flags(draw: st.DrawFn, name: str) -> Dict[str, Any]:
    """Keyword arguments for format ``name``: some of the variables its template reads, and
    ``add_generation_prompt``, each a numpy value."""
    variables = [v for v in chatformats.get_format(name).variables
                 if v not in ("tools", "documents", "messages")]
    chosen = draw(st.lists(st.sampled_from(variables), unique=True)) if variables else []
    kwargs = {variable: draw(numpy_flags) for variable in chosen}
    if draw(st.integers(0, 3)):
        kwargs["add_generation_prompt"] = draw(numpy_flags)
    return kwargs


@pytest.mark.parametrize("name", FORMATS)
def test_numpy_flags_render_as_transformers_renders_them(name: str) -> None:
    variables = chatformats.get_format(name).variables

    @settings(max_examples=per_format(60))
    @given(messages=s.realistic_conversation(), kwargs=flags(name))
    @example(messages=[{"role": "user", "content": "Hi!"}],
             kwargs={"add_generation_prompt": np.bool_(True)})
    @example(messages=[{"role": "user", "content": "Hi!"}],
             kwargs={"add_generation_prompt": np.bool_(False)})
    @example(messages=[{"role": "user", "content": "Hi!"}],
             kwargs={"add_generation_prompt": np.array([1, 2])})
    @example(messages=[{"role": "user", "content": "Hi!"}],
             kwargs={v: np.bool_(i % 2 == 0) for i, v in enumerate(variables)
                     if v not in ("tools", "documents")})
    def check(messages: Any, kwargs: Dict[str, Any]) -> None:
        assert_pipeline_parity(name, messages, kwargs)

    check()


def test_a_numpy_bool_asks_for_the_generation_prompt() -> None:
    """The issue's case: ``x > 0`` on a numpy value as ``add_generation_prompt``."""
    messages = [{"role": "user", "content": "Hi!"}]
    score = np.float64(0.7)
    prompt = chatformats.apply_chat_template("qwen3", messages, add_generation_prompt=score > 0)
    assert prompt == chatformats.apply_chat_template("qwen3", messages, add_generation_prompt=True)
    with pytest.raises(TemplateTypeError, match="truth value of an array"):
        chatformats.apply_chat_template("qwen3", messages, add_generation_prompt=np.array([1, 2]))
    # The template layer takes JSON-like data only (deliberate difference 2).
    with pytest.raises(chatformats.InvalidConversation, match="numpy"):
        chatformats.render("qwen3", messages, add_generation_prompt=np.bool_(True))
