"""OpenAI chat-completions request bodies rendered as a vLLM server renders them.

:func:`render_request` turns a request body (the JSON a client POSTs to
``/v1/chat/completions``) into the prompt a vLLM OpenAI-compatible server builds for it with
this format's chat template: vLLM's message preprocessing, its defaults and its keyword
arguments, then transformers' ``apply_chat_template`` (chatformats' pipeline layer).
:func:`preprocess_request` stops before the template: the conversation and the arguments vLLM
passes to ``apply_chat_template``.

Mirrored from vLLM's source (see :data:`VLLM_SOURCE`; ``docs/serving.md`` cites each rule):

1. ``ChatCompletionRequest._normalize_messages_before`` (``chat_completion/protocol.py``): a
   message's deprecated ``reasoning_content`` is removed and becomes its ``reasoning`` unless
   that is set.  The request's validation (pydantic, against the openai package's message TypedDicts) has
   refused what no message type accepts (a null content but for an assistant, a name that is
   not a string) and rebuilt each assistant tool call in field order (:func:`_tool_call`);
2. ``_parse_chat_message_content`` (``entrypoints/chat_utils.py``), per message: a new message
   of ``role`` and ``content``, where ``content`` (``None`` is no parts, a string is one text
   part) is parsed part by part (``_parse_chat_message_content_part``): text-like parts
   (``text``, ``input_text``, ``output_text``, ``refusal``, ``thinking``) give their text, a
   text part whose text is ``None`` is skipped, media parts (``image_url``, ``input_image``,
   ``image_pil``, ``image_embeds``, ``audio_url``, ``input_audio``, ``audio_embeds``,
   ``video_url``) give a placeholder.  With the template's content format ``"openai"`` the
   parts stay a list of ``{"type": "text", "text": ...}`` and ``{"type": "image"}`` (``audio``,
   ``video``) dicts; with ``"string"`` the texts are joined with ``"\\n"`` and the media
   placeholders of the model (``MiniCPM-V``: ``(<image>./</image>)``) are put first, one per
   item, less those the text already holds.  Then: an assistant's ``tool_calls`` (when not
   ``None``) and ``reasoning`` (also copied to ``reasoning_content``); a tool message's
   ``tool_call_id``, and its list content made a string (texts joined with ``"\\n"``) unless a
   part is not text; ``name`` and ``task`` when they are strings; a developer's ``tools``.
   Every other key is dropped;
3. ``_postprocess_messages``: each assistant tool call's ``function.arguments`` string is parsed
   as JSON (``{}`` when it is not JSON), any other non-dict/list value becomes ``{}``; an empty
   ``tool_calls`` list is removed;
4. ``ChatCompletionRequest.build_chat_params`` and ``merge_kwargs`` (``renderers/params.py``):
   the template's keyword arguments are ``chat_template_kwargs`` overridden by the request's
   ``add_generation_prompt`` (default ``True``), ``continue_final_message`` (default
   ``False``), ``documents`` and ``reasoning_effort`` when those are not ``None``, plus
   ``enable_thinking = reasoning_effort != "none"`` when ``reasoning_effort`` is set and
   ``chat_template_kwargs`` has no ``enable_thinking``; ``OnlineRenderer.preprocess_chat``
   puts these over the server's ``--default-chat-template-kwargs`` and the request's tools
   (step 6), leaving out every value that is ``None`` or ``"auto"``;
5. ``resolve_chat_template_kwargs`` (``renderers/hf.py``): ``chat_template`` or ``tokenize`` in
   ``chat_template_kwargs`` is an error; then only the names the template reads or that
   ``apply_chat_template`` takes are kept (a typo is dropped silently, as the server drops it);
6. ``OnlineRenderer.render_chat`` (``renderers/online_renderer.py``): ``tools`` are each
   ``ChatCompletionToolsParam.model_dump()``: ``{"type", "function": {"name", "description",
   "parameters", ["defer_loading"], ...extra keys}}`` (``None`` description and parameters
   kept), or none at all with ``tool_choice: "none"`` when the server runs with
   ``--exclude-tools-when-tool-choice-none``.

What the server does beyond the prompt text (fetching media, validating every field with
pydantic, tokenizing) is out of scope: a request is checked only as far as the shapes that
decide the prompt, and an ill-formed one raises :class:`InvalidRequest`.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Mapping

from ._finding import Finding
from ._registry import ChatFormat, get_format
from .errors import InvalidConversation, UnknownVariableError

__all__ = ["render_request", "audit_request", "preprocess_request", "InvalidRequest", "VLLM_SOURCE"]

#: The vLLM sources this module mirrors (repository ``vllm-project/vllm``), by the commit read.
VLLM_SOURCE = {
    "vllm/entrypoints/chat_utils.py": "001eadcf295d90aa0664963cd6a9d93f38a2f3da",
    "vllm/entrypoints/openai/chat_completion/protocol.py": "002032ee2b18e1f7bd924ec47b62504ba3866063",
    "vllm/renderers/params.py": "017638d70159114c71e4c28cc95f54c3f7699079",
    "vllm/renderers/hf.py": "02e64f581de43218449b3c3450896c43a89f40e0",
    "vllm/renderers/online_renderer.py": "01063cd07bef167f37f6d25a96b1df7d97fe40eb",
}

#: ``MODALITY_PLACEHOLDERS_MAP``'s modalities of each media part type.
_MEDIA_MODALITY = {
    "image_url": "image", "input_image": "image", "image_pil": "image", "image_embeds": "image",
    "audio_url": "audio", "input_audio": "audio", "audio_embeds": "audio",
    "video_url": "video",
}
#: Part types whose content is text (``_parse_chat_message_content_part``).
_TEXT_PARTS = ("text", "input_text", "output_text", "refusal", "thinking")
#: The key holding each text-like part's text (``MM_PARSER_MAP``).
_TEXT_KEY = {"text": "text", "input_text": "text", "output_text": "text", "refusal": "refusal",
             "thinking": "thinking"}
#: Part types whose ``None`` content is skipped (``PART_TYPES_TO_SKIP_NONE_CONTENT``).
_SKIP_NONE = ("text", "refusal")
#: Keys that stand for a media part without a ``type`` (``_parse_chat_message_content_mm_part``).
_UNTYPED_MEDIA = ("image_url", "image_pil", "image_embeds", "audio_embeds", "audio_url",
                  "input_audio", "video_url")

#: jinja2's own default globals: ``meta.find_undeclared_variables`` never lists them, so vLLM's
#: filter drops a ``chat_template_kwargs`` entry of such a name before the template sees it.
_JINJA2_GLOBALS = frozenset({"range", "dict", "lipsum", "cycler", "joiner", "namespace"})

#: The parameters of transformers' ``PreTrainedTokenizerBase.apply_chat_template`` (5.24): vLLM
#: passes these through ``resolve_chat_template_kwargs`` whatever the template reads.
#: ``tests/test_serving_openai.py`` checks the list against transformers' signature.
HF_APPLY_CHAT_TEMPLATE_PARAMS = frozenset({
    "conversation", "tools", "documents", "chat_template", "add_generation_prompt",
    "continue_final_message", "tokenize", "padding", "truncation", "max_length",
    "return_tensors", "return_dict", "return_assistant_tokens_mask", "tokenizer_kwargs",
    "sanitize_control_tokens",
})


class InvalidRequest(InvalidConversation):
    """The request body is not one a vLLM server accepts (a shape that decides the prompt is
    wrong); the message names the field by path (``messages[2].content[0].type``)."""


def _type(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _shown(value: Any) -> str:
    """``value`` for an error message: its ``repr``, cut short (containers three levels deep, a
    few items each, long strings elided), so that no value, however deep or long, fails to be
    shown."""
    import reprlib

    shown = reprlib.Repr()
    shown.maxlevel, shown.maxstring, shown.maxother = 3, 200, 200
    try:
        return shown.repr(value)
    except Exception:  # noqa: BLE001 — a value whose repr fails (an integer too long to print)
        return f"a value of type {_type(value)}"


def _is_str(value: Any, text: str) -> bool:
    """``value == text`` for a request value of any type (a numpy array compares element-wise,
    which no request value that equals ``text`` does)."""
    return isinstance(value, str) and value == text


# ------------------------------------------------------------------ 1-2: messages


def _text_of(part: dict[str, Any], part_type: str, where: str) -> Any:
    text = part.get(_TEXT_KEY[part_type])
    if text is not None and not isinstance(text, str):
        raise InvalidRequest(f"{where}.{_TEXT_KEY[part_type]}: expected a string, got {_type(text)}")
    return text


def _name_of(part: dict[str, Any], where: str) -> Any:
    name = part.get("name")
    if name is not None and not isinstance(name, str):
        raise InvalidRequest(f"{where}.name: expected a string, got {_type(name)}")
    return name


def _part(part: Any, where: str) -> tuple[str, Any]:
    """``_parse_chat_message_content_mm_part`` then ``_parse_chat_message_content_part``: a
    part as ``("text", text)``, ``("media", modality)``, ``("tool_reference", name)`` or
    ``("skip", None)``."""
    if isinstance(part, str):
        return "text", part
    if not isinstance(part, dict):
        raise InvalidRequest(f"{where}: a content part must be an object or a string, got {_type(part)}")
    part_type = part.get("type")
    uuid = part.get("uuid")
    if isinstance(part_type, str) and uuid is None and (
            part_type in _TEXT_KEY or part_type in _MEDIA_MODALITY
            or part_type in ("prompt_embeds", "tool_reference")):
        if part_type in _TEXT_KEY:
            text = _text_of(part, part_type, where)
            if part_type in _SKIP_NONE and text is None:
                return "skip", None  # "Skipping multimodal part ... with empty / unparsable content"
            return "text", text
        if part_type == "tool_reference":
            return "tool_reference", _name_of(part, where)
        if part_type == "prompt_embeds":
            raise InvalidRequest(f"{where}: prompt_embeds parts need a server started with "
                                 "--enable-prompt-embeds, which chatformats does not model")
        if part_type in ("image_embeds", "audio_embeds"):
            raise InvalidRequest(f"{where}: {part_type} parts need a server started with "
                                 "--enable-mm-embeds, which chatformats does not model")
        return "media", _MEDIA_MODALITY[part_type]
    if part_type is None or uuid is not None:
        for key in _UNTYPED_MEDIA:
            if key == "input_audio" and part.get(key) is None:
                continue
            if key in part:
                if key.endswith("_embeds"):
                    raise InvalidRequest(f"{where}: {key} parts need a server started with "
                                         "--enable-mm-embeds, which chatformats does not model")
                return "media", _MEDIA_MODALITY[key]
        if "prompt_embeds" in part:
            raise InvalidRequest(f"{where}: prompt_embeds parts are not modelled")
        if "tool_reference" in part:
            return "tool_reference", _name_of(part, where)  # its "name", as vLLM reads it
        raise InvalidRequest(f"{where}: Missing 'type' field in multimodal part.")
    if not isinstance(part_type, str):
        raise InvalidRequest(f"{where}.type: Invalid 'type' field in multimodal part.")
    raise InvalidRequest(f"{where}.type: Unsupported chat content part type: {_shown(part_type)}.")


def _content(fmt: ChatFormat, content_format: str, parts: list[Any], where: str) -> Any:
    """``_parse_chat_message_content_parts``: the parsed parts as the template takes them."""
    wrapped: list[dict[str, Any]] = []
    texts: list[Any] = []
    media: list[str] = []
    for i, raw in enumerate(parts):
        kind, value = _part(raw, f"{where}[{i}]")
        if kind == "skip":
            continue
        # `if parse_res: content.append(parse_res)`: a part parsed to a falsy value is dropped,
        # which in the "string" format is an empty (or null) text; a dict never is.
        if kind == "text":
            wrapped.append({"type": "text", "text": value})
            if value:
                texts.append(value)
        elif kind == "tool_reference":
            wrapped.append({"type": "tool_reference", "name": value})
            if value:
                texts.append(value)
        else:
            placeholder = fmt.modalities.get(value)
            if placeholder is None:
                raise InvalidRequest(
                    f"{where}[{i}]: {fmt.name} takes no {value} input (the server has no "
                    f"multimodal processor for {value})"
                )
            wrapped.append({"type": value})
            media.append(placeholder)
    if content_format == "openai":
        return wrapped
    # _get_full_multimodal_text_prompt (interleave_strings off, the server's default)
    text = "\n".join(texts)
    if not media:
        return text
    missing: list[str] = []
    counts: dict[str, int] = {}
    for placeholder in media:
        counts[placeholder] = counts.get(placeholder, 0) + 1
    for placeholder, count in counts.items():
        count -= text.count(placeholder)
        if count < 0:
            raise InvalidRequest(
                f"{where}: Found more '{placeholder}' placeholders in input prompt than actual "
                "multimodal data items."
            )
        missing.extend([placeholder] * count)
    return "\n".join(missing + [text]) if text else "\n".join(missing)


def _message(fmt: ChatFormat, content_format: str, message: Any, index: int) -> dict[str, Any]:
    """``_parse_chat_message_content``: one request message as the template receives it."""
    where = f"messages[{index}]"
    if not isinstance(message, dict):
        raise InvalidRequest(f"{where}: a message must be an object, got {_type(message)}")
    if "role" not in message:
        raise InvalidRequest(f"{where}.role: missing")
    role = message["role"]
    if not isinstance(role, str):
        raise InvalidRequest(f"{where}.role: expected a string, got {_type(role)}")
    content = message.get("content")
    if content is None and "content" in message and role not in ("assistant", "function"):
        # only the assistant (and the deprecated function) message types allow a null content
        raise InvalidRequest(f"{where}.content: null is allowed for assistant messages only")
    for key in ("name", "tool_call_id"):
        value = message.get(key)
        if key in message and not isinstance(value, str) and not (key == "tool_call_id" and value is None):
            raise InvalidRequest(f"{where}.{key}: expected a string, got {_type(value)}")
    if content is None:
        parts: list[Any] = []
    elif isinstance(content, str):
        parts = [{"type": "text", "text": content}]
    elif isinstance(content, list):
        parts = content
    else:
        raise InvalidRequest(f"{where}.content: expected a string, a list of parts or null, got "
                             f"{_type(content)}")
    out: dict[str, Any] = {"role": role,
                           "content": _content(fmt, content_format, parts, f"{where}.content")}
    # step 1: reasoning_content is popped; it fills reasoning when that is unset
    reasoning = message.get("reasoning")
    if reasoning is None:
        reasoning = message.get("reasoning_content")
    if role == "assistant":
        tool_calls = message.get("tool_calls")
        if tool_calls is not None:
            if not isinstance(tool_calls, list):
                raise InvalidRequest(f"{where}.tool_calls: expected a list, got {_type(tool_calls)}")
            out["tool_calls"] = [_tool_call(call, f"{where}.tool_calls[{k}]")
                                 for k, call in enumerate(tool_calls)]
        if reasoning is not None:
            out["reasoning"] = reasoning
            out["reasoning_content"] = reasoning
    elif role == "tool":
        if "tool_call_id" in message:
            out["tool_call_id"] = message["tool_call_id"]
        parsed = out["content"]
        if isinstance(parsed, list):
            if any(isinstance(item, dict) and item.get("type") != "text" for item in parsed):
                pass  # structured content (a tool_reference) is kept
            else:
                texts = [item.get("text", "") for item in parsed
                         if isinstance(item, dict) and item.get("type") == "text"]
                out["content"] = "\n".join(texts) if texts else ""
    if isinstance(message.get("name"), str):
        out["name"] = message["name"]
    if isinstance(message.get("task"), str):
        out["task"] = message["task"]
    if role == "developer":
        out["tools"] = message.get("tools")
    return out


def _tool_call(call: Any, where: str) -> Any:
    """An assistant tool call as the request's validation leaves it: the openai package's
    ``ChatCompletionMessageFunctionToolCallParam`` TypedDict, whose pydantic validation requires
    ``id``, ``type: "function"`` and ``function`` with string ``arguments`` and ``name`` (a dict
    ``arguments`` is refused), and rebuilds the dicts in field order, extra keys last:
    ``{"id", "function": {"arguments", "name", ...}, "type", ...}``.  (Step 3 then rewrites
    ``arguments`` in place.)"""
    if not isinstance(call, dict):
        raise InvalidRequest(f"{where}: a tool call must be an object, got {_type(call)}")
    if not isinstance(call.get("id"), str):
        raise InvalidRequest(f"{where}.id: a string is required, got {_type(call.get('id'))}")
    if not _is_str(call.get("type"), "function"):
        raise InvalidRequest(f"{where}.type: 'function' is required, got {_shown(call.get('type'))}")
    function = call.get("function")
    if not isinstance(function, dict):
        raise InvalidRequest(f"{where}.function: expected an object, got {_type(function)}")
    for key in ("arguments", "name"):
        if not isinstance(function.get(key), str):
            raise InvalidRequest(f"{where}.function.{key}: a string is required (a JSON string for "
                                 f"arguments), got {_type(function.get(key))}")
    out_function = {"arguments": function["arguments"], "name": function["name"]}
    out_function.update((k, v) for k, v in function.items() if k not in out_function)
    out = {"id": call["id"], "function": out_function, "type": "function"}
    out.update((k, v) for k, v in call.items() if k not in out)
    return out


def _postprocess(messages: list[dict[str, Any]]) -> list[str]:
    """``_postprocess_messages``: tool-call arguments parsed from JSON strings (whatever JSON
    value they hold, ``"0"`` giving ``0``; ``{}`` when not JSON), anything else that is not a dict
    or list made ``{}``; an empty ``tool_calls`` removed.  Returns the paths of the arguments
    replaced with ``{}`` (what the request said is lost there)."""
    replaced: list[str] = []
    for index, message in enumerate(messages):
        if message["role"] == "assistant" and "tool_calls" in message:
            tool_calls = message["tool_calls"]
            if len(tool_calls) == 0:
                del message["tool_calls"]
                continue
            for number, item in enumerate(tool_calls):
                arguments = item["function"].get("arguments")
                if isinstance(arguments, str):
                    try:
                        item["function"]["arguments"] = json.loads(arguments)
                    except ValueError:  # JSONDecodeError, as vLLM catches it
                        item["function"]["arguments"] = {}
                        if arguments.strip():
                            replaced.append(
                                f"messages[{index}].tool_calls[{number}].function.arguments")
                    except RecursionError:
                        raise InvalidRequest("tool call arguments nested too deeply") from None
                elif not isinstance(arguments, (dict, list)):
                    item["function"]["arguments"] = {}
    return replaced


# ------------------------------------------------------------------ 4-6: arguments and tools


def _merge(defaults: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``merge_kwargs``: ``defaults | overrides`` without the overrides that are ``None`` or
    ``"auto"``."""
    return {**(defaults or {}),
            **{k: v for k, v in overrides.items() if v is not None and not _is_str(v, "auto")}}


def _tools(body: Mapping[str, Any], exclude_when_none: bool) -> list[dict[str, Any]] | None:
    tools = body.get("tools")
    if tools is None or (exclude_when_none and _is_str(body.get("tool_choice", "none"), "none")):
        return None
    if not isinstance(tools, list):
        raise InvalidRequest(f"tools: expected a list, got {_type(tools)}")
    dumped = []
    for i, tool in enumerate(tools):
        where = f"tools[{i}]"
        if not isinstance(tool, dict):
            raise InvalidRequest(f"{where}: a tool must be an object, got {_type(tool)}")
        if not _is_str(tool.get("type", "function"), "function"):
            raise InvalidRequest(f"{where}.type: expected 'function', got {_shown(tool.get('type'))}")
        function = tool.get("function")
        if not isinstance(function, dict):
            raise InvalidRequest(f"{where}.function: expected an object, got {_type(function)}")
        if not isinstance(function.get("name"), str):
            raise InvalidRequest(f"{where}.function.name: expected a string, got "
                                 f"{_type(function.get('name'))}")
        description = function.get("description")
        if description is not None and not isinstance(description, str):
            raise InvalidRequest(f"{where}.function.description: expected a string, got "
                                 f"{_type(description)}")
        parameters = function.get("parameters")
        if parameters is not None and not isinstance(parameters, dict):
            raise InvalidRequest(f"{where}.function.parameters: expected an object, got "
                                 f"{_type(parameters)}")
        # FunctionDefinition.model_dump(): declared fields first, defer_loading only when set,
        # then the extra keys (OpenAIBaseModel allows them) in their order.
        defer = function.get("defer_loading")
        if defer is None:
            defer = tool.get("defer_loading")  # ChatCompletionToolsParam._propagate_defer_loading
        out_function: dict[str, Any] = {"name": function["name"], "description": description,
                                        "parameters": parameters}
        if defer is not None:
            out_function["defer_loading"] = defer
        out_function.update((k, v) for k, v in function.items()
                            if k not in ("name", "description", "parameters", "defer_loading"))
        out: dict[str, Any] = {"type": "function", "function": out_function}
        if tool.get("defer_loading") is not None:
            out["defer_loading"] = tool["defer_loading"]
        dumped.append(out)
    return dumped


def preprocess_request(
    name: str | ChatFormat,
    body: Mapping[str, Any],
    *,
    content_format: str = "auto",
    default_chat_template_kwargs: Mapping[str, Any] | None = None,
    exclude_tools_when_tool_choice_none: bool = False,
    notes: list[Any] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The conversation and the keyword arguments a vLLM server passes to
    ``tokenizer.apply_chat_template`` for request ``body`` (``tools`` among the arguments).

    ``content_format`` is the server's ``--chat-template-content-format`` (``"auto"``: the
    format's own, as vLLM detects it); ``default_chat_template_kwargs`` its
    ``--default-chat-template-kwargs``; ``exclude_tools_when_tool_choice_none`` its
    ``--exclude-tools-when-tool-choice-none``.  ``notes``: a list the preprocessing's own
    losses are appended to, as ``dropped`` findings (:func:`audit_request`).
    """
    fmt = get_format(name)
    if not isinstance(body, Mapping):
        raise InvalidRequest(f"the request body must be an object, got {_type(body)}")
    content_format = _content_format(fmt, content_format)
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise InvalidRequest(f"messages: expected a list of messages, got {_type(messages)}")
    conversation = [_message(fmt, content_format, m, i) for i, m in enumerate(messages)]
    replaced = _postprocess(conversation)
    if notes is not None:
        notes.extend(Finding("", 0, path, 0, "value", (), "dropped",
                             "not JSON: vLLM passes {} to the template instead")
                     for path in replaced)

    chat_template_kwargs = body.get("chat_template_kwargs")
    if chat_template_kwargs is not None and not isinstance(chat_template_kwargs, dict):
        raise InvalidRequest(f"chat_template_kwargs: expected an object, got "
                             f"{_type(chat_template_kwargs)}")
    for key in ("add_generation_prompt", "continue_final_message"):
        if key in body and not isinstance(body[key], bool):
            raise InvalidRequest(f"{key}: expected a boolean, got {_type(body[key])}")
    reasoning_effort = body.get("reasoning_effort")
    extra: dict[str, Any] = {
        "add_generation_prompt": body.get("add_generation_prompt", True),
        "continue_final_message": body.get("continue_final_message", False),
        "documents": body.get("documents"),
        "reasoning_effort": reasoning_effort,
    }
    user_kwargs = chat_template_kwargs or {}
    if reasoning_effort is not None and "enable_thinking" not in user_kwargs:
        extra["enable_thinking"] = not _is_str(reasoning_effort, "none")
    unexpected = {"chat_template", "tokenize"} & set(user_kwargs)
    if unexpected:
        raise InvalidRequest(f"Found unexpected chat template kwargs from request: {unexpected}")
    # build_chat_params: the request's kwargs (None and "auto" kept) under its own fields;
    # OnlineRenderer.preprocess_chat then puts them over the server's defaults and the tools,
    # dropping None and "auto" values: chat_template_kwargs' "tools" wins over the request's.
    request_kwargs = _merge(chat_template_kwargs, extra)
    defaults = _merge(default_chat_template_kwargs, {
        "tools": _tools(body, exclude_tools_when_tool_choice_none)})
    kwargs = _merge(defaults, request_kwargs)
    # The environment globals the template calls (the registry's ``calls``) that jinja2's
    # ``find_undeclared_variables`` lists (all but jinja2's own, such as ``namespace``): vLLM
    # passes a ``chat_template_kwargs`` entry of that name on, which then replaces the function.
    overridden = (fmt.calls - _JINJA2_GLOBALS) & set(kwargs)
    if overridden:
        raise InvalidRequest(
            f"chat_template_kwargs: {', '.join(sorted(overridden))} would replace the template's "
            "own function of that name, which chatformats does not model"
        )
    reads = set(fmt.variables or ()) | {"messages"}
    if notes is not None:
        notes.extend(Finding("", 0, f"chat_template_kwargs.{key}", 0, "value", (), "dropped",
                             f"{fmt.name}'s template does not read {key}: vLLM drops it")
                     for key in user_kwargs
                     if key not in reads and key not in HF_APPLY_CHAT_TEMPLATE_PARAMS)
    kwargs = {k: v for k, v in kwargs.items() if k in reads or k in HF_APPLY_CHAT_TEMPLATE_PARAMS}
    kwargs.pop("conversation", None)  # vLLM passes the conversation under this name itself
    kwargs.pop("return_dict", None)  # get_apply_chat_template_kwargs sets return_dict=False
    kwargs.setdefault("tools", None)  # apply_chat_template's default
    return conversation, kwargs


def render_request(
    name: str | ChatFormat,
    body: Mapping[str, Any],
    *,
    now: datetime | None = None,
    content_format: str = "auto",
    default_chat_template_kwargs: Mapping[str, Any] | None = None,
    exclude_tools_when_tool_choice_none: bool = False,
    strict: bool = False,
) -> str:
    """The prompt a vLLM server builds for OpenAI chat-completions request ``body`` with format
    ``name``'s chat template (see the module docstring for each step and its source).

    With ``strict=True`` what the server would lose or misprint without a word is refused
    instead, naming the request's path: a ``chat_template_kwargs`` entry the template does not
    read (:class:`~chatformats.UnknownVariableError`), tool-call arguments that are not JSON, and
    input the template drops or prints as Python syntax (:class:`~chatformats.SilentInput`; see
    :func:`audit_request` for each finding and the setting that avoids it)."""
    options = _server_options(content_format, default_chat_template_kwargs,
                              exclude_tools_when_tool_choice_none)
    if strict:  # the audited render's text is the prompt (the spans never change it)
        from .errors import SilentInput

        prompt, found = _request_findings(name, body, now, options)
        for finding in found:
            if finding.kind == "control":
                continue
            if finding.path.startswith("chat_template_kwargs."):
                raise UnknownVariableError(f"{finding.path}: {finding.detail}; strict=True "
                                           "refuses it")
            raise SilentInput(f"{finding.path}: {finding.detail}; strict=True refuses it",
                              finding)
        return prompt
    conversation, kwargs = preprocess_request(name, body, **options)
    from .pipeline import apply_chat_template

    result = apply_chat_template(name, conversation, now=now, **kwargs)
    assert isinstance(result, str)  # one conversation
    return result


def audit_request(
    name: str | ChatFormat,
    body: Mapping[str, Any],
    *,
    now: datetime | None = None,
    content_format: str = "auto",
    default_chat_template_kwargs: Mapping[str, Any] | None = None,
    exclude_tools_when_tool_choice_none: bool = False,
) -> tuple[Finding, ...]:
    """The audit of the prompt :func:`render_request` gives (``chatformats.audit_chat_template``
    of the conversation vLLM builds: control strings, dropped input, Python syntax), with what
    the server's own preprocessing loses: tool-call arguments that are not JSON (vLLM passes
    ``{}``) and ``chat_template_kwargs`` entries the template does not read (vLLM drops them).
    Where vLLM's content format leads to a ``repr`` (a template it detects as taking content
    parts prints the parts list), the finding's ``detail`` names the setting that avoids it."""
    options = _server_options(content_format, default_chat_template_kwargs,
                              exclude_tools_when_tool_choice_none)
    return _request_findings(name, body, now, options)[1]


def _content_format(fmt: ChatFormat, content_format: str) -> str:
    """The server's ``--chat-template-content-format``, ``"auto"`` resolved as vLLM detects it
    for the template (the format's ``content_format``)."""
    if content_format == "auto":
        return fmt.content_format
    if content_format not in ("string", "openai"):
        raise ValueError(f"content_format must be 'auto', 'string' or 'openai', not {content_format!r}")
    return content_format


def _server_options(content_format: str, default_chat_template_kwargs: Any,
                    exclude_tools_when_tool_choice_none: bool) -> dict[str, Any]:
    """The server's options, as :func:`preprocess_request` takes them."""
    return {"content_format": content_format,
            "default_chat_template_kwargs": default_chat_template_kwargs,
            "exclude_tools_when_tool_choice_none": exclude_tools_when_tool_choice_none}


def _request_findings(name: Any, body: Mapping[str, Any], now: Any,
                      options: dict[str, Any]) -> tuple[str, tuple[Finding, ...]]:
    """(the prompt, every finding) for :func:`render_request` and :func:`audit_request`."""
    from . import _audit, _core

    notes: list[Finding] = []
    conversation, kwargs = preprocess_request(name, body, notes=notes, **options)
    rendering, found = _audit.pipeline_layer(name, conversation, _core.clock(now), dict(kwargs))
    parts = _content_format(get_format(name), options["content_format"]) == "openai"
    shown = tuple(
        finding._replace(detail=(
            f"{finding.detail}: vLLM passes content to this template as a list of parts "
            "(--chat-template-content-format openai, as it detects the template); the server "
            "option --chat-template-content-format string (content_format='string') passes "
            "the text instead"))
        if parts and finding.kind == "repr" and finding.path.endswith(".content") else finding
        for finding in found)
    return rendering.text, _audit.ordered(shown, notes)
