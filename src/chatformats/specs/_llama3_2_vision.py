"""What the three Llama 3.2 Vision specs share: the conversations that run every template line.

Together these run every line of each of the three templates (Meta's September and December
2024 texts and the variant) but the lines each spec lists as unreachable: a system message
before tool rounds with string and dict arguments and results of several kinds, built-in and
custom tools, tools in the user message or the system block, images with and without a system
message, the single-tool-call error and the check that a message holds ``tool_calls``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # importing chatformats imports no typing
    from typing import Any

COVERING: tuple[tuple[list[Any], dict[str, Any]], ...] = (
    ([{"role": "system", "content": "S"}, {"role": "user", "content": "q"},
      {"role": "assistant", "content": "", "tool_calls": [
          {"id": "call_0", "type": "function", "function": {"name": "search", "arguments": "{}"}}]},
      {"role": "tool", "content": {}},
      {"role": "assistant", "content": "", "tool_calls": [
          {"function": {"name": "get_weather", "arguments": {}}}]},
      {"role": "tool", "content": ""}, {"role": "user", "content": ""}, {"role": "user", "content": ""}], {}),
    ([{"role": "user", "content": [{"type": "text", "text": "t"}]},
      {"role": "assistant", "content": "", "tool_calls": [
          {"function": {"name": "get_weather", "arguments": {"city": None}}}]},
      {"role": "tool", "content": ""},
      {"role": "user", "content": [{"type": "image", "url": "https://example.com/a.png"}]}],
     {"add_generation_prompt": False}),
    ([{"role": "user", "content": "hi"}], {"custom_tools": [{"b": 2}]}),
    ([{"role": "user", "content": "image"}], {"tools": None, "custom_tools": [1]}),
    ([{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image"}]}],
     {"add_generation_prompt": True}),
    ([{"role": "system", "content": "S"}, {"role": "user", "content": "hi"}],
     {"tools": [{"a": 1}], "tools_in_user_message": False}),
    (["a tool_calls b"], {}),
    ([["tool_calls"]], {}),
    ([{"role": "system", "content": "s"}], {"tools": []}),
    ([{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "image"}]}], {}),
)

#: The generation tags of Meta's two templates (September and December 2024), which share these
#: lines byte for byte; the variant's text differs and keeps its own.
META_GENERATION: tuple[tuple[str, str], ...] = (
    # find
    ("        {%- if message['content'] is string %}\n"
     "            {{- message['content'] }}\n"
     '        {%- else %}\n'
     "            {%- for content in message['content'] %}\n"
     "                {%- if content['type'] == 'image' %}\n"
     "                    {{- '<|image|>' }}\n"
     "                {%- elif content['type'] == 'text' %}\n"
     "                    {{- content['text'] }}\n"
     '                {%- endif %}\n'
     '            {%- endfor %}\n'
     '        {%- endif %}\n'
     "        {{- '<|eot_id|>' }}",
     # replace
     "        {%- if message['role'] == 'assistant' %}{%- generation %}\n"
     "        {%- if message['content'] is string %}\n"
     "            {{- message['content'] }}\n"
     '        {%- else %}\n'
     "            {%- for content in message['content'] %}\n"
     "                {%- if content['type'] == 'image' %}\n"
     "                    {{- '<|image|>' }}\n"
     "                {%- elif content['type'] == 'text' %}\n"
     "                    {{- content['text'] }}\n"
     '                {%- endif %}\n'
     '            {%- endfor %}\n'
     '        {%- endif %}\n'
     "        {{- '<|eot_id|>' }}{%- endgeneration %}\n"
     '        {%- else %}\n'
     "        {%- if message['content'] is string %}\n"
     "            {{- message['content'] }}\n"
     '        {%- else %}\n'
     "            {%- for content in message['content'] %}\n"
     "                {%- if content['type'] == 'image' %}\n"
     "                    {{- '<|image|>' }}\n"
     "                {%- elif content['type'] == 'text' %}\n"
     "                    {{- content['text'] }}\n"
     '                {%- endif %}\n'
     '            {%- endfor %}\n'
     '        {%- endif %}\n'
     "        {{- '<|eot_id|>' }}\n"
     '        {%- endif %}'),
    # find
    ("{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}",
     # replace
     "{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}{%- generation %}"),
    # find
    ('        {{- "<|eot_id|>" }}\n'
     '    {%- elif message.role == "tool" or message.role == "ipython" %}',
     # replace
     '        {{- "<|eot_id|>" }}{%- endgeneration %}\n'
     '    {%- elif message.role == "tool" or message.role == "ipython" %}'),
)
