"""The library under faults: only ``ChatFormatError`` subclasses escape a render, and
``InternalError`` means a bug.

- resource errors (``MemoryError``, ``KeyboardInterrupt``) pass through unchanged, from the
  port, from the pipeline's conversion, from a user's object;
- user objects that fail where transformers would fail with a bare exception (a list whose
  ``__len__`` raises, a ``continue_final_message`` whose ``__hash__`` raises, a ``tokenize=``
  whose ``__bool__`` raises, a clock whose ``strftime`` raises) give a typed error;
- an integer too long to write as text gives a typed error, in the template and in the input
  check's error message;
- a ``model_dump()`` that returns itself ends (transformers ends in ``RecursionError``);
- input changed during a render gives :class:`ConcurrentModification`;
- the input check's cost has no step at its tree-walk budget (peak memory measured).

(Allocation failures at every allocation of a render: ``tests/test_fault_injection.py``.)
"""

from __future__ import annotations

import importlib
import sys
import threading
import tracemalloc
from datetime import datetime
from typing import Any

import pytest

import chatformats
from chatformats import (
    ChatFormatError,
    ConcurrentModification,
    InternalError,
    InvalidConversation,
    NestingTooDeep,
    TemplateTypeError,
    apply_chat_template,
    render,
)
from chatformats import _core as J

from . import golden

PORTED = golden.ported_formats()
NOW = datetime(2026, 3, 7, 14, 5, 9)
CHAT = [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "a"}, {"role": "user", "content": "q"}]
#: Every branch a port has a primitive for: tool calls, a tool result, reasoning.
RICH = [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "a <think>r</think> b",
         "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]},
        {"role": "tool", "content": "r"}, {"role": "user", "content": "q"}]


def _port_module(name: str) -> Any:
    return importlib.import_module(chatformats.get_format(name).port.__module__)


def _primitives(module: Any) -> list[str]:
    """The names of the ``_jinja`` functions a port module uses."""
    return [name for name, value in vars(module).items()
            if callable(value) and getattr(value, "__module__", "") == "chatformats._jinja"]


# ---------------------------------------------------------------- resource errors


@pytest.mark.parametrize("error", [MemoryError, KeyboardInterrupt])
@pytest.mark.parametrize("name", PORTED)
def test_resource_errors_from_the_port_pass_through(name: str, error: type, monkeypatch: Any) -> None:
    """A resource error raised anywhere in a port reaches the caller as itself, at both layers
    (before: ``MemoryError`` became ``InternalError``)."""
    _port_module(name)  # imported, with the modules it renders through

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise error("injected")

    for module_name, module in list(sys.modules.items()):
        if module_name.startswith("chatformats.ports."):  # a variant renders through its original
            for primitive in _primitives(module):
                monkeypatch.setattr(module, primitive, fail)
    for layer in (render, apply_chat_template):
        with pytest.raises(error) as info:
            layer(name, RICH, now=NOW)
        assert type(info.value) is error and str(info.value) == "injected"


@pytest.mark.parametrize("error", [MemoryError, KeyboardInterrupt])
def test_resource_errors_from_the_conversion_pass_through(error: type) -> None:
    """transformers' message conversion calls the user's ``model_dump()``; a resource error
    there is not "converting the input failed" (before: ``InvalidConversation``)."""

    class Message:
        def model_dump(self) -> Any:
            raise error("injected")

    with pytest.raises(error):
        apply_chat_template("cogito", [Message()], now=NOW)
    with pytest.raises(error):
        apply_chat_template("cogito", [{"role": "user", "content": [Message()]}], now=NOW)


def test_resource_error_from_the_clock_passes_through() -> None:
    class Clock(datetime):
        def strftime(self, fmt: str) -> str:
            raise MemoryError("injected")

    with pytest.raises(MemoryError):
        render("llama-3.2-vision", CHAT, now=Clock(2026, 3, 7))


# ---------------------------------------------------------------- untyped escapes


def test_a_list_whose_len_raises() -> None:
    class Messages(list):  # type: ignore[type-arg]
        def __len__(self) -> int:
            raise RuntimeError("no length")

    with pytest.raises(InvalidConversation, match="^no length$"):
        apply_chat_template("cogito", Messages(CHAT), now=NOW)


def test_a_continue_final_message_whose_hash_raises() -> None:
    class Field(str):
        def __hash__(self) -> int:
            raise RuntimeError("no hash")

    with pytest.raises(InvalidConversation, match="continue_final_message: RuntimeError: no hash"):
        apply_chat_template("cogito", CHAT[:3], continue_final_message=Field("content"), now=NOW)


@pytest.mark.parametrize("param", ["tokenize", "return_assistant_tokens_mask",
                                   "sanitize_control_tokens", "continue_final_message",
                                   "add_generation_prompt"])
def test_a_flag_whose_bool_raises(param: str) -> None:
    class Flag:
        def __bool__(self) -> bool:
            raise RuntimeError("no truth")

    kwargs: dict[str, Any] = {param: Flag()}
    if param == "add_generation_prompt":
        kwargs["continue_final_message"] = True  # its truth is taken only then
    # transformers lets the exception through; chatformats types it, with its message verbatim.
    with pytest.raises(InvalidConversation, match="^no truth$"):
        apply_chat_template("cogito", CHAT, now=NOW, **kwargs)


@pytest.mark.parametrize("name", PORTED)
def test_a_clock_whose_strftime_raises(name: str) -> None:
    class Clock(datetime):
        def strftime(self, fmt: str) -> str:
            raise RuntimeError("broken clock")

    for layer in (render, apply_chat_template):
        try:
            layer(name, CHAT, now=Clock(2026, 3, 7))
        except InvalidConversation as exc:
            assert "the clock's strftime failed: RuntimeError: broken clock" in str(exc)
        # a format that never reads the clock renders


def test_a_non_json_value_under_a_long_integer_key() -> None:
    """The error message names the path; ``repr`` of a 5,000-digit key would itself fail
    (before: a bare ``ValueError``)."""
    with pytest.raises(InvalidConversation, match=r"messages\[0\]\[<an integer of 16610 bits>\] is a builtins.object"):
        render("cogito", [{"role": "user", "content": "x", 10**5000: object()}], now=NOW)
    with pytest.raises(InvalidConversation, match=r"content\[<an integer of 16610 bits>\]"):
        render("cogito", [{"role": "user", "content": {10**5000: object()}}], now=NOW)


def test_a_long_integer_key_in_tool_arguments() -> None:
    """MiniCPM writes each argument name with ``{{ args_name }}``: Jinja's ``str()`` of a
    5,001-digit integer fails with ``ValueError``, so does the port (before: ``InternalError``)."""
    messages = [{"role": "user", "content": "q"},
                {"role": "assistant", "content": "",
                 "tool_calls": [{"function": {"name": "f", "arguments": {10**5000: 1}}}]}]
    for layer in (render, apply_chat_template):
        with pytest.raises(TemplateTypeError, match="integer is too large to write as text"):
            layer("minicpm-v-4.6-thinking", messages, now=NOW)


def test_a_model_dump_that_returns_itself_ends() -> None:
    """transformers recurses into ``RecursionError``; chatformats follows the chain as far as
    the recursion limit and fails typed (before: it looped forever)."""
    calls = 0

    class Message:
        def model_dump(self) -> Any:
            nonlocal calls
            calls += 1
            if calls > 1_000_000:  # the old loop: fail the test rather than hang
                raise AssertionError("model_dump() called a million times")
            return self

    with pytest.raises(NestingTooDeep, match="model_dump"):
        apply_chat_template("cogito", [Message()], now=NOW)
    assert calls <= sys.getrecursionlimit() + 1
    with pytest.raises(NestingTooDeep):  # inside a message, the recursive conversion
        apply_chat_template("cogito", [{"role": "user", "content": Message()}], now=NOW)


# ---------------------------------------------------------------- concurrent modification


def test_input_changed_during_a_render_is_concurrent_modification(monkeypatch: Any) -> None:
    """Another thread empties the conversation while MiniCPM renders it (simulated at a fixed
    point: the port's second attribute lookup); the port's pre-pass indices then point past
    the end.  Before: ``InternalError(IndexError)``."""
    module = _port_module("minicpm-v-4.6-thinking")
    messages = [dict(m) for m in RICH]
    real_attr = module.attr
    calls = 0

    def attr(*args: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 2:
            messages.clear()
        return real_attr(*args)

    monkeypatch.setattr(module, "attr", attr)
    with pytest.raises(ConcurrentModification, match="changed while it was being rendered"):
        render("minicpm-v-4.6-thinking", messages, now=NOW)


def test_the_safety_net_tells_a_bug_from_a_change() -> None:
    """A port that fails on the input as it is now is a bug (``InternalError``); one that
    fails only on the input as it was is a change (``ConcurrentModification``)."""
    from chatformats._core import call_port

    def _call_port(name: str, port: Any, messages: Any, variables: Any, now: Any) -> str:
        return call_port(name, port, frozenset(), messages, variables, now)

    def buggy(messages: Any, variables: Any, now: Any) -> str:
        return messages[len(messages)]["content"]  # always out of range

    with pytest.raises(InternalError, match="IndexError"):
        _call_port("x", buggy, CHAT, {}, NOW)

    messages = [dict(m) for m in CHAT]
    first = True

    def reads_a_changing_input(messages: Any, variables: Any, now: Any) -> str:
        nonlocal first
        count = len(messages)
        if first:
            first = False
            messages.pop()  # as another thread would, between two reads
        return "".join(messages[i]["content"] for i in range(count))

    with pytest.raises(ConcurrentModification):
        _call_port("x", reads_a_changing_input, messages, {}, NOW)

    def iterates_a_changing_dict(messages: Any, variables: Any, now: Any) -> str:
        for key in messages[0]:
            messages[0][key + "!"] = 1
        return ""

    with pytest.raises(ConcurrentModification):
        _call_port("x", iterates_a_changing_dict, [{"a": 1}], {}, NOW)


def test_a_bug_in_spans_code_is_a_bug_not_a_change() -> None:
    """A port whose spans code fails while its plain render succeeds is a bug
    (``InternalError``): the safety net renders the copy with a recorder too, so it does not
    mistake the plain render's success for input that changed."""
    from chatformats._core import call_port
    from chatformats._spans import Recorder

    def spans_bug(messages: Any, variables: Any, now: Any, spans: Any = None) -> str:
        if spans is not None:
            spans.values(0, 1, 2, 3, 4)  # a call the recorder does not take: a TypeError
        return "ok"

    assert call_port("x", spans_bug, frozenset(), CHAT, {}, NOW) == "ok"
    with pytest.raises(InternalError, match="TypeError"):
        call_port("x", spans_bug, frozenset(), CHAT, {}, NOW, Recorder())


def test_the_input_check_reports_a_change(monkeypatch: Any) -> None:
    def changed(value: Any) -> bool:
        raise RuntimeError("dictionary changed size during iteration")

    monkeypatch.setattr(J, "_is_json_like", changed)
    with pytest.raises(ConcurrentModification, match="messages changed"):
        render("cogito", [{"role": "user", "content": ["x"]}], now=NOW)


@pytest.mark.parametrize("name", PORTED)
def test_threads_changing_the_input_never_get_an_untyped_error(name: str) -> None:
    """A thread changes a conversation while this one renders it, 200 times: each render gives
    a text or a ``ChatFormatError`` other than ``InternalError`` (which text is a race)."""
    base = [{"role": "system", "content": "s"}] + [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i}"} for i in range(30)]
    messages = list(base)
    stop = threading.Event()

    def change() -> None:
        i = 0
        while not stop.is_set():
            i += 1
            if messages:
                messages.pop()
            if len(messages) < 5:
                messages.extend(dict(m) for m in base[len(messages):])
            target = messages[i % len(messages)]
            target[f"k{i % 7}"] = i
            target.pop(f"k{(i + 3) % 7}", None)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    thread = threading.Thread(target=change)
    thread.start()
    try:
        for _ in range(200):
            try:
                render(name, messages, add_generation_prompt=True, now=NOW)
            except InternalError:
                raise
            except ChatFormatError:
                pass
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(old)


# ---------------------------------------------------------------- the input check's cost


def _peak(value: Any) -> int:
    tracemalloc.start()
    try:
        assert J._is_json_like(value)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_input_check_has_no_step_at_its_budget(monkeypatch: Any) -> None:
    """2% more containers than the tree walk's budget cost about 2% more, not a second walk
    with a visited set of every container (before, at the real budget of 100,000: 277 kB of
    peak memory under it, 9.0 MB over it).  Measured at a budget of 10,000, for speed."""
    monkeypatch.setattr(J, "_TREE_BUDGET", 10_000)
    budget = J._TREE_BUDGET
    under = [{"a": [[i], [i]]} for i in range(budget * 49 // 150)]  # 3 containers per message
    over = [{"a": [[i], [i]]} for i in range(budget * 51 // 150)]
    base = _peak(under)
    assert _peak(over) <= 1.5 * base, (base, _peak(over))
