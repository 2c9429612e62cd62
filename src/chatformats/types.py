"""Typed shapes of the data chatformats renders: messages, content parts, tool calls, tools.

These ``TypedDict`` classes document the shapes real clients send (OpenAI chat-completions and
Hugging Face conversations) so that type checkers can check code that builds conversations::

    from chatformats.types import Message, Tool

    messages: list[Message] = [{"role": "user", "content": "Hi!"}]

They are documentation for type checkers only: at run time a ``TypedDict`` is a plain ``dict``,
and chatformats never validates or coerces input against them.  The templates accept (and the
ports render, exactly as the templates do) any JSON-like data, including keys and shapes these
types do not list; every key here is optional (``total=False``).
"""

from __future__ import annotations

from typing import Any, Dict, List, TypedDict, Union

__all__ = [
    "JSONValue",
    "TextPart",
    "ImagePart",
    "ImageURL",
    "ImageURLPart",
    "VideoPart",
    "InputAudio",
    "InputAudioPart",
    "ContentPart",
    "FunctionCall",
    "ToolCall",
    "Message",
    "FunctionDefinition",
    "Tool",
    "Document",
    "Conversation",
    "ChatTemplateKwargs",
]

#: Any JSON-like value: what chatformats accepts anywhere in its input (``tuple`` is accepted
#: as a list).
JSONValue = Union[None, bool, int, float, str, List[Any], Dict[str, Any]]


class TextPart(TypedDict, total=False):
    """``{"type": "text", "text": "..."}``"""

    type: str
    text: str


class ImagePart(TypedDict, total=False):
    """Hugging Face's image part: ``{"type": "image"}`` with ``url``, ``path``, ``base64`` or
    ``image``."""

    type: str
    url: str
    path: str
    base64: str
    image: str


class ImageURL(TypedDict, total=False):
    url: str
    detail: str


class ImageURLPart(TypedDict, total=False):
    """OpenAI's image part: ``{"type": "image_url", "image_url": {"url": "..."}}``"""

    type: str
    image_url: ImageURL


class VideoPart(TypedDict, total=False):
    """``{"type": "video", "url": "..."}`` (or ``video``, ``path``)."""

    type: str
    url: str
    path: str
    video: str


class InputAudio(TypedDict, total=False):
    data: str
    format: str


class InputAudioPart(TypedDict, total=False):
    """OpenAI's audio part: ``{"type": "input_audio", "input_audio": {"data": ..., "format": ...}}``"""

    type: str
    input_audio: InputAudio


ContentPart = Union[TextPart, ImagePart, ImageURLPart, VideoPart, InputAudioPart, Dict[str, Any]]


class FunctionCall(TypedDict, total=False):
    """A tool call's function: ``arguments`` is a JSON string (OpenAI) or an object (Hugging
    Face); templates differ in what they do with each."""

    name: str
    arguments: Union[str, Dict[str, Any]]


class ToolCall(TypedDict, total=False):
    """``{"id": "call_1", "type": "function", "function": {"name": ..., "arguments": ...}}``"""

    id: str
    type: str
    function: FunctionCall


class Message(TypedDict, total=False):
    """One message of a conversation.

    ``content`` is a string, ``None``, or a list of content parts; ``reasoning_content`` /
    ``reasoning`` / ``thinking`` carry an assistant's reasoning (the pipeline layer copies each
    into the others, as transformers does); ``tool_calls`` belong to assistant messages and
    ``tool_call_id`` / ``name`` to tool results.
    """

    role: str
    content: Union[str, List[ContentPart], None]
    name: str
    tool_calls: List[ToolCall]
    tool_call_id: str
    reasoning_content: str
    reasoning: str
    thinking: str


class FunctionDefinition(TypedDict, total=False):
    """A tool's function: ``parameters`` is a JSON Schema object."""

    name: str
    description: str
    parameters: Dict[str, Any]
    strict: bool


class Tool(TypedDict, total=False):
    """``{"type": "function", "function": {"name": ..., "description": ..., "parameters": ...}}``"""

    type: str
    function: FunctionDefinition


class Document(TypedDict, total=False):
    """A retrieval document, as transformers' ``documents=`` takes them."""

    title: str
    text: str


ChatTemplateKwargs = Dict[str, Any]
"""Template variables by name (``enable_thinking``, ``reasoning_effort``, ...)."""


class Conversation(TypedDict, total=False):
    """The object ``chatformats render`` reads: ``messages``, ``tools`` and template variables
    (any other key is a template variable)."""

    messages: List[Message]
    tools: List[Tool]
    documents: List[Document]
    add_generation_prompt: bool
    continue_final_message: Union[bool, str]
