"""The input check reads only what the template reads (``docs/guarantees.md``, "Only JSON-like
data"): a variable the template never looks up is not walked, whatever it holds, and renders as
the reference template renders without it; a variable it does read is checked as before.

What the template can look up is the registry's read set (``chatformats._registry.reads``: the
spec's ``variables`` and ``calls``); the first test ties it to the template's syntax tree."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chatformats
from chatformats import InvalidConversation, NestingTooDeep, UnknownVariableError
from chatformats import _core, _registry

from . import budget, golden, jinja_env, oracle
from . import strategies as s
from .parity import assert_parity, port_outcome

PORTED = golden.ported_formats()
LIMIT = _core.NESTING_LIMIT
HI = [{"role": "user", "content": "hi"}]


def nest(value: Any, levels: int) -> Any:
    """``value`` inside ``levels`` containers (list, dict, tuple in turn): no cycle."""
    for level in range(levels):
        kind = level % 3
        value = [value] if kind == 0 else {"a": value} if kind == 1 else (value,)
    return value


class Text(str):
    """A ``str`` subclass: not JSON-like to the render core."""


def _cyclic_with_a_set() -> list[Any]:
    cycle: list[Any] = [{1, 2}]
    cycle.append(cycle)
    return cycle


#: Values the render core refuses wherever the template reads them, each a fresh one per call.
ODD_VALUES = {
    "object": object,
    "set": lambda: {1, 2},
    "frozenset": lambda: frozenset("ab"),
    "bytes": lambda: b"x",
    "complex": lambda: 1j,
    "str subclass": lambda: Text("x"),
    "OrderedDict": lambda: OrderedDict(a=1),
    "a function": lambda: (lambda *a, **k: "called"),
    "a tuple key": lambda: {(1, 2): "x"},
    "an object in tools": lambda: [{"type": "function", "function": {"name": "f", "parameters": object()}}],
    "too deep": lambda: nest("leaf", LIMIT + 5),
    "too deep, then an object": lambda: nest(object(), LIMIT + 5),
    "a cycle holding a set": _cyclic_with_a_set,
}

def looked_up(name: str) -> frozenset[str]:
    """What the template's compiled code may look up in its caller's variables: the undeclared
    names of its syntax tree in an environment without globals (so a global it reads counts,
    called or not), ``messages`` aside."""
    import jinja2
    from jinja2 import meta
    from jinja2.ext import loopcontrols

    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.globals.clear()
    text = jinja_env.template_text(chatformats.get_format(name).template_file)
    return frozenset(meta.find_undeclared_variables(env.parse(text))) - {"messages"}


def assigned(name: str) -> frozenset[str]:
    """The names the template assigns itself (``set``, ``for`` targets)."""
    import jinja2.nodes

    tree = jinja_env.parse(chatformats.get_format(name).template_file)
    targets = [node.target for node in tree.find_all((jinja2.nodes.Assign, jinja2.nodes.For,
                                                      jinja2.nodes.AssignBlock))]
    return frozenset(n.name for target in targets
                     for n in [target, *target.find_all(jinja2.nodes.Name)]
                     if isinstance(n, jinja2.nodes.Name))


#: Every name some template looks up, the environment's globals, the names jinja2 binds itself
#: inside a template, and names no template reads.
_POOL = sorted(
    {v for n in PORTED for v in looked_up(n)}
    | jinja_env.ENVIRONMENT_GLOBALS
    | {"loop", "caller", "varargs", "kwargs", "documents", "extra", "chat_template", "x"}
)


def unread_names(name: str) -> list[str]:
    fmt = chatformats.get_format(name)
    return [v for v in _POOL if v not in fmt.variables and v not in fmt.calls]


def read_names(name: str) -> list[str]:
    fmt = chatformats.get_format(name)
    return sorted(set(fmt.variables) | fmt.calls)


@pytest.mark.parametrize("name", PORTED)
def test_the_read_set_is_every_name_the_template_looks_up(name):
    """``reads(fmt)`` is what the template can look up in its caller's variables
    (:func:`looked_up`), less only names the template assigns itself before it reads them: a
    ``set`` in a branch makes jinja2 look the name up where the loop body starts and overwrite
    it before any use (solar-open's ``prev_is_tool``; the law below passes odd values under
    these names too, and the fuzz property JSON values)."""
    fmt = chatformats.get_format(name)
    reads = _registry.reads(fmt)
    assert reads <= looked_up(name)
    assert looked_up(name) - reads <= assigned(name)
    assert _registry.port(name)[2] == reads  # the port table carries it


@pytest.mark.parametrize("name", PORTED)
@settings(max_examples=budget.per_format(100))
@given(data=st.data(), kind=st.sampled_from(sorted(ODD_VALUES)))
@example(data=None, kind="too deep")
def test_an_unread_variable_renders_as_the_template_without_it(name, data, kind):
    """For any conversation and read variables, an unread variable holding a value the core
    would refuse if it were read renders exactly what the reference template renders without
    it (or fails as the port fails without it), at the template layer's every entry."""
    if data is None:  # the explicit example: the benchmark's case, DeepSeek's unread tools
        unread = "tools" if "tools" in unread_names(name) else unread_names(name)[0]
        messages, variables = HI, {"add_generation_prompt": True}
    else:
        messages = data.draw(s.conversations, label="messages")
        variables = data.draw(s.format_variables(name), label="variables")
        unread = data.draw(st.sampled_from(unread_names(name)), label="unread")
    without = {k: v for k, v in variables.items() if k != unread}
    value = ODD_VALUES[kind]()
    with_it = {**without, unread: value}
    expected = oracle.render(name, messages, record_coverage=False, **without)
    # the reference itself ignores the variable
    assert oracle.render(name, messages, record_coverage=False, **with_it) == expected
    assert_parity(name, messages, with_it)
    got = port_outcome(name, messages, oracle.FIXED_NOW, with_it)
    assert got == port_outcome(name, messages, oracle.FIXED_NOW, without)
    if got.ok:  # (a batch is refused, as without the variable: deliberate difference 6)
        assert expected.ok and got.text == expected.text
        now = oracle.FIXED_NOW
        fmt = chatformats.get_format(name)
        assert chatformats.render_spans(name, messages, now=now, **with_it).text == expected.text
        assert fmt.render(messages, now=now, **with_it) == expected.text
        assert fmt.with_port(fmt.port).render(messages, now=now, **with_it) == expected.text
        assert (chatformats.audit(name, messages, now=now, **with_it)
                == chatformats.audit(name, messages, now=now, **without))


@pytest.mark.parametrize("name", PORTED)
def test_a_read_variable_is_still_refused_with_its_path(name):
    """Every name the template reads, holding a value that is not JSON-like data or nests too
    deep, is refused before rendering, naming the path, at every template-layer entry; and
    ``messages`` is walked as before, whatever the variables."""
    fmt = chatformats.get_format(name)
    entries = {
        "render": lambda messages, **v: chatformats.render(name, messages, **v),
        "render_spans": lambda messages, **v: chatformats.render_spans(name, messages, **v),
        "ChatFormat.render": lambda messages, **v: fmt.render(messages, **v),
        "with_port": lambda messages, **v: fmt.with_port(fmt.port).render(messages, **v),
        "audit": lambda messages, **v: chatformats.audit(name, messages, **v),
    }
    unread = unread_names(name)[0]
    for entry, call in entries.items():
        for variable in read_names(name):
            with pytest.raises(InvalidConversation, match=rf"^{variable}\.a\[0\] is a builtins\.object"):
                call(HI, **{variable: {"a": [object()]}})
            with pytest.raises(InvalidConversation, match=rf"^{variable} is a builtins\.set"):
                call(HI, **{variable: {1, 2}})
            with pytest.raises(InvalidConversation, match=rf"^{variable} is a [\w.]*Text,"):
                call(HI, **{variable: Text("x")})
            with pytest.raises(NestingTooDeep, match=rf"^{variable}(\[0\]|\.a)+ is nested more than {LIMIT}"):
                call(HI, **{variable: nest("leaf", LIMIT + 1)})
        with pytest.raises(InvalidConversation, match=r"^messages\[0\]\.x is a builtins\.object"):
            call([{"role": "user", "content": "hi", "x": object()}], **{unread: object()})
        with pytest.raises(NestingTooDeep, match=r"^messages\[0\]\.x"):
            call([{"role": "user", "content": "hi", "x": nest("leaf", LIMIT)}], **{unread: object()})


@pytest.mark.parametrize("name", PORTED)
def test_strict_still_refuses_an_unread_variable(name):
    """``strict=True`` refuses a variable the template does not read by its name, before any
    walk (an unread odd value is an UnknownVariableError, not an InvalidConversation)."""
    unread = next(v for v in unread_names(name) if v != "self")
    for call in (chatformats.render, chatformats.render_spans, chatformats.audit):
        with pytest.raises(UnknownVariableError):
            call(name, HI, strict=True, **{unread: object()})


@pytest.mark.parametrize("name", PORTED)
def test_the_call_checks_stay_for_unread_names(name):
    """``self`` fails as ``Template.render`` fails, whatever it holds, and a batch is refused,
    with or without an unread variable beside them."""
    unread = unread_names(name)[0]
    with pytest.raises(TypeError, match="multiple values for argument 'self'"):
        chatformats.render(name, HI, **{"self": object()})
    with pytest.raises(InvalidConversation, match="messages is a batch of 1 conversation"):
        chatformats.render(name, [HI], **{unread: object()})
