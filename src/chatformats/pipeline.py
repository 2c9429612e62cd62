"""The pipeline layer: transformers' ``apply_chat_template(..., tokenize=False)`` in pure Python.

transformers (5.x) does more than render the template.  This module mirrors, step by step,
``PreTrainedTokenizerBase.apply_chat_template`` (``tokenization_utils_base.py``) and
``render_jinja_template`` with its helpers (``utils/chat_template_utils.py``) of transformers
:data:`TRANSFORMERS_VERSION`:

1. an empty conversation is an error; a list whose first item is a list/tuple (or has
   ``.messages``) is a batch of conversations;
2. ``_normalize_chat_messages``: message objects (mappings, dataclasses, objects with a callable
   ``model_dump``) become dicts, recursively; every message key whose value is ``None`` is
   dropped; a message that is not a dict then is a ``TypeError``;
3. ``continue_final_message`` and ``add_generation_prompt`` together are an error;
4. the tokenizer's special tokens (``special_tokens_map``) are merged *under* the keyword
   arguments;
5. tools given as functions become JSON schemas (``get_json_schema``, see
   :mod:`chatformats._json_schema`); documents must be dicts;
6. ``_plain_template_data``: everything the template sees is rebuilt from plain JSON types
   (``str``/``int``/``float`` subclasses reduced to the base type, numpy scalars to Python
   ones, mappings to dicts, tuples kept, any other object replaced by ``"<TypeName>"``);
7. ``_alias_reasoning_fields``: ``reasoning_content`` (else ``thinking``, else ``reasoning``)
   is copied to ``reasoning_content`` and ``thinking``;
8. ``continue_final_message``: the continued field is tagged, the template renders, and the
   text is cut at the tag;
9. the template renders with ``messages``, ``tools``, ``documents`` and
   ``add_generation_prompt`` always passed, plus the merged keyword arguments.

Steps 2, 6 and 7 run as one pass over each message (the composition of transformers' three
walks, computed once), in transformers' order: a message's key is dropped when the value the
*first* walk gives is ``None`` (so a value that only the second walk turns into ``None``, such as
numpy's ``NaT``, keeps its key), and every message is converted before the first one that is
not a dict is an error.  The same pass measures depth: a value nested deeper than the nesting
limit is :class:`~chatformats.NestingTooDeep` before anything renders.  Where transformers
raises ``ValueError`` this raises :class:`~chatformats.InvalidConversation` (a ``ValueError``)
with transformers' message verbatim; where it raises ``TypeError``, :class:`PipelineTypeError`,
which is both.  The template renders through the render core (:mod:`chatformats._core`), as
:func:`chatformats.render` does.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from datetime import datetime
from types import FunctionType, MethodType
from typing import TYPE_CHECKING, Any, Callable, List, Mapping as _Mapping, Sequence, Union, cast, overload

from . import _core
from ._core import NESTING_LIMIT
from ._registry import entry, get_format
from ._safety import concurrent, is_mutation
from ._spans import Recorder, build
from .errors import ChatFormatError, InvalidConversation, NestingTooDeep, PipelineTypeError, ToolSchemaError

if TYPE_CHECKING:
    from ._registry import ChatFormat
    from ._spans import Rendering

__all__ = ["apply_chat_template", "apply_chat_template_spans", "PipelineTypeError", "ToolSchemaError", "TRANSFORMERS_VERSION",
           "TRUTH_ONLY", "Truth"]

#: The transformers release whose ``apply_chat_template`` this module mirrors.
TRANSFORMERS_VERSION = "5.24.0"

_REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")
#: The fields ``_alias_reasoning_fields`` fills from the first of those that is set.
_ALIASED_FIELDS = ("reasoning_content", "thinking")
_CONTINUE_TAG = "CONTINUE_FINAL_MESSAGE_TAG "

#: transformers' own parameters of ``apply_chat_template`` that only matter when tokenizing;
#: with ``tokenize=False`` they have no effect there, and none here (they never reach the
#: template).
_TOKENIZER_ONLY_PARAMS = frozenset(
    {"padding", "truncation", "max_length", "return_tensors", "return_dict", "tokenizer_kwargs"}
)


def _reworded(text: str, transformers_message: str) -> PipelineTypeError:
    """A :class:`PipelineTypeError` worded for the caller where transformers' own message
    speaks of its internals ("'NoneType' object is not iterable"); transformers' message is kept
    as ``transformers_message`` (the parity tests compare it verbatim)."""
    err = PipelineTypeError(text)
    err.transformers_message = transformers_message  # type: ignore[attr-defined]
    return err


def _type_name(value: Any) -> str:
    return "None" if value is None else type(value).__name__


# ------------------------------------------------------------------ plain template data


_EXACT_SCALARS = frozenset({str, int, float, bool, type(None)})


def _is_numpy_scalar(value: Any) -> bool:
    # ``isinstance(value, np.generic)`` without importing numpy: a numpy scalar can only exist
    # once numpy is imported.
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.generic)


def _too_deep() -> NestingTooDeep:
    return NestingTooDeep(
        f"input is nested more than {NESTING_LIMIT} levels deep (the nesting limit; see "
        "docs/guarantees.md)"
    )


def _room(depth: int) -> int:
    """The ``room`` of a value at nesting level ``depth``: how many levels of containers fit
    from there within :data:`NESTING_LIMIT` (a container with no room left is refused)."""
    return NESTING_LIMIT - depth + 1


#: The room the first walk alone is given: it has no nesting limit of its own (transformers'
#: ``_message_objects_to_dicts`` recurses until Python's recursion limit).
_NO_LIMIT = sys.maxsize


def _walker(dicts: bool, plain: bool) -> Callable[[Any, int], Any]:
    """transformers' two walks over template data, either one or both composed in one pass:
    ``walk(value, room)``.

    - ``dicts``: ``_message_objects_to_dicts``: mappings, dataclass instances and objects with a
      callable ``model_dump`` become dicts, recursively; keys and every other value untouched.
    - ``plain``: ``_plain_template_data``, branch for branch and in its order: ``str``/``int``/
      ``float`` subclasses reduced to the base type, numpy scalars to Python ones, mappings and
      dataclass instances to dicts (keys converted too), lists and tuples kept, ``model_dump``
      objects dumped, any other object replaced by ``"<TypeName>"``.
    - both: ``_plain_template_data(_message_objects_to_dicts(value))``.  Containers and message
      objects are walked in the first walk's order (so user code runs in transformers' order),
      keys are converted by the second walk alone, and what the first walk leaves as it is gets
      the second's treatment (which cannot fail on it).

    Exact dicts, lists and tuples come first: no subclass test of either walk can match them, so
    each walk's order is kept.  ``room`` as :func:`_room` (counted down, so the check costs no
    global lookup); the first walk alone is given :data:`_NO_LIMIT`.  The flags are fixed when
    the walk is made (one walk per combination, below) rather than passed down: every level of
    nesting would pay for them otherwise (the ``tool_agent`` workload's tools and tool calls).
    """

    def walk(value: Any, room: int) -> Any:
        tp = type(value)
        if tp in _EXACT_SCALARS:
            return value
        if not room and (tp is dict or tp is list or tp is tuple):
            raise _too_deep()
        below = room - 1
        if tp is dict:
            out = {}
            for key, item in value.items():
                if type(item) not in _EXACT_SCALARS:
                    item = walk(item, below)
                if type(key) is not str and plain:
                    key = _plain(key, below)
                out[key] = item
            return out
        if tp is list:
            return [item if type(item) in _EXACT_SCALARS else walk(item, below) for item in value]
        if tp is tuple:
            return tuple([item if type(item) in _EXACT_SCALARS else walk(item, below)
                          for item in value])
        if plain and not dicts:  # the second walk's own first branches
            if isinstance(value, str):
                return str.__str__(value)
            if isinstance(value, int):
                return int.__int__(value)
            if isinstance(value, float):
                return float.__float__(value)
        if not room and (isinstance(value, (Mapping, list, tuple)) or is_dataclass(value)):
            raise _too_deep()
        if isinstance(value, Mapping):
            return {(_plain(key, below) if plain else key): walk(item, below)
                    for key, item in value.items()}
        if isinstance(value, list):
            return [walk(item, below) for item in value]
        if isinstance(value, tuple):
            return tuple([walk(item, below) for item in value])
        if dicts:
            if is_dataclass(value) and not isinstance(value, type):
                return {f.name: walk(getattr(value, f.name), below) for f in fields(value)}
            if callable(getattr(value, "model_dump", None)):
                return walk(value.model_dump(), room)
            # Left as it is by the first walk: the second walk's alone.
            return _plain(value, room) if plain else value
        if _is_numpy_scalar(value):
            return walk(value.item(), room)
        if is_dataclass(value) and not isinstance(value, type):
            return {f.name: walk(getattr(value, f.name), below) for f in fields(value)}
        if callable(getattr(value, "model_dump", None)):
            return walk(value.model_dump(), room)
        return f"<{type(value).__name__}>"

    return walk


#: ``_plain_template_data``.
_plain = _walker(dicts=False, plain=True)
#: ``_message_objects_to_dicts`` (alone only on slow paths: a conversation that is not a list,
#: a message that is a list).
_to_dicts = _walker(dicts=True, plain=False)
#: ``_plain_template_data(_message_objects_to_dicts(value))``: a message's values.
_to_plain_dicts = _walker(dicts=True, plain=True)


def _is_object(value: Any) -> bool:
    """Whether ``_message_objects_to_dicts`` converts ``value`` by calling ``model_dump()``
    (its last branch but one: not a mapping, list, tuple or dataclass instance)."""
    return (
        not isinstance(value, (Mapping, list, tuple))
        and not (is_dataclass(value) and not isinstance(value, type))
        and callable(getattr(value, "model_dump", None))
    )


#: The room of a message's values (level 3: the conversation is level 1, a message level 2).
_ROOM_IN_MESSAGE = _room(3)


def _not_a_message(message: Any) -> PipelineTypeError:
    return PipelineTypeError(
        f"Chat messages should be dicts, dataclasses or pydantic models, but got {message!r}."
    )


def _alias_reasoning(message: dict[Any, Any]) -> dict[Any, Any]:
    """``_alias_reasoning_fields`` for one message: the first of ``reasoning_content``,
    ``thinking``, ``reasoning`` that is set becomes ``reasoning_content`` (in place, or last)
    and ``thinking`` (in place, or first).  ``reasoning`` itself is never filled."""
    for key in _REASONING_FIELDS:
        reasoning = message.get(key)
        if reasoning is not None:
            return {"thinking": reasoning, **message, "reasoning_content": reasoning}
    return message


def _message(message: Any) -> dict[Any, Any] | PipelineTypeError:
    """One message of a list conversation (at depth 2): object to dict, ``None`` values
    dropped, plain data, reasoning aliased; or the error for a message that is not a dict
    (returned, for :func:`_conversation` to raise once every message is converted).

    transformers converts a ``model_dump()`` result recursively, so an object whose
    ``model_dump()`` returns itself (or another such object, forever) ends there in
    ``RecursionError``; here the chain is followed for as many steps as the recursion limit
    allows, then :class:`NestingTooDeep`."""
    if type(message) is dict:
        # The common message: exact-str keys and exact str/int/bool/float values, which every
        # walk keeps as they are and none drops, so the result is a copy (the two scans and
        # dict.copy cost a sixth to a fifth less than the general loop below, which builds it
        # item by item: benchmarks/results/overhead.md).
        for value in message.values():
            tp = type(value)
            if tp is not str and tp is not int and tp is not bool and tp is not float:
                break
        else:
            for key in message:
                if type(key) is not str:
                    break
            else:
                copied: dict[Any, Any] = message.copy()
                if "reasoning_content" in copied or "thinking" in copied or "reasoning" in copied:
                    return _alias_reasoning(copied)
                return copied
    steps = 0
    while True:
        if type(message) is dict or isinstance(message, Mapping):
            pairs: Any = message.items()
            break
        if isinstance(message, (list, tuple)):
            return _not_a_message(_to_dicts(message, _NO_LIMIT))
        if is_dataclass(message) and not isinstance(message, type):
            pairs = [(f.name, getattr(message, f.name)) for f in fields(message)]
            break
        if callable(getattr(message, "model_dump", None)):
            steps += 1  # counted up: an exact dict, the common case, never reads the limit
            if steps > sys.getrecursionlimit():
                raise NestingTooDeep(
                    "a message's model_dump() keeps returning objects that need model_dump() "
                    f"(more than {sys.getrecursionlimit()} times)"
                )
            message = message.model_dump()
            continue
        return _not_a_message(message)
    out: dict[Any, Any] = {}
    for key, value in pairs:
        tp = type(value)
        if tp is str or tp is int or tp is bool or tp is float:
            pass
        elif tp is dict or tp is list or tp is tuple:
            value = _to_plain_dicts(value, _ROOM_IN_MESSAGE)
        elif value is None:
            continue
        else:
            # The first walk's value decides whether the key is dropped: a model_dump() chain
            # ending in None is; a value only the second walk turns into None (NaT) is not.
            steps = sys.getrecursionlimit()
            while _is_object(value):
                steps -= 1
                if steps < 0:  # transformers recurses into RecursionError
                    raise NestingTooDeep(
                        "a value's model_dump() keeps returning objects that need model_dump() "
                        f"(more than {sys.getrecursionlimit()} times)"
                    )
                value = value.model_dump()
            if value is None:
                continue
            value = _to_plain_dicts(value, _ROOM_IN_MESSAGE)
        out[key if type(key) is str else _plain(key, _ROOM_IN_MESSAGE)] = value
    if "reasoning_content" in out or "thinking" in out or "reasoning" in out:
        return _alias_reasoning(out)
    return out


def _conversation(conversation: Any) -> list[dict[Any, Any]]:
    """``_normalize_chat_messages``, then (fused) ``_plain_template_data`` and
    ``_alias_reasoning_fields`` of one conversation."""
    messages = getattr(conversation, "messages", conversation)
    if (type(messages) is list or type(messages) is tuple  # never a Mapping: no ABC check
            or isinstance(messages, (list, tuple)) and not isinstance(messages, Mapping)):
        out = [_message(message) for message in messages]
        if PipelineTypeError in map(type, out):  # the first message that is not a dict
            raise next(message for message in out if type(message) is PipelineTypeError)
        return out  # type: ignore[return-value]
    # Any other object (a mapping, a generator, a string, ...): transformers' steps one by one.
    normalized = []
    try:
        converted = iter(_to_dicts(messages, _NO_LIMIT))
    except TypeError as exc:  # None, a number: transformers fails iterating it
        raise _reworded(f"messages must be a list of messages (dicts), not {_type_name(messages)}",
                        str(exc)) from None
    for message in converted:
        if not isinstance(message, dict):
            if isinstance(messages, str):
                raise _reworded("messages must be a list of messages (dicts), not a string",
                                str(_not_a_message(message))) from None
            if isinstance(messages, Mapping):
                raise _reworded("messages must be a list of messages, not one message (a dict): "
                                "wrap it in a list", str(_not_a_message(message))) from None
            raise _not_a_message(message)
        normalized.append({key: value for key, value in message.items() if value is not None})
    return [_alias_reasoning(_plain(message, _room(2))) for message in normalized]


# ------------------------------------------------------------------ tools


def _tool_schemas(tools: Any) -> list[Any]:
    """``render_jinja_template``'s tool loop: dicts kept, functions and methods converted."""
    schemas: list[Any] = []
    try:
        iter(tools)
    except TypeError as exc:
        raise _reworded(f"tools must be a list of tool schemas (dicts) or functions, not "
                        f"{_type_name(tools)}", str(exc)) from None
    for tool in tools:
        if isinstance(tool, dict):
            schemas.append(tool)
        elif isinstance(tool, (FunctionType, MethodType)):
            from ._json_schema import get_json_schema

            schemas.append(get_json_schema(tool))
        else:
            raise InvalidConversation(
                "Tools should either be a JSON schema, or a callable function with type hints "
                "and a docstring suitable for auto-conversion to a schema."
            )
    return schemas


# ------------------------------------------------------------------ flags passed as given


#: The variables transformers passes to the template without rebuilding them, which every
#: ported template reads only for their truth (``{% if add_generation_prompt %}``, ``x and
#: ...``, ``not x``) and definedness (``x is defined``): ``tests/test_flags.py`` proves it of
#: each reference template's syntax tree, so a template that printed such a value, serialised
#: it or tested it with ``is true`` / ``is false`` would fail that test, not render differently.
TRUTH_ONLY = ("add_generation_prompt",)


class Truth:
    """A value the template only tests for truth, as the template sees it: defined, and true or
    false as Python's ``bool(value)`` says (jinja2's ``if`` is Python's truth), computed where
    the port tests it, as jinja2 computes it where the template does.  A value whose truth
    cannot be told (a numpy array of two elements) fails there as jinja2 fails: its
    ``TypeError`` or ``ValueError`` is a :class:`~chatformats.TemplateTypeError` with the
    same message.  (A numpy bool is not ``True``: ``x is true`` is false for it in jinja2, and
    ``tojson`` fails on it; no ported template reads such a value so, see :data:`TRUTH_ONLY`.)"""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __bool__(self) -> bool:
        try:
            return bool(self.value)
        except (TypeError, ValueError) as exc:
            from .errors import TemplateTypeError

            raise TemplateTypeError(str(exc)) from exc

    def __repr__(self) -> str:
        return f"Truth({self.value!r})"


def _generation_flag(value: Any) -> Any:
    """``add_generation_prompt`` as the ports receive it: JSON-like data unchanged (checked as
    every variable is: a value nested beyond the limit is :class:`NestingTooDeep`), any other
    value as its :class:`Truth`."""
    if type(value) in _EXACT_SCALARS:
        return value
    try:
        _core.check_json_like(value, "add_generation_prompt")
    except NestingTooDeep:
        raise
    except InvalidConversation:  # a numpy bool, a numpy array, any object: its truth
        return Truth(value)
    return value


# ------------------------------------------------------------------ the entry point


def _truth(value: Any) -> bool:
    """``if value:`` in transformers' pipeline: a value whose truth cannot be told (a numpy
    array) fails there with its own message, which this raises verbatim (a resource error passes
    through unchanged)."""
    try:
        return bool(value)
    except MemoryError:
        raise
    except TypeError as exc:
        raise PipelineTypeError(str(exc)) from exc
    except Exception as exc:  # noqa: BLE001 — a ValueError (numpy) or any user error
        raise InvalidConversation(str(exc)) from exc


#: Keyword arguments that clash with a parameter of transformers' call chain
#: (``apply_chat_template(self, conversation, ...)``; ``render_jinja_template(conversations,
#: ...)``; ``Template.render(self, ...)`` with ``messages=``): each fails there before anything
#: renders, with the message below (a ``TypeError``: the call itself is wrong).
_CLASHES = {
    "self": "apply_chat_template() got multiple values for argument 'self'",
    "conversation": "apply_chat_template() got multiple values for argument 'conversation'",
}


Prompt = Union[str, List[str]]



@overload
def apply_chat_template(
    name: str | ChatFormat, messages: Sequence[_Mapping[str, Any]], /, *, tools: Any = None,
    documents: Any = None, add_generation_prompt: Any = False, continue_final_message: Any = False,
    now: datetime | None = None, strict: bool = False, **kwargs: Any,
) -> str: ...


@overload
def apply_chat_template(
    name: str | ChatFormat, messages: Sequence[Sequence[_Mapping[str, Any]]], /, *,
    tools: Any = None, documents: Any = None, add_generation_prompt: Any = False,
    continue_final_message: Any = False, now: datetime | None = None, strict: bool = False,
    **kwargs: Any,
) -> list[str]: ...


@overload
def apply_chat_template(
    name: str | ChatFormat, messages: Any, /, *, tools: Any = None, documents: Any = None,
    add_generation_prompt: Any = False, continue_final_message: Any = False,
    now: datetime | None = None, strict: bool = False, **kwargs: Any,
) -> Prompt: ...


def apply_chat_template(
    name: str | ChatFormat,
    messages: Any,
    /,
    *,
    tools: Any = None,
    documents: Any = None,
    add_generation_prompt: Any = False,
    continue_final_message: Any = False,
    now: datetime | None = None,
    strict: bool = False,
    **kwargs: Any,
) -> Prompt:
    """What ``tokenizer.apply_chat_template(messages, ..., tokenize=False)`` of transformers
    5.24 returns for the tokenizer of format ``name``: the same string (a list of strings for a
    batch of conversations), or a :class:`~chatformats.ChatFormatError` where it fails.

    ``kwargs`` are template variables (``enable_thinking=False``, ``bos_token=...``, ...); they
    override the model's special tokens.  ``now`` is the clock behind ``strftime_now``.
    transformers' own tokenizing parameters are accepted as it treats them with
    ``tokenize=False``: ``padding``, ``truncation``, ``max_length``, ``return_tensors``,
    ``return_dict`` and ``tokenizer_kwargs`` have no effect; ``return_assistant_tokens_mask``
    and ``sanitize_control_tokens`` fail as they fail there; ``chat_template`` is a
    ``TypeError`` (chatformats renders its own templates), and so is a keyword that clashes with
    a parameter of transformers' call chain (``self``, ``conversation``).  ``tokenize=True``
    with ``tokenizer=`` (and ``safe=``) returns token ids as transformers does
    (:func:`chatformats.ids.tokenized`, ``docs/ids.md``).

    ``name`` is a format name or a model id it serves (any case), or a :class:`ChatFormat` (one
    from :func:`chatformats.from_pretrained` carries its model folder's special tokens).  With
    ``strict=True`` a keyword argument the template never reads (besides the special tokens) is
    an :class:`~chatformats.UnknownVariableError`.  A single conversation gives a ``str``, a
    batch (a list of conversations) a ``list[str]``.
    """
    return cast(Prompt, _apply(name, messages, tools, documents, add_generation_prompt,
                               continue_final_message, now, strict, kwargs, False))


@overload
def apply_chat_template_spans(
    name: str | ChatFormat, messages: Sequence[_Mapping[str, Any]], /, *, tools: Any = None,
    documents: Any = None, add_generation_prompt: Any = False, continue_final_message: Any = False,
    now: datetime | None = None, strict: bool = False, **kwargs: Any,
) -> Rendering: ...


@overload
def apply_chat_template_spans(
    name: str | ChatFormat, messages: Sequence[Sequence[_Mapping[str, Any]]], /, *,
    tools: Any = None, documents: Any = None, add_generation_prompt: Any = False,
    continue_final_message: Any = False, now: datetime | None = None, strict: bool = False,
    **kwargs: Any,
) -> list[Rendering]: ...


@overload
def apply_chat_template_spans(
    name: str | ChatFormat, messages: Any, /, *, tools: Any = None, documents: Any = None,
    add_generation_prompt: Any = False, continue_final_message: Any = False,
    now: datetime | None = None, strict: bool = False, **kwargs: Any,
) -> Rendering | list[Rendering]: ...


def apply_chat_template_spans(
    name: str | ChatFormat,
    messages: Any,
    /,
    *,
    tools: Any = None,
    documents: Any = None,
    add_generation_prompt: Any = False,
    continue_final_message: Any = False,
    now: datetime | None = None,
    strict: bool = False,
    **kwargs: Any,
) -> Rendering | list[Rendering]:
    """:func:`apply_chat_template`, with the structure behind the text: a read-only
    :class:`~chatformats.Rendering` (a list of them for a batch of conversations) whose ``.text``
    is exactly what :func:`apply_chat_template` returns for the same arguments (and which fails
    where it fails), whose ``.spans`` say which input value each character came from and whose
    ``.assistant_spans`` are what the model generates (``docs/spans.md``).

    Paths name the values the template received, after transformers' conversions: a tool given
    as a function is ``tools[i]``, its JSON schema; ``reasoning_content`` may be a copy of the
    message's ``reasoning`` or ``thinking``; a ``None``-valued key is gone.  With
    ``continue_final_message`` the rendering is cut where the text is (:meth:`Rendering.cut`).
    """
    return cast("Rendering | list[Rendering]", _apply(
        name, messages, tools, documents, add_generation_prompt, continue_final_message, now, strict,
        kwargs, True))


def _apply(name: Any, messages: Any, tools: Any, documents: Any, add_generation_prompt: Any,
           continue_final_message: Any, now: datetime | None, strict: bool, kwargs: dict[str, Any],
           spans: bool, silent: list[Any] | None = None) -> Any:
    """Both entry points: transformers' steps (the module docstring), then each conversation
    rendered through the render core, with a :class:`~chatformats._spans.Recorder` when
    ``spans`` (the text is the same either way).  With ``strict``, input a render dropped or
    printed as Python syntax is refused (:mod:`chatformats._silent`); ``silent``: a list each
    conversation's ``dropped`` and ``repr`` findings are appended to (a list per conversation)."""
    fmt = get_format(name)
    given_now = now  # for the tokenizing path, which renders through this function again
    now = _core.clock(now, fmt.calls)  # read only where the template calls strftime_now

    # transformers' own parameters, which never reach the template, in the order it reads them.
    sanitize_control_tokens: Any = False
    if kwargs:
        if "self" in kwargs or "conversation" in kwargs:
            raise TypeError(_CLASHES["self" if "self" in kwargs else "conversation"])
        if _truth(kwargs.get("tokenize", False)):  # the tokenizing path: chatformats.ids
            if spans:
                raise TypeError("apply_chat_template_spans renders text: tokenize must be False")
            from .ids import tokenized

            def render(template_kwargs: dict[str, Any]) -> Any:
                return _apply(name, messages, tools, documents, add_generation_prompt,
                              continue_final_message, given_now, strict, template_kwargs, True)

            kwargs["continue_final_message"] = continue_final_message
            return tokenized(name, messages, kwargs, render)
        kwargs.pop("tokenize", None)
        if "tokenizer" in kwargs or "safe" in kwargs:
            raise TypeError("tokenizer= and safe= are for apply_chat_template(tokenize=True)")
        kwargs.pop("return_dict", None)  # with tokenize=False, transformers sets it to False
        if _truth(kwargs.pop("return_assistant_tokens_mask", False)):
            # ``... and not (return_dict and tokenize)``: always true with return_dict=False.
            raise InvalidConversation(
                "`return_assistant_tokens_mask=True` requires `return_dict=True` and `tokenize=True`"
            )
        if kwargs.pop("chat_template", None) is not None:
            raise TypeError("chatformats.apply_chat_template renders the format's own template: "
                            "chat_template is not supported")
        sanitize_control_tokens = kwargs.pop("sanitize_control_tokens", False)
        for param in _TOKENIZER_ONLY_PARAMS.intersection(kwargs):
            del kwargs[param]
    port, calls, _ = entry(name, kwargs, strict, pipeline=True)

    try:
        if isinstance(messages, (list, tuple)) and len(messages) == 0:
            raise InvalidConversation(
                "Cannot apply chat template to an empty conversation. Provide at least one message."
            )
        if isinstance(messages, (list, tuple)) and (
            isinstance(messages[0], (list, tuple)) or hasattr(messages[0], "messages")
        ):
            conversations = []
            for index, conversation in enumerate(messages):
                try:
                    conversations.append(_conversation(conversation))
                except ChatFormatError as exc:  # named by its place in the batch
                    _core.in_batch(exc, index)
                    raise
            is_batched = True
        else:
            conversations = [_conversation(messages)]
            is_batched = False

        if continue_final_message is not False and _truth(continue_final_message) and _truth(add_generation_prompt):
            raise InvalidConversation(
                "continue_final_message and add_generation_prompt are not compatible. Use "
                "continue_final_message when you want the model to continue the final message, and "
                "add_generation_prompt when you want to add a header that will prompt it to start a "
                "new assistant message instead."
            )
        if sanitize_control_tokens is not False and _truth(sanitize_control_tokens):
            raise InvalidConversation(
                "`sanitize_control_tokens=True` requires `tokenize=True` and is not compatible with "
                "`return_assistant_tokens_mask=True`."
            )

        template_kwargs = {**fmt.special_tokens, **kwargs}
        if "conversations" in template_kwargs:
            raise PipelineTypeError(
                "transformers.utils.chat_template_utils.render_jinja_template() got multiple values "
                "for keyword argument 'conversations'"
            )

        tool_schemas = None if tools is None else _tool_schemas(tools)
        if documents is not None:
            try:
                iter(documents)
            except TypeError as exc:
                raise _reworded(f"documents must be a list of dicts, not {_type_name(documents)}",
                                str(exc)) from None
            for document in documents:
                if not isinstance(document, dict):
                    raise PipelineTypeError(
                        "Documents should be a list of dicts with 'title' and 'text' keys!"
                    )
        # _plain(template_kwargs, _room(0)), each variable at level 1: the dict is this call's
        # own, so while its keys are exact strings (keyword names, special tokens' names) only
        # the values that are not plain scalars are rebuilt, in place, in the walk's order.
        variables = template_kwargs
        for key, value in template_kwargs.items():
            if type(key) is not str:  # the walk from here (what is rebuilt is plain already)
                variables = _plain(template_kwargs, _room(0))
                break
            if type(value) not in _EXACT_SCALARS:
                template_kwargs[key] = _plain(value, _room(1))
        variables["tools"] = None if tool_schemas is None else _plain(tool_schemas, _room(1))
        variables["documents"] = None if documents is None else _plain(documents, _room(1))
    except ChatFormatError:
        raise
    except RecursionError:
        raise NestingTooDeep("input is nested too deeply to convert") from None
    except MemoryError:  # a resource error, not a conversion error: unchanged
        raise
    except TypeError as exc:
        raise PipelineTypeError(str(exc)) from exc
    except Exception as exc:  # a user object's model_dump, __iter__, ... failed: its message
        if is_mutation(exc):
            raise concurrent("the input") from exc
        raise InvalidConversation(str(exc)) from exc
    # Passed to the template as given (transformers does not rebuild it): JSON-like data as it
    # is, any other value (a numpy bool, what ``x > 0`` gives on a numpy value) as its truth.
    variables["add_generation_prompt"] = _generation_flag(add_generation_prompt)

    rendered: list[Any] = []
    if continue_final_message:
        continue_final_message = (
            continue_final_message if isinstance(continue_final_message, str) else "content"
        )
    for index, chat in enumerate(conversations):
        try:
            rendered.append(_render_one(name, fmt, port, calls, chat, variables, now, spans,
                                        continue_final_message, strict, silent))
        except ChatFormatError as exc:
            if is_batched:  # named by its place in the batch
                _core.in_batch(exc, index)
            raise
    return rendered if is_batched else rendered[0]


def _render_one(name: Any, fmt: Any, port: Any, calls: Any, chat: list[Any],
                variables: dict[str, Any], now: datetime, spans: bool,
                continue_final_message: Any, strict: bool = False,
                silent: list[Any] | None = None) -> Any:
    """One conversation of :func:`_apply`, converted: ``continue_final_message``'s tagging, the
    render through the render core (with a recorder when ``spans``, ``strict`` or ``silent``),
    the cut at the tag; with ``strict``, the input it dropped or printed as Python syntax
    refused, and with ``silent``, those findings appended (a list per conversation)."""
    final_message: Any = None
    if continue_final_message:
        final_message = _final_message(fmt, chat, continue_final_message)
    if "messages" in variables:  # render(messages=chat, **kwargs) in transformers
        raise PipelineTypeError(
            "jinja2.environment.Template.render() got multiple values for keyword argument "
            "'messages'"
        )
    if spans or strict or silent is not None:
        recorder = Recorder()
        rendering = build(_core.call_port(name, port, calls, chat, variables, now, recorder),
                          recorder)
        if continue_final_message:
            rendering = rendering.cut(len(_cut_at_tag(rendering.text, final_message)))
        if strict or silent is not None:
            found = _silent_findings(name, fmt, port, calls, chat, variables, now,
                                     continue_final_message, final_message, rendering)
            if silent is not None:
                silent.append(found)
            if strict:
                from ._silent import check

                check(found, fmt.name)
        return rendering if spans else rendering.text
    text = _core.call_port(name, port, calls, chat, variables, now)
    if continue_final_message:
        text = _cut_at_tag(text, final_message)
    return text


def _final_message(fmt: Any, chat: Any, continue_final_message: str) -> Any:
    """The final message tagged for ``continue_final_message`` (``_tag_final_message``)."""
    try:
        return _tag_final_message(fmt.template_file, chat, continue_final_message)
    except (ChatFormatError, MemoryError):
        raise
    except Exception as exc:  # a str subclass whose __hash__ or __eq__ fails, ...
        raise InvalidConversation(
            f"continue_final_message: {type(exc).__name__}: {exc}"
        ) from exc


def _silent_findings(name: Any, fmt: Any, port: Any, calls: Any, chat: Any,
                     variables: dict[str, Any], now: datetime, continue_final_message: Any,
                     final_message: Any, rendering: Any) -> list[Any]:
    """The ``dropped`` and ``repr`` findings of one conversation's ``rendering``, confirmed by
    rendering changed copies the way :func:`_apply` renders ``chat`` (the text cut at the
    continued ``final_message`` where ``continue_final_message`` asks)."""
    from ._registry import silent_findings

    def rerender(other: Any, other_variables: Any) -> str:
        text: str = _core.call_port(name, port, calls, other, other_variables, now)
        # ``chat``'s final message is tagged already (in place), and so is the copy's.
        return _cut_at_tag(text, final_message) if continue_final_message else text

    return silent_findings(name, port, calls, chat, now, variables, rendering, rerender)


def _tag_final_message(template_file: str, chat: list[Any], field: str) -> Any:
    """``render_jinja_template``'s checks before rendering a continued message, and its tagging
    of the continued text; returns the text to continue."""
    if not chat:
        raise InvalidConversation("continue_final_message is set but the conversation is empty!")
    last = chat[-1]
    final_message = last.get(field)
    if final_message is None:
        raise InvalidConversation(
            f'continue_final_message is set but the final message has no "{field}" to continue!'
        )
    continue_fields = [field]
    if field in _REASONING_FIELDS:
        # Reasoning is copied under several names: tag every copy the template may read.
        continue_fields = [f for f in _REASONING_FIELDS if last.get(f) == final_message]
    from ._template_sources import SOURCES

    source = SOURCES[template_file]
    if not any(f in source for f in continue_fields):
        raise InvalidConversation(
            f'continue_final_message is set to "{field}" but this is not an accepted field in the chat_template'
        )
    try:
        if isinstance(final_message, (list, tuple)):
            for block in reversed(final_message):
                if "text" in block:
                    # The last text block is continued.
                    final_message = block["text"]
                    block["text"] = block["text"] + _CONTINUE_TAG
                    break
            else:
                raise InvalidConversation(
                    "continue_final_message is set but we could not find any text to continue in the final message!"
                )
        else:
            for f in continue_fields:
                last[f] = last[f] + _CONTINUE_TAG
    except TypeError as exc:
        raise PipelineTypeError(str(exc)) from exc
    return final_message


def _cut_at_tag(rendered: str, final_message: str) -> str:
    """The rendered text up to the tag (and, when the template trimmed the space after the tag,
    without the trailing whitespace before it)."""
    tag = _CONTINUE_TAG.strip()
    if final_message.strip() not in rendered or tag not in rendered:
        raise InvalidConversation(
            "continue_final_message is set but the final message does not appear in the chat after "
            "applying the chat template! This can happen if the chat template deletes portions of "
            "the final message. Please verify the chat template and final message in your chat to "
            "ensure they are compatible."
            f"Final message to continue: {final_message.strip()}\nRendered chat:\n{rendered}"
        )
    tag_loc = rendered.rindex(tag)
    if rendered[tag_loc : tag_loc + len(_CONTINUE_TAG)] == _CONTINUE_TAG:
        return rendered[:tag_loc]
    return rendered[:tag_loc].rstrip()
