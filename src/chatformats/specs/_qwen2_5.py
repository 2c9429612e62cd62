"""What the two Qwen2.5 Instruct specs share: the tokenizer facts known, the control strings,
the conversations that run every template line and the generation tags (the texts differ in
one literal of line 13)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # importing chatformats imports no typing
    from typing import Any

#: bos and unk null (not read from a tokenizer_config copy; reference_templates/README.md).
QWEN2_5_TOKENS = {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}

#: The template's control strings in order of first use, then the pad token (the added-token
#: list was not sourced; the special tokens are control strings too).
QWEN2_5_CONTROL = ("<|im_start|>", "<tools>", "</tools>", "<tool_call>", "</tool_call>",
                   "<|im_end|>", "<tool_response>", "</tool_response>", "<|endoftext|>")
QWEN2_5_PROVENANCE = ("template only: the model's added-token list was not sourced; the "
                      "template's control strings in order of first use, then the pad token "
                      "<|endoftext|> (xinference's stop ids 151643-151645 name it)")

_TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]

COVERING: tuple[tuple[list[Any], dict[str, Any]], ...] = (
    # tools with a system message; a later system message; an assistant turn without calls; one
    # with content and calls (with and without .function); consecutive tool responses; the
    # generation prompt
    ([{"role": "system", "content": "S"}, {"role": "user", "content": "q"},
      {"role": "assistant", "content": "a",
       "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"x": 1}}},
                      {"name": "g", "arguments": "{\"y\": 2}"}]},
      {"role": "tool", "content": "t1"}, {"role": "tool", "content": "t2"},
      {"role": "system", "content": "s2"}, {"role": "assistant", "content": "b"}],
     {"tools": _TOOLS, "add_generation_prompt": True}),
    # tools without a system message (the default), a call after empty content
    ([{"role": "user", "content": "q"},
      {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": {}}}]}],
     {"tools": _TOOLS}),
    # no tools: a system message, then none (the default)
    ([{"role": "system", "content": "S"}, {"role": "user", "content": "q"}], {}),
    ([{"role": "user", "content": "q"}], {"add_generation_prompt": True}),
)

GENERATION = (
    # find: the line that renders user, system and call-less assistant turns
    ("        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}",
     # replace: an assistant turn's body duplicated inside a generation block ('' + keeps the
     # concatenation's failure on a non-string content as it is)
     "        {%- if message.role == 'assistant' %}\n"
     "        {{- '<|im_start|>' + message.role + '\\n' }}{%- generation %}{{- '' + message.content + '<|im_end|>' }}{%- endgeneration %}{{- '\\n' }}\n"
     "        {%- else %}\n"
     "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}\n"
     "        {%- endif %}"),
    # find: the header of a turn with calls, and its content
    ("        {{- '<|im_start|>' + message.role }}\n"
     "        {%- if message.content %}\n"
     "            {{- '\\n' + message.content }}\n"
     "        {%- endif %}",
     # replace: the range opens after the newline that follows the header (the content's, or
     # else the first call's)
     "        {{- '<|im_start|>' + message.role + '\\n' }}{%- generation %}\n"
     "        {%- if message.content %}\n"
     "            {{- '' + message.content }}\n"
     "        {%- endif %}"),
    # find: each call's opening
    ("            {{- '\\n<tool_call>\\n{\"name\": \"' }}",
     # replace
     "            {%- if not loop.first or message.content %}{{- '\\n' }}{%- endif %}\n"
     "            {{- '<tool_call>\\n{\"name\": \"' }}"),
    # find: the end of a turn with calls
    ("        {{- '<|im_end|>\\n' }}\n"
     '    {%- elif message.role == "tool" %}',
     # replace
     "        {{- '<|im_end|>' }}{%- endgeneration %}{{- '\\n' }}\n"
     '    {%- elif message.role == "tool" %}'),
)
