"""Parity of ``chatformats.apply_chat_template`` with real transformers 5.24.

For every ported format: ``chatformats.apply_chat_template(name, messages, **kw)`` against
``tokenizer.apply_chat_template(messages, tokenize=False, **kw)`` on a tokenizer built in-process
with the format's reference template and its model's special tokens (``transformers_oracle``),
at one fixed clock.  Same text (same list for a batch), or both fail; where the failure is
transformers' own (raised by its pipeline code, not by the template), the same message and a
matching exception class (``ValueError``/``TypeError``); where the template calls
``raise_exception``, :class:`chatformats.TemplateError` with its message.

Inputs: the shared strategies' realistic and adversarial conversations, then dressed the way
callers of transformers dress them: messages as dataclasses, mappings and ``model_dump`` objects;
values as ``str``/``int``/``float`` subclasses, enums, numpy scalars, tuples and opaque objects;
``None`` values; reasoning under each of its three names; tools as JSON schemas and as Python
functions (good and bad); documents; template variables with special-token overrides;
``continue_final_message`` (true or a field name) with and without ``add_generation_prompt``;
batches of conversations.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any, Dict, List, Literal, Optional, Tuple, Union

import pytest
from hypothesis import event, example, given, note, settings
from hypothesis.errors import InvalidArgument
from hypothesis import strategies as st

import chatformats
from chatformats import ChatFormatError, InternalError, InvalidConversation, NestingTooDeep, TemplateError
from chatformats.errors import PipelineTypeError, ToolSchemaError

from . import strategies as s
from . import transformers_oracle as T
from .oracle import FIXED_NOW, Outcome
from .parity import beyond_limit, diff, expected_class

pytest.importorskip("transformers")
np = pytest.importorskip("numpy")


FORMATS = chatformats.formats()

# ------------------------------------------------------------------ objects callers pass


class Str(str):
    """A str subclass (transformers reduces it to str)."""


class Int(int):
    pass


class Float(float):
    pass


class Color(str, enum.Enum):
    RED = "red"
    BLUE = "<|im_end|>"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 7


class Opaque:
    """Any other object: transformers replaces it by ``"<Opaque>"``."""

    def __repr__(self) -> str:
        return "Opaque()"


class FrozenMap(Mapping):  # type: ignore[type-arg]
    """A mapping that is not a dict."""

    def __init__(self, data: dict) -> None:
        self._data = data

    def __getitem__(self, key: Any) -> Any:
        return self._data[key]

    def __iter__(self) -> Any:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"


class ModelLike:
    """A pydantic-like object: ``model_dump()`` returns its data."""

    def __init__(self, data: Any) -> None:
        self._data = data

    def model_dump(self) -> Any:
        return self._data

    def __repr__(self) -> str:
        return f"ModelLike({self._data!r})"


try:
    import pydantic

    class PydanticMessage(pydantic.BaseModel):
        """A message as the OpenAI SDK returns it: a pydantic model, unset fields ``None``."""

        role: str
        content: Optional[str] = None
        tool_calls: Optional[List[Dict[str, Any]]] = None
        reasoning_content: Optional[str] = None

    PYDANTIC_CASES: List[Any] = [
        ([PydanticMessage(role="user", content="hi"),
          PydanticMessage(role="assistant", reasoning_content="r", tool_calls=[
              {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}])], {}),
        ([PydanticMessage(role="user", content="hi"), PydanticMessage(role="assistant", content="Sure ")],
         {"continue_final_message": True}),
    ]
except ImportError:  # pragma: no cover
    PYDANTIC_CASES = []


@dataclasses.dataclass
class Message:
    role: Any = None
    content: Any = None
    tool_calls: Any = None
    reasoning_content: Any = None


@dataclasses.dataclass
class Part:
    type: Any
    text: Any = None


def _numpy_scalar(value: Any) -> Any:
    if type(value) is bool:
        return np.bool_(value)
    if type(value) is int and -(2**63) <= value < 2**63:
        return np.int64(value)
    if type(value) is float:
        return np.float64(value)
    if type(value) is str:
        return np.str_(value)
    return value


@st.composite
def dressed(draw: st.DrawFn, value: Any, message_level: bool = False) -> Any:
    """``value`` with some of its parts replaced by objects transformers converts back."""
    tp = type(value)
    if tp is dict:
        items = {}
        for key, item in value.items():
            if type(key) is str and draw(st.integers(0, 15)) == 0:
                key = Str(key)
            items[key] = draw(dressed(item))
        kind = draw(st.integers(0, 9))
        if message_level and kind == 0 and set(items) <= {f.name for f in dataclasses.fields(Message)}:
            return Message(**items)
        if not message_level and kind == 0 and set(items) <= {"type", "text"} and "type" in items:
            return Part(**items)
        if kind == 1:
            return FrozenMap(items)
        if kind == 2:
            return ModelLike(items)
        return items
    if tp is list or tp is tuple:
        items_ = [draw(dressed(item)) for item in value]
        return tuple(items_) if draw(st.integers(0, 5)) == 0 else (items_ if tp is list else tuple(items_))
    kind = draw(st.integers(0, 11))
    if kind == 0:
        return _numpy_scalar(value)
    if kind == 1:
        if tp is str:
            return Str(value)
        if tp is int:
            return Int(value)
        if tp is float:
            return Float(value)
    if kind == 2:
        return draw(st.sampled_from([Color.RED, Color.BLUE, Level.HIGH, Opaque(), ModelLike("m"),
                                     ModelLike(None), ModelLike([1, None])]))
    return value


@st.composite
def dressed_messages(draw: st.DrawFn, messages: Any) -> Any:
    """Dress each message (sometimes the whole list stays plain)."""
    if type(messages) is not list or draw(st.integers(0, 3)) == 0:
        return messages
    out = [draw(dressed(m, message_level=True)) for m in messages]
    return tuple(out) if draw(st.integers(0, 7)) == 0 else out


# ------------------------------------------------------------------ functions as tools


def get_weather(city: str, unit: Literal["c", "f"] = "c") -> str:
    """Get the current weather.

    Args:
        city: The city to look up, e.g. Paris
        unit: The temperature unit (choices: ["c", "f"])

    Returns:
        A short description of the weather.
    """
    return city


def search(query: str, limit: Optional[int] = None, tags: List[str] = (), site: Union[str, int, None] = None,
           options: Dict[str, float] = {}, pair: Tuple[int, str] = (1, "a"), color: Color = Color.RED,
           level: Level = Level.LOW, anything: Any = None) -> Dict[str, Any]:
    """Search the web.

    A second paragraph of description.

    Args:
        query: What to search for,
            over two lines
        limit: At most this many results
        tags (list): Tags to filter on
        site: Restrict to one site
        options: Ranking options
        pair: A pair
        color: A color
        level: A level
        anything: Anything at all
    """
    return {}


def calc(expression: "str", precision: int | None = 2, mode: list[int] | tuple[int, str] = []) -> object:
    """Evaluate an arithmetic expression: <tool_call> "quoted" é.

    Args:
        expression: The expression
        precision: Digits (CHOICES: [1, 2, 3])
        mode: A mode
    Raises:
        ValueError: never
    """
    return 0


class Toolbox:
    def lookup(self, key: str) -> str:
        """Look a key up.

        Args:
            key: The key
        """
        return key

    @classmethod
    def make(cls, size: int) -> "Toolbox":
        """Make one.

        Args:
            size: How big
        """
        return cls()


def no_docstring(x: int) -> int:
    return x


def missing_description(x: int, y: int) -> int:
    """Add.

    Args:
        x: The first
    """
    return x


def missing_hint(x, y: int) -> int:  # type: ignore[no-untyped-def]
    """Add.

    Args:
        x: The first
        y: The second
    """
    return y


def custom_class(x: Opaque) -> None:
    """Take an object.

    Args:
        x: The object
    """


def single_tuple(x: Tuple[int]) -> None:
    """A tuple.

    Args:
        x: The tuple
    """


def ellipsis_tuple(x: Tuple[int, ...]) -> None:
    """A tuple.

    Args:
        x: The tuple
    """


def bad_literal(x: Literal[b"x"]) -> None:
    """A literal.

    Args:
        x: The literal
    """


def bad_choices(x: str) -> None:
    """Choices that are not JSON.

    Args:
        x: The value (choices: [nope])
    """


FUNCTIONS = [get_weather, search, calc, Toolbox().lookup, Toolbox.make, no_docstring, missing_description,
             missing_hint, custom_class, single_tuple, ellipsis_tuple, bad_literal, bad_choices,
             lambda x: x, len, Toolbox]

tool_items = st.one_of(st.sampled_from(s.TOOL_SCHEMAS), st.sampled_from(FUNCTIONS), s.json_value)
tools = st.one_of(
    st.none(),
    st.lists(st.one_of(st.sampled_from(s.TOOL_SCHEMAS), st.sampled_from(FUNCTIONS[:5])), min_size=1, max_size=3),
    st.lists(tool_items, max_size=3),
    st.lists(tool_items, max_size=2).map(tuple),
    s.tools_any,
)
documents = st.one_of(
    st.none(), st.none(),
    st.lists(st.fixed_dictionaries({"title": s.texts, "text": s.texts}), max_size=2),
    s.json_value,
)

# ------------------------------------------------------------------ template variables

def _spec_variables() -> dict[str, st.SearchStrategy[Any]]:
    """Every variable some format's template reads, but those the call passes itself (``tools``,
    ``add_generation_prompt``), drawn as each spec that reads it says
    (:func:`tests.strategies.format_variables`): every format gets every format's variables."""
    hows: Dict[str, list] = {}
    for name in FORMATS:
        fmt = chatformats.get_format(name)
        for var in fmt.variables:
            if var not in ("tools", "add_generation_prompt"):
                hows.setdefault(var, []).append(fmt.tests.variables.get(var))
    return {var: st.one_of(*(s.variable_values if how is None else s.variable_strategy(how) for how in ways))
            for var, ways in sorted(hows.items())}


_SPEC_VARIABLES = _spec_variables()

template_variables = s.variables(**{
    **_SPEC_VARIABLES,
    # the tokenizer's special tokens, overridden by the caller
    "bos_token": st.one_of(st.just("<s>"), _SPEC_VARIABLES.get("bos_token", s.variable_values)),
    "eos_token": st.one_of(st.just("</s>"), st.just(Str("<eos>"))),
    "pad_token": s.variable_values,
})

continue_values = st.one_of(
    st.just(False), st.just(False), st.just(True), st.just(True),
    st.sampled_from(["content", "reasoning_content", "thinking", "reasoning", "text", "role", "tool_calls",
                     "name", "nope", ""]),
    st.integers(0, 2), s.short_texts,
)
generation_values = st.one_of(st.just(False), st.just(True), st.none(), st.integers(0, 1))


@st.composite
def call_arguments(draw: st.DrawFn) -> Tuple[Any, Dict[str, Any]]:
    """(messages, keyword arguments) for one call."""
    batched = draw(st.integers(0, 7)) == 0
    if batched:
        conversations = draw(st.lists(s.conversations, min_size=1, max_size=3))
        messages: Any = [draw(dressed_messages(c)) for c in conversations]
    else:
        messages = draw(dressed_messages(draw(s.conversations)))
    kwargs: Dict[str, Any] = {}
    for key, strategy in (("tools", tools), ("documents", documents), ("add_generation_prompt", generation_values),
                          ("continue_final_message", continue_values)):
        if draw(st.booleans()):
            kwargs[key] = draw(strategy)
    if kwargs.get("tools") is not None and draw(st.integers(0, 3)) == 0:
        kwargs["tools"] = draw(dressed(kwargs["tools"]))
    if kwargs.get("documents") is not None and draw(st.integers(0, 3)) == 0:
        kwargs["documents"] = draw(dressed(kwargs["documents"]))
    variables = draw(template_variables)
    for key in list(variables):
        if draw(st.integers(0, 5)) == 0:
            variables[key] = draw(dressed(variables[key]))
    kwargs.update(variables)
    return messages, kwargs


# ------------------------------------------------------------------ the check


def _note(text: str, outcome: Optional[str] = None) -> None:
    try:
        note(text)
        if outcome is not None:
            event(outcome)
    except InvalidArgument:  # outside a Hypothesis test: the assertion says enough
        pass


def _raised_by_pipeline(exc: BaseException) -> bool:
    """Whether transformers' pipeline code (not the template) raised ``exc``: no frame of its
    traceback is the compiled template's (jinja2 compiles a template string as ``<template>``;
    what the template calls — ``raise_exception``, ``tojson``, ``namespace`` — runs below it)."""
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            return False
        tb = tb.tb_next
    return True


def transformers_outcome(name: str, messages: Any, kwargs: Dict[str, Any]) -> Tuple[Outcome, Optional[BaseException]]:
    tok = T.tokenizer(name)
    with T.fixed_clock():
        try:
            result = tok.apply_chat_template(messages, tokenize=False, **kwargs)
        except Exception as exc:  # noqa: BLE001
            import jinja2

            if type(exc) is jinja2.exceptions.TemplateError:
                return Outcome(kind="raise_exception", message=exc.message, exc_type="TemplateError"), exc
            return Outcome(kind="other", message=str(exc), exc_type=type(exc).__name__), exc
    return Outcome(text=result if isinstance(result, str) else repr(result)), None


def assert_pipeline_parity(name: str, messages: Any, kwargs: Dict[str, Any],
                           expected: Optional[Tuple[Outcome, Optional[BaseException]]] = None) -> None:
    expected_, exc = expected or transformers_outcome(name, messages, kwargs)
    expected = None
    return _compare(name, messages, kwargs, expected_, exc)


def _compare(name: str, messages: Any, kwargs: Dict[str, Any], expected: Outcome,
             exc: Optional[BaseException]) -> None:
    _note(f"transformers: {expected!r}", "rendered" if expected.ok else
          f"failed: {expected.exc_type}: {(expected.message or '')[:60]}")
    try:
        got = chatformats.apply_chat_template(name, messages, now=FIXED_NOW, **kwargs)
    except InternalError as err:
        raise AssertionError(f"apply_chat_template raised an InternalError: {err}") from err
    except ChatFormatError as err:
        _note(f"chatformats: {type(err).__name__}: {err}")
        if isinstance(err, NestingTooDeep) and beyond_limit(messages, *kwargs.values()):
            return  # the declared limit: refused before rendering, whatever transformers does
        said_text = str(err)
        index = getattr(err, "batch_index", None)
        if index is not None:  # an error inside a batch names its conversation first
            assert isinstance(messages, (list, tuple)) and 0 <= index < len(messages), index
            assert said_text.startswith(f"conversations[{index}]: "), said_text
            said_text = said_text[len(f"conversations[{index}]: "):]
        elif exc is not None and not _raised_by_pipeline(exc) and isinstance(messages, (list, tuple)) \
                and messages and isinstance(messages[0], (list, tuple)):
            raise AssertionError(f"a template failed inside a batch, but the error names no "
                                 f"conversation: {err}")
        if expected.ok:
            raise AssertionError(f"transformers rendered but chatformats raised {type(err).__name__}: {err}\n"
                                 f"transformers: {expected.text!r}") from err
        assert exc is not None
        if expected.kind == "raise_exception" or isinstance(err, TemplateError):
            assert (type(err) is TemplateError, said_text) == (expected.kind == "raise_exception", expected.message)
        if type(exc) is RecursionError:
            assert isinstance(err, NestingTooDeep), (type(err), err)
        elif _raised_by_pipeline(exc):  # transformers' pipeline failed: same message, same kind of exception
            # Reworded shape errors carry transformers' own message, compared verbatim.
            said = getattr(err, "transformers_message", said_text)
            assert said == expected.message, (said, expected.message)
            if type(exc).__name__ in ("TypeHintParsingException", "DocstringParsingException"):
                assert isinstance(err, ToolSchemaError)
            elif isinstance(exc, TypeError):
                assert isinstance(err, PipelineTypeError), (type(err), type(exc))
            else:  # a ValueError (JSONDecodeError, ...) or a user object's own exception
                assert type(err) is InvalidConversation, (type(err), type(exc))
        else:  # the template failed: the error class the parity contract maps its exception to
            assert type(err).__name__ == expected_class(expected.exc_type), (
                f"transformers: {expected.exc_type}: {expected.message}; chatformats: {type(err).__name__}: {err}")
        return
    except TypeError as err:  # API misuse: a keyword transformers' own signatures refuse too
        assert expected.exc_type == "TypeError" and (expected.message or "").endswith(str(err)), (expected, err)
        return
    _note(f"chatformats: {got!r}")
    text = got if isinstance(got, str) else repr(got)
    if not expected.ok:
        raise AssertionError(f"transformers failed ({expected.exc_type}: {expected.message}) "
                             f"but chatformats returned {text!r}")
    if text != expected.text:
        assert expected.text is not None
        raise AssertionError("output differs:\n" + diff(expected.text, text))


# ------------------------------------------------------------------ the properties

#: Examples per format of the two pipeline properties: its share of ``TOTALS["pipeline_parity"]``
#: and ``TOTALS["continue_final_message"]`` under ``ci`` (``tests/budget.py``).
from . import budget  # noqa: E402


@pytest.mark.parametrize("name", FORMATS)
def test_pipeline_parity(name: str) -> None:
    @settings(max_examples=budget.examples(name, "pipeline_parity"))
    @given(args=call_arguments())
    # raise_exception is a function of transformers' module: its failure is the template's, not the
    # pipeline's (the llama-3.2-vision formats raise on two tool calls)
    @example(args=([{"role": "assistant", "tool_calls": [{"function": {"name": "f"}}, {"function": {"name": "g"}}],
                     "reasoning_content": None}], {}))
    @example(args=([[]], {}))
    def check(args: Tuple[Any, Dict[str, Any]]) -> None:
        messages, kwargs = args
        assert_pipeline_parity(name, messages, kwargs)

    check()


@pytest.mark.parametrize("name", FORMATS)
def test_continue_final_message(name: str) -> None:
    """Realistic conversations (most end with an assistant turn) continued."""

    @settings(max_examples=budget.examples(name, "continue_final_message"))
    @given(messages=s.realistic_conversation(), continue_final_message=continue_values,
           add_generation_prompt=generation_values, tools=tools, variables=template_variables)
    @example(messages=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Sure "}],
             continue_final_message=True, add_generation_prompt=False, tools=None, variables={})
    @example(messages=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "a",
                                                            "reasoning": "let me think "}],
             continue_final_message="reasoning", add_generation_prompt=False, tools=None, variables={})
    @example(messages=[{"role": "user", "content": "hi"},
                       {"role": "assistant", "content": [{"type": "text", "text": "one"}, {"type": "image"}]}],
             continue_final_message=True, add_generation_prompt=False, tools=None, variables={})
    def check(messages, continue_final_message, add_generation_prompt, tools, variables):  # type: ignore[no-untyped-def]
        kwargs = dict(variables, continue_final_message=continue_final_message,
                      add_generation_prompt=add_generation_prompt, tools=tools)
        assert_pipeline_parity(name, messages, kwargs)

    check()


class Fresh:
    """A value made anew for each call (a one-shot iterator)."""

    def __init__(self, make: Any) -> None:
        self.make = make


CASES = [
    # empty conversations and batches
    ([], {}),
    ((), {}),
    ([[]], {}),
    ([[], [{"role": "user", "content": "x"}]], {"continue_final_message": True}),
    ([[{"role": "user", "content": "a"}], ({"role": "user", "content": "b"},)], {}),
    # not a conversation
    ({"role": "user", "content": "hi"}, {}),
    ("", {}),
    ("hi", {}),
    (None, {}),
    (5, {}),
    ([{"role": "user", "content": "hi"}, "oops"], {}),
    ([{"role": "user", "content": "hi"}, ["nested"]], {}),
    ([ModelLike([1])], {}),
    ([ModelLike(ModelLike({"role": "user", "content": "m"}))], {}),
    ([FrozenMap({"role": "user", "content": None, "reasoning": "r"})], {}),
    ([Message(role="assistant", content=None, reasoning_content=Str("rc"))], {}),
    # None values and reasoning precedence
    ([{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": None,
                                         "reasoning": "a", "thinking": "b", "reasoning_content": None}], {}),
    ([{"role": "user", "content": "q"}, {"role": "assistant", "content": "x", "reasoning": "a", "thinking": 0}], {}),
    # keys that collide once rebuilt
    ([{"role": "user", Str("content"): "a", "content": "b"}], {}),
    ([{"role": "user", "content": "a", Opaque(): 1, Opaque(): 2}], {}),
    # transformers' own parameters
    ([{"role": "user", "content": "q"}], {"return_dict": True, "padding": True, "max_length": 3,
                                          "truncation": True, "return_tensors": "np", "tokenizer_kwargs": {}}),
    ([{"role": "user", "content": "q"}], {"return_assistant_tokens_mask": True}),
    ([{"role": "user", "content": "q"}], {"sanitize_control_tokens": True}),
    ([{"role": "user", "content": "q"}], {"messages": []}),
    ([{"role": "user", "content": "q"}], {"conversations": []}),
    ([{"role": "user", "content": "q"}], {"name": "n", "documents": ({"title": "t", "text": "x"},)}),
    # tools and documents
    ([{"role": "user", "content": "q"}], {"tools": 5}),
    ([{"role": "user", "content": "q"}], {"tools": "ab"}),
    ([{"role": "user", "content": "q"}], {"tools": {get_weather: 1}}),
    ([{"role": "user", "content": "q"}], {"tools": Fresh(lambda: iter([s.TOOL_SCHEMAS[0]]))}),
    ([{"role": "user", "content": "q"}], {"documents": 5}),
    ([{"role": "user", "content": "q"}], {"documents": ["x"]}),
    ([{"role": "user", "content": "q"}], {"documents": Fresh(lambda: iter([{"title": "t", "text": "x"}]))}),
    # continue_final_message
    ([{"role": "user", "content": "q"}], {"continue_final_message": True, "add_generation_prompt": True}),
    ([{"role": "assistant", "content": "  spaced  "}], {"continue_final_message": True}),
    ([{"role": "assistant", "content": "CONTINUE_FINAL_MESSAGE_TAG x"}], {"continue_final_message": True}),
    ([{"role": "assistant", "content": 5}], {"continue_final_message": True}),
    ([{"role": "assistant", "content": float("nan"), "reasoning": float("nan")}],
     {"continue_final_message": "reasoning"}),
    ([{"role": "assistant", "content": ["text", {"text": 1}]}], {"continue_final_message": True}),
    ([{"role": "assistant", "content": [{"type": "image"}]}], {"continue_final_message": True}),
    ([{"role": "assistant", "content": [5]}], {"continue_final_message": True}),
    ([{"role": "assistant", "content": "x", "tool_calls": "y"}], {"continue_final_message": "tool_calls"}),
    ([{"role": "assistant", "content": "x", "thinking": "t "}], {"continue_final_message": "thinking"}),
    ([{"role": "assistant", "content": "x"}], {"continue_final_message": "zzz_not_there"}),
    # numpy scalars and enums as values and variables
    ([{"role": "user", "content": np.str_("q"), "n": np.int64(3), "flag": np.bool_(False)}],
     {"enable_thinking": np.bool_(False), "bos_token": Color.BLUE}),
    *PYDANTIC_CASES,
]


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("messages,kwargs", CASES)
def test_cases(name, messages, kwargs):
    def fresh() -> Dict[str, Any]:  # one-shot iterators: a new one for each side
        return {k: v.make() if isinstance(v, Fresh) else v for k, v in kwargs.items()}

    expected, exc = transformers_outcome(name, messages, fresh())
    assert_pipeline_parity(name, messages, fresh(), expected=(expected, exc))


# ------------------------------------------------------------------ the API itself


def test_api_misuse_is_a_type_error():
    msgs = [{"role": "user", "content": "q"}]
    name = chatformats.formats()[-1]
    with pytest.raises(TypeError):
        chatformats.apply_chat_template(name, msgs, tokenize=True)
    with pytest.raises(TypeError):
        chatformats.apply_chat_template(name, msgs, chat_template="{{ 1 }}")
    with pytest.raises(TypeError):
        chatformats.apply_chat_template(name, msgs, conversation=msgs)
    with pytest.raises(TypeError):
        chatformats.apply_chat_template(name, msgs, now="today")
    with pytest.raises(chatformats.UnknownFormatError):
        chatformats.apply_chat_template("nope", msgs)


def test_type_errors_are_also_type_errors():
    name = chatformats.formats()[-1]
    with pytest.raises(TypeError) as info:
        chatformats.apply_chat_template(name, [{"role": "user", "content": "q"}, "x"])
    assert isinstance(info.value, PipelineTypeError) and isinstance(info.value, ValueError)


def test_the_caller_data_is_not_modified():
    name = chatformats.formats()[-1]
    msgs = [{"role": "user", "content": "q", "tool_calls": [{"function": {"name": "f", "arguments": {"a": None}}}]},
            {"role": "assistant", "content": "a", "reasoning": "r", "x": None}]
    snapshot = repr(msgs)
    chatformats.apply_chat_template(name, msgs, continue_final_message=True)
    assert repr(msgs) == snapshot


def test_get_json_schema_matches_transformers():
    from transformers.utils import get_json_schema as reference

    from chatformats._json_schema import get_json_schema

    for fn in FUNCTIONS:
        try:
            expected: Any = reference(fn)
        except Exception as exc:  # noqa: BLE001
            expected = (type(exc).__name__, str(exc))
        try:
            got: Any = get_json_schema(fn)
        except ToolSchemaError as exc:
            got = (expected[0] if isinstance(expected, tuple) else "?", str(exc))
        except Exception as exc:  # noqa: BLE001
            got = (type(exc).__name__, str(exc))
        assert got == expected, fn
