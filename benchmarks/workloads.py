"""Benchmark workloads, generated deterministically from a seed.

Every workload is a conversation (``messages``) plus the template variables a server would pass
(``tools`` where the workload has tools, and ``add_generation_prompt=True``).  The same
generator with the same seed gives the same bytes on every machine and Python version (only
``random.Random`` with an integer seed, ``randrange``/``choice`` and string joins are used), so
the big workloads are not stored: ``benchmarks/workloads/manifest.json`` records the generator
parameters and the sha256 of each generated workload's canonical JSON, and
``python -m benchmarks --verify-workloads`` regenerates and checks them.  The two small workloads
are also saved as JSON (``benchmarks/workloads/<format>/<workload>.json``) for reading.

Workloads (``WORKLOADS``):

- ``short_chat`` — a system message and three user/assistant turns, ending with a user turn;
- ``tool_agent`` — five JSON-schema tools; a system message and a user request; eight rounds of
  an assistant tool call (dict arguments, an id, sometimes a sentence of content) and its tool
  response (a JSON string); a final assistant answer with reasoning;
- ``chat_10`` ... ``chat_10000`` — long conversations of N messages (a system message, then
  alternating user/assistant messages of 20 to 1,200 characters, ending with a user turn);
- ``tool_trace_1000``, ``tool_trace_2000``, ``tool_trace_10000`` — agent traces of N messages
  (five tools; a user query every ~20 messages, otherwise assistant tool call / tool response
  pairs); 2,000 is the workload the issue asks for, 1,000 and 10,000 measure how tool traces
  scale (solar-open's template resolves each tool response's name by scanning every message);
- ``one_mb_message`` — a system message and one user message of 1 MB (1,048,576 UTF-8 bytes).

Per-format variants (each template reads fields differently; every variant renders without a
template error):

- the final answer's reasoning is in the field the format's spec names (``reasoning_field``:
  ``reasoning`` for ``solar-open``, the field its template reads, ``reasoning_content`` for the
  others);
- a tool-calling assistant message has string content (``""`` or a sentence), never ``None``:
  cogito iterates a ``None`` content and fails (transformers drops ``None`` keys first; the
  template layer does not);
- one tool call per assistant message: the llama-3.2-vision formats raise on more than one;
- a tool call's arguments are a mapping, but their JSON text for the DeepSeek formats
  (``STRING_ARGUMENTS``), whose templates concatenate them to a string;
- text only, no images: the llama-3.2-vision formats raise on images together with a system message,
  minicpm needs a text user query;
- every workload has a user query, which minicpm requires.

So only the reasoning field name and the arguments' shape differ between formats; the manifest records each variant's
sha256 separately.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any, Dict, List

import chatformats

SEED = 20261130

# Workload name -> (kind, size).  Order is the order of the report.
WORKLOADS: Dict[str, Any] = {
    "short_chat": ("short_chat", 0),
    "tool_agent": ("tool_agent", 0),
    "chat_10": ("chat", 10),
    "chat_100": ("chat", 100),
    "chat_1000": ("chat", 1000),
    "chat_10000": ("chat", 10000),
    "tool_trace_1000": ("tool_trace", 1000),
    "tool_trace_2000": ("tool_trace", 2000),
    "tool_trace_10000": ("tool_trace", 10000),
    "one_mb_message": ("one_mb", 1 << 20),
}

#: The workloads the issue names, over which the speed targets are computed (the other two tool
#: traces measure scaling only).
TARGET_WORKLOADS = ("short_chat", "tool_agent", "chat_10", "chat_100", "chat_1000", "chat_10000",
                    "tool_trace_2000", "one_mb_message")

#: The workloads ``--quick`` runs (and the smoke test checks): the small ones.
QUICK_WORKLOADS = ("short_chat", "tool_agent", "chat_10", "chat_100")

#: Workloads small enough to save as JSON files.
SAVED_WORKLOADS = ("short_chat", "tool_agent")

_WORDS = (
    "the model reads every token of the prompt before it writes an answer so the template "
    "decides what it sees weather forecast for Lisbon tomorrow is sunny with a light breeze "
    "please summarise this report in three bullet points and keep the numbers exact "
    "résumé naïve café déjà vu Zürich São Paulo Kraków 東京 北京 서울 Ελλάδα Москва "
    "👍 🚀 ✓ — « » “quoted” 'single' {braces} [brackets] <angle> \\backslash\\ \"double\" "
    "def main(): return 42 SELECT * FROM users WHERE id = 7; x += 1 ## heading * item "
    "1,024 3.14159 -17 0x1F 2026-03-07 14:05:09 https://example.com/a?b=c&d=e"
).split(" ")

_SYSTEM = (
    "You are a careful assistant. Answer precisely, cite the tools you used, and say when you "
    "do not know. Keep answers short unless asked otherwise."
)

TOOLS: List[Dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather and a short forecast for a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name, e.g. Lisbon"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    "days": {"type": "integer", "minimum": 1, "maximum": 7},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "web_search",
            "description": "Search the web and return the top results with snippets.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "max_results": {"type": "integer", "default": 5},
                    "site": {"type": ["string", "null"], "description": "Restrict to one site"},
                },
                "required": ["query"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "calculator",
            "description": "Evaluate an arithmetic expression exactly.",
            "parameters": {
                "type": "object",
                "properties": {"expression": {"type": "string"}, "precision": {"type": "integer"}},
                "required": ["expression"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "create_event",
            "description": "Create a calendar event.",
            "parameters": {
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "start": {"type": "string", "format": "date-time"},
                    "duration_minutes": {"type": "integer"},
                    "attendees": {"type": "array", "items": {"type": "string", "format": "email"}},
                    "reminder": {
                        "type": "object",
                        "properties": {"minutes_before": {"type": "integer"}, "method": {"type": "string", "enum": ["email", "popup"]}},
                    },
                },
                "required": ["title", "start"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "send_email",
            "description": "Send an email on the user's behalf.",
            "parameters": {
                "type": "object",
                "properties": {
                    "to": {"type": "array", "items": {"type": "string"}},
                    "subject": {"type": "string"},
                    "body": {"type": "string"},
                    "cc": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["to", "subject", "body"],
            },
        },
    },
]


def _text(rng: random.Random, low: int, high: int) -> str:
    """Words until the text reaches a length drawn from [low, high) characters."""
    target = rng.randrange(low, high)
    words = _WORDS
    out: List[str] = []
    size = 0
    while size < target:
        word = words[rng.randrange(len(words))]
        if rng.randrange(12) == 0:
            word += "\n" if rng.randrange(3) else "\n\n"
        out.append(word)
        size += len(word) + 1
    return " ".join(out).strip()


def _arguments(rng: random.Random, tool: str) -> Dict[str, Any]:
    if tool == "get_weather":
        return {"city": rng.choice(["Lisbon", "Zürich", "東京", "São Paulo"]), "unit": "celsius",
                "days": rng.randrange(1, 8)}
    if tool == "web_search":
        return {"query": _text(rng, 10, 60), "max_results": rng.randrange(1, 10), "site": None}
    if tool == "calculator":
        return {"expression": f"{rng.randrange(1000)} * {rng.randrange(1000)} / 7", "precision": 6}
    if tool == "create_event":
        return {"title": _text(rng, 5, 30), "start": "2026-03-09T10:00:00Z",
                "duration_minutes": 30 * rng.randrange(1, 5),
                "attendees": ["ana@example.com", "bo@example.com"],
                "reminder": {"minutes_before": 10, "method": "popup"}}
    return {"to": ["ana@example.com"], "subject": _text(rng, 10, 40), "body": _text(rng, 40, 300),
            "cc": []}


def _result(rng: random.Random, tool: str) -> str:
    if tool == "get_weather":
        payload: Any = {"temperature": rng.randrange(-5, 35), "condition": rng.choice(["sunny", "rain", "cloudy"]),
                        "forecast": [{"day": d, "high": rng.randrange(10, 30)} for d in range(3)]}
    elif tool == "web_search":
        payload = {"results": [{"title": _text(rng, 10, 40), "url": f"https://example.com/{rng.randrange(10**6)}",
                                "snippet": _text(rng, 40, 160)} for _ in range(3)]}
    elif tool == "calculator":
        payload = {"value": rng.randrange(10**9) / 1000}
    elif tool == "create_event":
        payload = {"id": f"evt_{rng.randrange(10**8)}", "status": "confirmed"}
    else:
        payload = {"status": "sent", "message_id": f"<{rng.randrange(10**9)}@example.com>"}
    return json.dumps(payload, ensure_ascii=False)


# The formats whose templates concatenate a tool call's arguments to a string
# (``'...' + tool['function']['arguments']``): a mapping there is a TypeError by design
# (each spec's ``call_arguments``).
STRING_ARGUMENTS = frozenset(name for name in chatformats.formats()
                             if chatformats.get_format(name).call_arguments == "string")


def _tool_round(rng: random.Random, number: int, fmt: str) -> List[Dict[str, Any]]:
    """One assistant tool call (its arguments' JSON text for a format in STRING_ARGUMENTS)
    and its response."""
    tool = TOOLS[rng.randrange(len(TOOLS))]["function"]["name"]
    call_id = f"call_{number:05d}{rng.randrange(16**5):05x}"
    content = "" if rng.randrange(2) else _text(rng, 20, 120)
    arguments: Any = _arguments(rng, tool)
    if fmt in STRING_ARGUMENTS:
        arguments = json.dumps(arguments, ensure_ascii=False)
    return [
        {"role": "assistant", "content": content,
         "tool_calls": [{"id": call_id, "type": "function",
                         "function": {"name": tool, "arguments": arguments}}]},
        {"role": "tool", "tool_call_id": call_id, "name": tool, "content": _result(rng, tool)},
    ]


def _reasoning_field(fmt: str) -> str:
    """The field the format's template reads an assistant turn's reasoning from (its spec)."""
    import chatformats

    return chatformats.get_format(fmt).reasoning_field


def _short_chat(rng: random.Random, fmt: str) -> Dict[str, Any]:
    messages: List[Dict[str, Any]] = [{"role": "system", "content": _SYSTEM}]
    for turn in range(3):
        messages.append({"role": "user", "content": _text(rng, 40, 200)})
        if turn < 2:
            messages.append({"role": "assistant", "content": _text(rng, 80, 400)})
    return {"messages": messages}


def _tool_agent(rng: random.Random, fmt: str) -> Dict[str, Any]:
    messages: List[Dict[str, Any]] = [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": "Plan my Monday: check the weather in Lisbon, find a lunch spot, "
                                    "book a meeting with Ana and Bo, and email them the plan."},
    ]
    for number in range(8):
        messages.extend(_tool_round(rng, number, fmt))
    messages.append({"role": "assistant", "content": _text(rng, 200, 600),
                     _reasoning_field(fmt): _text(rng, 200, 800)})
    return {"messages": messages, "tools": TOOLS}


def _chat(rng: random.Random, fmt: str, size: int) -> Dict[str, Any]:
    messages: List[Dict[str, Any]] = [{"role": "system", "content": _SYSTEM}]
    while len(messages) < size:
        role = "user" if len(messages) % 2 else "assistant"
        messages.append({"role": role, "content": _text(rng, 20, 300) if role == "user" else _text(rng, 50, 1200)})
    return {"messages": messages}


def _tool_trace(rng: random.Random, fmt: str, size: int) -> Dict[str, Any]:
    messages: List[Dict[str, Any]] = [{"role": "system", "content": _SYSTEM}]
    number = 0
    while len(messages) + 3 < size:
        if number % 10 == 0 and messages[-1]["role"] != "user":
            messages.append({"role": "user", "content": _text(rng, 20, 200)})
        messages.extend(_tool_round(rng, number, fmt))
        number += 1
    while len(messages) < size:
        messages.append({"role": "user", "content": _text(rng, 20, 200)})
    return {"messages": messages, "tools": TOOLS}


def _one_mb(rng: random.Random, fmt: str, size: int) -> Dict[str, Any]:
    parts: List[str] = []
    total = 0
    while total < size:
        chunk = _text(rng, 200, 2000) + "\n\n"
        parts.append(chunk)
        total += len(chunk.encode("utf-8"))
    text = "".join(parts).encode("utf-8")[:size].decode("utf-8", "ignore").strip()
    return {"messages": [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": text}]}


def generate(workload: str, fmt: str, seed: int = SEED) -> Dict[str, Any]:
    """The workload ``workload`` for format ``fmt``: ``{"messages": [...], "tools": [...]?}``.

    The seed is mixed with the workload name only (not the format), so the formats' variants
    are the same conversation."""
    kind, size = WORKLOADS[workload]
    rng = random.Random(seed * 1000003 + int(hashlib.sha256(workload.encode()).hexdigest()[:8], 16))
    if kind == "short_chat":
        return _short_chat(rng, fmt)
    if kind == "tool_agent":
        return _tool_agent(rng, fmt)
    if kind == "chat":
        return _chat(rng, fmt, size)
    if kind == "tool_trace":
        return _tool_trace(rng, fmt, size)
    return _one_mb(rng, fmt, size)


def canonical_json(data: Any) -> bytes:
    """The bytes the manifest's sha256 is taken over."""
    return json.dumps(data, ensure_ascii=False, sort_keys=False, separators=(",", ":")).encode("utf-8")


def digest(data: Any) -> str:
    return hashlib.sha256(canonical_json(data)).hexdigest()
