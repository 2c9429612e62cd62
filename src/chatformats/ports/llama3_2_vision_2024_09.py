"""Port of ``reference_templates/llama3_2_vision_2024_09.jinja``.

Meta Llama 3.2 11B/90B Vision Instruct, the template as Meta published it in September 2024: the
"Cutting Knowledge Date: December 2023 / Today Date" system block, which is left out when any
message carries an image (and a system message together with images raises), single JSON tool
calls, the ``ipython`` role and ``tools_in_user_message``.  Laid out like the template: the
variable defaults (lines 1-17), the system-message extraction (19-25), the image scan (27-35, as
:class:`Namespace`, from :func:`scan`), the images-and-system check (37-40), the system block (42-61), the
tools in the first user message (63-82), the message loop (84-119) and the generation prompt
(120-122).  ``Lnn`` comments cite template lines.

Whitespace: every statement and comment strips what precedes it (``{%-``, ``{#-``, ``{{-``), so the
blank lines 18, 26, 36, 41, 62 and 83 emit nothing, nor do the six spaces after line 28's tag
(``{% set image_ns ... %}      ``, stripped by line 29's ``{%-``).

The source-document variant (``ports/llama3_2_vision.py``) is this template with the tool
instructions reworded and seven ``{# ... #}`` comments without whitespace control, each of which
leaves one newline in the prompt; every other difference between the two texts renders alike
(``x in ['a', 'b']`` for ``x == 'a' or x == 'b'``, ``a != b`` for ``not a == b``, one string
literal for two).  So both render through :func:`render_with`, each with its own :class:`Wording`.

A caller variable named like a global the template calls (``strftime_now``,
``raise_exception``, ``namespace``) shadows it, as in jinja2: the render core applies that rule
for every format (``chatformats._core.call_port``); this port calls ``namespace`` where the
template does (L28).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Iterable, Mapping, Sequence

from .._jinja import (
    MISSING,
    concat_error,
    contains,
    item,
    iterate,
    namespace,
    need_str,
    strftime_now,
    to_str,
    trim,
)
from .._record import Record, setters
from .._spans import Recorder
from ..errors import TemplateError
from ._llama3 import (
    ASSISTANT_HEAD as _ASSISTANT_HEAD,
    ENVIRONMENT as _ENVIRONMENT,
    EOT as _EOT,
    KNOWLEDGE as _KNOWLEDGE,
    SYSTEM_HEAD as _SYSTEM_HEAD,
    SYSTEM_TOOLS,
    TOOL_ROLES as _TOOL_ROLES,
    USER_TOOLS,
    first_user_tools,
    ipython_turn,
    json_call,
    path as _path,
    single_call,
    tools_json,
)

_IMAGE = "<|image|>"  # L92

_MSG_IMAGES = "Prompting with images is incompatible with system messages."  # L39

Emit = Callable[[str], None]
Extend = Callable[[Iterable[str]], None]


class Wording:
    """The text in which the original and its source-document variant differ.

    ``blank`` is what each of the seven places between the template's sections emits (the
    original's blank lines are stripped: ``""``; the variant's ``{# #}`` comments leave
    ``"\\n"``); ``system_tools`` is the instruction before the tool list in the system block
    (L51-53); ``user_tools`` is the first user message's head up to the tool list (L72-76);
    ``system_with_images`` is the later revision's rule (``llama3_2_vision_2024_12.jinja``): a
    system message the caller supplied is rendered alongside images instead of raising (L38-43).
    """

    __slots__ = ("blank", "system_tools", "user_tools", "system_with_images")

    blank: str
    system_tools: str
    user_tools: str

    system_with_images: bool

    def __init__(self, blank: str, system_tools: str, user_tools: str,
                 system_with_images: bool = False) -> None:
        self.blank = blank
        self.system_tools = system_tools
        self.user_tools = user_tools
        self.system_with_images = system_with_images


WORDING = Wording(
    blank="",  # L18, L26, L36, L41, L62, L83 (and none before L120): stripped
    system_tools=SYSTEM_TOOLS,  # L51-53 (ports/_llama3.py)
    user_tools=USER_TOOLS,  # L72-76 (ports/_llama3.py)
)
"""Meta's wording (lines 51-53 and 72-76)."""


class _NamespaceFields:
    """The fields of :class:`Namespace`, written while :func:`_namespace` builds one."""

    __slots__ = ("has_images",)

    has_images: bool


class Namespace(Record, _NamespaceFields):
    """L28-35: ``image_ns = namespace(has_images=false)`` after the scan: true when some list
    content item (of a message after the system message) is a mapping whose ``type`` is
    ``"image"``."""

    __slots__ = ()


#: A record built without its constructor; its fields are then written through the
#: slots' setters (assigning ``__class__`` would raise an audit event on every render).
_new = object.__new__
_set_namespace_has_images = setters(Namespace)["has_images"]


def _namespace(has_images: bool) -> Namespace:
    """A :class:`Namespace` built without the record's constructor (it is built on every render): the
    fields are written through the slots' setters, bound once at import; no ``__class__``
    assignment, which raises an audit event."""
    made = _new(Namespace)
    _set_namespace_has_images(made, has_images)
    return made


def scan(messages: Sequence[Any], offset: int) -> Namespace:
    """L29-35: ``for message in messages: for content in message['content']: if
    content['type'] == 'image'``.

    Jinja iterates every content, so a string content is walked character by character (and a
    character's ``['type']`` is undefined), a mapping by its keys (strings again); only list and
    tuple items can be images.  The port inspects only those, and fails where Jinja's iteration
    fails: a content that is ``None``, a number or a boolean.  A missing content and a message
    that is not a mapping (``message['content']`` undefined) iterate nothing.
    """
    has_images = False
    for index, message in enumerate(messages):
        if type(message) is not dict:
            continue  # L30: message['content'] of a non-mapping is undefined
        content = message.get("content", MISSING)
        tp = type(content)
        if tp is list or tp is tuple:
            if not has_images:
                for part in content:
                    # L31: content['type'] == 'image' (undefined for anything but a mapping)
                    if type(part) is dict and part.get("type", MISSING) == "image":
                        has_images = True  # L32
                        break
        elif tp is str or tp is dict or content is MISSING:
            pass  # iterates characters / keys / nothing: never an image
        else:
            iterate(content, f"messages[{index + offset}].content")  # raises
    return _namespace(has_images=has_images)


def content_parts(emit: Emit, content: Any, index: int, spans: Recorder | None) -> None:
    """L89-97: a content that is not a string, item by item: ``<|image|>`` for an image, the
    text of a text item, nothing for anything else.  (The L30 scan already failed on a content
    that is not iterable.)"""
    if type(content) is not list and type(content) is not tuple:
        content = iterate(content, _path(index, ".content"))  # a mapping's keys, or nothing
    for part_index, part in enumerate(content):
        if type(part) is dict:  # content['type'] is undefined for anything else
            part_type = part.get("type", MISSING)
            if part_type == "image":  # L91-92
                emit(_IMAGE)
            elif part_type == "text":  # L93-94
                text = part.get("text", MISSING)
                if spans is not None:
                    spans.source(f"messages[{index}].content[{part_index}].text")
                emit(text if type(text) is str else to_str(text))


def tool_call_turn(extend: Extend, message: Any, index: int, spans: Recorder | None) -> None:
    """L100-109: the message's single tool call as ``{"name": ..., "parameters": ...}`` in an
    assistant turn, whatever the message's role (the checks and the body: ``ports/_llama3.py``)."""
    name, arguments = single_call(message, index)  # L100-103
    if spans is not None:  # generated: after the assistant header, through <|eot_id|>
        spans.open(after=_ASSISTANT_HEAD)
    extend((_ASSISTANT_HEAD,))  # L104
    json_call(extend, name, arguments, index, spans)  # L105-108
    extend((_EOT,))  # L109
    if spans is not None:
        spans.close()


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    return render_with(messages, variables, now, WORDING, spans)


def render_with(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime, wording: Wording,
                spans: Recorder | None = None) -> str:
    """The template with ``wording`` (:data:`WORDING` for Meta's own).

    With ``spans``, each assistant turn's generated range starts after its
    ``<|start_header_id|>assistant<|end_header_id|>\\n\\n`` and ends after its ``<|eot_id|>``:
    the turns of role ``assistant`` (L85-98) and every tool-call turn (L99-109, which the
    template writes under the assistant header whatever the message's role)."""
    blank = wording.blank
    get = variables.get
    out: list[str] = spans.pieces if spans is not None else []
    emit = out.append
    extend = out.extend

    if spans is not None:
        spans.source("bos_token")
    emit(to_str(get("bos_token", MISSING)))  # L1 (its newline is stripped by L2's `{%-`)

    tools = get("tools", MISSING)
    custom_tools = get("custom_tools", MISSING)
    if custom_tools is not MISSING:  # L2-4
        tools = custom_tools
    tools_in_user_message = get("tools_in_user_message", MISSING)
    if tools_in_user_message is MISSING:  # L5-7
        tools_in_user_message = True
    date_string = get("date_string", MISSING)
    if date_string is MISSING:  # L8-14
        # L9: `strftime_now is defined` is always true: the environment defines it, and a
        # caller's variable of that name (any JSON value, None included) is defined too.
        date_string = strftime_now(now, "%d %b %Y")  # L10
        # L12 (the "26 Jul 2024" fallback) is never reached.
    if tools is MISSING:  # L15-17
        tools = None

    emit(blank)  # L18
    # L20-25: extract the system message.
    first = item(messages, 0, "messages")
    if item(first, "role", "messages[0]") == "system":
        system_message = trim(item(first, "content"))  # L21
        messages = messages[1:]  # L22
        offset = 1
    else:
        system_message = ""  # L24
        offset = 0

    emit(blank)  # L26
    namespace(variables)  # L28: the call itself (a caller's `namespace` variable shadows it)
    image_ns = scan(messages, offset)  # L28-35

    emit(blank)  # L36
    if wording.system_with_images:
        # The later revision: no check; the system block when the caller supplied a system
        # message (its ``user_supplied_system_message``, set where L21-22 take it) or no image.
        system_block = offset == 1 or not image_ns.has_images
    else:
        if image_ns.has_images and not system_message == "":  # L38-40
            raise TemplateError(_MSG_IMAGES)
        emit(blank)  # L41
        system_block = not image_ns.has_images
    if system_block:  # L43-61: the system block
        emit(_SYSTEM_HEAD)  # L44
        if tools is not None:  # L45-47
            emit(_ENVIRONMENT)
        emit(_KNOWLEDGE)  # L48
        if spans is not None and "date_string" in variables:  # the caller's; else the clock's
            spans.line("date_string")
        extend(("Today Date: ", need_str(date_string, "date_string"), "\n\n"))  # L49
        if tools is not None and not tools_in_user_message:  # L50-58
            emit(wording.system_tools)  # L51-53
            tools_json(extend, tools, variables, spans)  # L54-57
        if spans is not None and offset:
            spans.field(0, ".content")
        emit(system_message)  # L59
        emit(_EOT)  # L60

    emit(blank)  # L62
    if tools_in_user_message and not tools is None:  # L64-82: tools in the first user message
        # L66-81 (ports/_llama3.py), with this wording's instruction
        messages, offset = first_user_tools(extend, messages, offset, tools, variables, spans,
                                            wording.user_tools)

    emit(blank)  # L83
    for index, message in enumerate(messages, offset):  # L84-119
        if type(message) is dict:
            role = message.get("role", MISSING)
            content = message.get("content", MISSING)
            has_tool_calls = "tool_calls" in message
        else:  # message.role is undefined; `in` is a substring/element test, or fails
            role = content = MISSING
            has_tool_calls = contains(message, "tool_calls", _path(index))
        # L85: not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message)
        if not (role in _TOOL_ROLES or has_tool_calls):
            if type(role) is not str:  # L86: message['role'] (undefined for a non-mapping)
                raise concat_error(role, _path(index, ".role"))
            if type(content) is str:  # L86, L87-88, L98
                # One extend for the header, a string content and <|eot_id|> (the common
                # case): one call instead of the three of the branch below.
                if spans is not None:  # an assistant's: generated after the header, through <|eot_id|>
                    spans.message(index, generated=_ASSISTANT_HEAD if role == "assistant" else None)
                extend(("<|start_header_id|>", role, "<|end_header_id|>\n\n", content, _EOT))
            else:
                if spans is not None:
                    spans.fields(index, ".role")
                    if role == "assistant":
                        spans.open(after=_ASSISTANT_HEAD)
                extend(("<|start_header_id|>", role, "<|end_header_id|>\n\n"))  # L86
                content_parts(emit, content, index, spans)  # L89-97
                emit(_EOT)  # L98
                if spans is not None and role == "assistant":
                    spans.close()
        elif has_tool_calls:  # L99: the same test again, kept as written
            tool_call_turn(extend, message, index, spans)  # L100-109
        elif role == "tool" or role == "ipython":  # L110: always true here, kept as written
            # L111-117 (the else branch, L115, is unreachable: the L30 scan failed on a
            # content that is neither a mapping nor iterable)
            ipython_turn(extend, content, index, spans)

    emit(blank)  # (the variant's comment before the generation prompt; none in the original)
    if get("add_generation_prompt", MISSING):  # L120-122
        emit(_ASSISTANT_HEAD)
    return "".join(out)

