"""What the three Qwen3 2507-series specs share: the conversations that run every template line.

One conversation runs every line of a Qwen3 2507 template (tools with a system message, a later
system message, reasoning from ``reasoning_content`` and from a ``</think>`` split, turns before
and after the last user query, tool calls with dict and string arguments after content,
consecutive tool responses, the generation prompt); a second has no tools and a content that is
not a string.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # importing chatformats imports no typing
    from typing import Any

COVERING: tuple[tuple[list[Any], dict[str, Any]], ...] = (
    ([{"role": "system", "content": "S"}, {"role": "user", "content": "q1"},
      {"role": "assistant", "content": "<think>\nr\n</think>\n\na",
       "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"x": 1}}},
                      {"type": "function", "function": {"name": "g", "arguments": "{\"y\": 2}"}}]},
      {"role": "tool", "content": "t1"}, {"role": "tool", "content": "t2"},
      {"role": "user", "content": "q2"}, {"role": "system", "content": "s2"},
      {"role": "assistant", "content": "b", "reasoning_content": "rc"},
      {"role": "assistant", "content": "c"}, {"role": "assistant", "content": "d"}],
     {"tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
      "add_generation_prompt": True}),
    ([{"role": "system", "content": "S"}, {"role": "user", "content": "<tool_response>x</tool_response>"},
      {"role": "user", "content": [{"type": "text", "text": "a list content renders as ''"}]}],
     {"add_generation_prompt": True}),
)
