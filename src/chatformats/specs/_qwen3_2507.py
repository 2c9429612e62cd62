"""What the Qwen3 2507-series and hybrid specs share: the conversations that run every template
line, and the hybrid texts' control-string provenance.

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

#: The control strings' provenance for the Qwen3 hybrid texts (``qwen3``, ``qwen3-2025-04``):
#: the same tokenizer as the 2507 series, read from a 2507 model's config.
QWEN3_HYBRID_PROVENANCE = (
    "tokenizer: the 26 added tokens 151643-151668 of the Qwen3 tokenizer as pinned for "
    "qwen3-thinking-2507 (Qwen/Qwen3-4B-Thinking-2507's tokenizer_config.json, "
    "reference_templates/README.md 'Control strings'); these models' own tokenizer_config.json "
    "was not compared; template: the tags that are not tokens"
)

#: The generation tags of the two Qwen3 hybrid texts (``qwen3``, ``qwen3-2025-04``), whose
#: assistant-turn lines are the same: the generation prompt under ``enable_thinking`` false closes
#: an empty think block, so a turn that renders exactly that block starts after it.
HYBRID_GENERATION = (
    # find
    ('        {%- if loop.index0 > ns.last_query_index %}\n'
     '            {%- if loop.last or (not loop.last and reasoning_content) %}\n'
     "                {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}\n"
     '            {%- else %}\n'
     "                {{- '<|im_start|>' + message.role + '\\n' + content }}\n"
     '            {%- endif %}\n'
     '        {%- else %}\n'
     "            {{- '<|im_start|>' + message.role + '\\n' + content }}\n"
     '        {%- endif %}',
    # replace: the generation prompt under enable_thinking false closes an empty think
     # block, so a turn that renders exactly that block starts after it
     "        {%- if loop.index0 > ns.last_query_index and (loop.last or (not loop.last and reasoning_content)) and enable_thinking is defined and enable_thinking is false and not reasoning_content.strip('\\n') %}\n"
     "            {{- '<|im_start|>' + message.role + '\\n<think>\\n\\n</think>\\n\\n' }}\n"
     '        {%- else %}\n'
     "            {{- '<|im_start|>' + message.role + '\\n' }}\n"
     '        {%- endif %}\n'
     '        {%- generation %}\n'
     '        {%- if loop.index0 > ns.last_query_index %}\n'
     '            {%- if loop.last or (not loop.last and reasoning_content) %}\n'
     "                {%- if enable_thinking is defined and enable_thinking is false and not reasoning_content.strip('\\n') %}\n"
     "                {{- content.lstrip('\\n') }}\n"
     '                {%- else %}\n'
     "                {{- '<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}\n"
     '                {%- endif %}\n'
     '            {%- else %}\n'
     '                {{- content }}\n'
     '            {%- endif %}\n'
     '        {%- else %}\n'
     '            {{- content }}\n'
     '        {%- endif %}'),
    # find
    ("        {{- '<|im_end|>\\n' }}\n"
     '    {%- elif message.role == "tool" %}',
    # replace
     "        {{- '<|im_end|>' }}{%- endgeneration %}{{- '\\n' }}\n"
     '    {%- elif message.role == "tool" %}'),
)
