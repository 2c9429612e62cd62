"""One input row, from its JSON to the prompt: the three input shapes
(:func:`parse_conversation`), what a run fixes for every input (:class:`Options`), and rendering
one conversation at a layer (:func:`render_conversation`), with the input errors and reading a
JSON file.  The command line (``render``, ``verify``), the Ray stages and the Parquet stage share
it, so it stands below all three."""

from __future__ import annotations

import importlib
import json
import sys
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from . import _io
from ._registry import formats, get_format
from .errors import ChatFormatError

_name = _io.name


class InputError(Exception):
    """An input that cannot be rendered; the message names where (path) and what is wrong."""


def _describe(exc: BaseException) -> str:
    """One line: the error's kind and message."""
    if isinstance(exc, InputError):
        text = str(exc)
    else:
        text = f"{type(exc).__name__}: {exc}"
    return text.replace("\r", "\\r").replace("\n", "\\n")


def _too_long(exc: ValueError) -> str:
    """``json.loads``' refusal of an integer of more digits than
    ``sys.get_int_max_str_digits()`` allows, in a few words."""
    return f"a number is too long ({exc})".replace(
        "; use sys.set_int_max_str_digits() to increase the limit", "")


def _read_json(path: str) -> Any:
    """The JSON document in ``path`` (``-``: stdin); raises :class:`InputError` naming the
    file and, for invalid JSON, the line and column."""
    try:
        raw = _io.read_all(path)
    except _io.ReadError as exc:
        raise InputError(str(exc)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{_name(path)}: not UTF-8 (byte {exc.start + 1})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{_name(path)}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(f"{_name(path)}: invalid JSON: nested too deeply") from None
    except ValueError as exc:
        raise InputError(f"{_name(path)}: invalid JSON: {_too_long(exc)}") from None

LAYERS = ("template", "pipeline")

#: The variables each template reads from its caller (besides ``messages``): the registry's
#: ``variables``.  ``tests/test_cli.py`` checks this table against jinja2.
TEMPLATE_VARIABLES: dict[str, tuple[str, ...]] = {
    name: get_format(name).variables or () for name in formats()
}

#: Names the Python API takes for itself: not usable as template variables from the command line.
_RESERVED = frozenset({"messages", "name", "now"})
#: The pipeline layer's named parameters, taken out of the variables.
_PIPELINE_PARAMS = ("tools", "documents", "add_generation_prompt", "continue_final_message")
#: Top-level fields of an OpenAI chat-completions request that vLLM forwards to the template.
_REQUEST_TEMPLATE_FIELDS = ("add_generation_prompt", "continue_final_message", "documents")


# ------------------------------------------------------------------ inputs


@dataclass
class Conversation:
    """One input, as the layers take it: the messages and the template variables."""

    messages: Any
    variables: dict[str, Any] = field(default_factory=dict)
    #: From an OpenAI request body: its ``chat_template_kwargs`` are meant for whichever model
    #: serves it (a server drops the names a template does not read), so they draw no warning.
    from_request: bool = False


def parse_conversation(data: Any) -> Conversation:
    """The three input shapes.

    - a list of messages;
    - an OpenAI chat-completions request body (an object with ``messages`` and ``model`` or
      ``chat_template_kwargs``): ``messages``, ``tools``, the fields vLLM forwards to the
      template (``add_generation_prompt``, ``continue_final_message``, ``documents``) when
      present, then ``chat_template_kwargs`` merged over them, as vLLM merges them; every
      other field (``model``, ``temperature``, ``stream``, ...) is ignored;
    - any other object with ``messages``: every other key is a template variable.
    """
    if isinstance(data, list):
        return Conversation(data)
    if not isinstance(data, dict):
        raise InputError(
            f"expected a list of messages or an object with \"messages\", got {_json_type(data)}"
        )
    if "messages" not in data:
        raise InputError(
            "expected a list of messages or an object with \"messages\" "
            f"(an OpenAI chat-completions request body); found keys: {_keys(data)}"
        )
    messages = data["messages"]
    if "model" in data or "chat_template_kwargs" in data:
        variables: dict[str, Any] = {}
        if "tools" in data:
            variables["tools"] = data["tools"]
        for name in _REQUEST_TEMPLATE_FIELDS:
            if name in data:
                variables[name] = data[name]
        kwargs = data.get("chat_template_kwargs")
        if kwargs is not None:
            if not isinstance(kwargs, dict):
                raise InputError(
                    f"chat_template_kwargs: expected an object, got {_json_type(kwargs)}"
                )
            variables.update(kwargs)
    else:
        variables = {key: value for key, value in data.items() if key != "messages"}
    reserved = sorted(_RESERVED.intersection(variables))
    if reserved:
        raise InputError(
            f"{reserved[0]}: cannot be a template variable (chatformats' own parameter)"
        )
    from_request = "model" in data or "chat_template_kwargs" in data
    return Conversation(messages, variables, from_request=from_request)


def _json_type(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}.get(type(value), "a value")


def _keys(data: dict[str, Any]) -> str:
    keys = list(data)
    shown = ", ".join(json.dumps(k, ensure_ascii=False) for k in keys[:8])
    return (shown + (", ..." if len(keys) > 8 else "")) or "none"


# ------------------------------------------------------------------ rendering


@dataclass(frozen=True)
class Options:
    """What the command line decides for every input (picklable, sent to worker processes)."""

    format: str
    layer: str = "pipeline"
    generation_prompt: bool = False
    now: datetime | None = None
    variables: tuple[tuple[str, Any], ...] = ()
    #: ``--strict``: refuse unknown variables, dropped input and Python syntax in the prompt.
    strict: bool = False

    def clock(self) -> datetime:
        return self.now if self.now is not None else datetime.now()


def _variables(conv: Conversation, opts: Options) -> dict[str, Any]:
    variables = dict(conv.variables)
    variables.update(opts.variables)
    if opts.generation_prompt:
        variables["add_generation_prompt"] = True
    return variables


#: transformers' own ``apply_chat_template`` parameters: the pipeline layer treats (or refuses)
#: them itself, so they are no template variables to warn about.
_TRANSFORMERS_PARAMS = frozenset({
    "tokenize", "chat_template", "padding", "truncation", "max_length", "return_tensors",
    "return_dict", "return_assistant_tokens_mask", "tokenizer_kwargs", "sanitize_control_tokens",
})

#: Unknown variables already reported by this process (each set once per run).
_WARNED: set[tuple[str, tuple[str, ...]]] = set()


def warn_unknown_variables(format_name: str, names: Any) -> None:
    """One line on stderr when ``names`` holds variables the template never reads (a typo such
    as ``enable_thinkng`` renders without a word otherwise), listing those it reads."""
    fmt = get_format(format_name)
    if fmt.variables is None:
        return
    known = (set(fmt.variables) | set(_PIPELINE_PARAMS) | set(fmt.special_tokens)
             | _TRANSFORMERS_PARAMS)
    unknown = tuple(sorted(set(names) - known))
    if not unknown or (fmt.name, unknown) in _WARNED:
        return
    _WARNED.add((fmt.name, unknown))
    sys.stderr.write(
        f"chatformats: warning: {fmt.name} does not read {', '.join(unknown)} (a typo?); "
        f"the template reads {', '.join(fmt.variables) or 'no variables'}\n"
    )


def render_conversation(conv: Conversation, opts: Options) -> str:
    """Render one input at the chosen layer; raises :class:`ChatFormatError` or
    :class:`InputError`."""
    variables = _variables(conv, opts)
    if conv.variables and not conv.from_request:
        warn_unknown_variables(opts.format, conv.variables)
    now = opts.clock()
    try:
        if opts.layer == "template":
            return get_format(opts.format).render(conv.messages, now=now, strict=opts.strict,
                                                  **variables)
        apply_chat_template = _apply_chat_template()
        params = {name: variables.pop(name) for name in _PIPELINE_PARAMS if name in variables}
        result = apply_chat_template(opts.format, conv.messages, now=now, strict=opts.strict,
                                     **params, **variables)
    except ChatFormatError:
        raise
    except TypeError as exc:  # a variable the Python API refuses (tokenize, chat_template, ...)
        raise InputError(str(exc)) from None
    if not isinstance(result, str):
        raise InputError(
            "messages: a batch of conversations (a list of lists); give one conversation per "
            "line with --jsonl"
        )
    return result


def _apply_chat_template() -> Callable[..., Any]:
    """The pipeline layer, imported on first use."""
    module = importlib.import_module("chatformats.pipeline")
    fn: Callable[..., Any] = module.apply_chat_template
    return fn


def _parse_line(raw: bytes, lineno: int) -> Conversation:
    """One JSONL line to a conversation (raises :class:`InputError`)."""
    try:
        text = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 (byte {exc.start + 1})") from None
    text = text.rstrip("\r\n")
    if not text.strip():
        raise InputError("blank line: expected one conversation as JSON")
    return parse_conversation(_loads(text))


def _loads(text: str, what: str = "") -> Any:
    """One line's JSON (a ``--jsonl`` line, a Ray or Parquet cell), or :class:`InputError`
    worded as a line's, after ``what``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{what}invalid JSON at column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InputError(f"{what}invalid JSON: nested too deeply") from None
    except ValueError as exc:  # an integer longer than Python converts from text
        raise InputError(f"{what}invalid JSON: {_too_long(exc)}") from None


def _parse_file(path: str) -> Conversation:
    data = _read_json(path)
    try:
        return parse_conversation(data)
    except InputError as exc:
        raise InputError(f"{_name(path)}: {exc}") from None
