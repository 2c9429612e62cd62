"""What the three Qwen3-Coder specs share: the tokenizer facts known, the control strings, the
test variables, conversations that run the message loop and the generation tags (the message
loops of the three texts are the same lines)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # importing chatformats imports no typing
    from typing import Any

#: bos null (not read from the models' tokenizer_config.json; reference_templates/README.md).
QWEN3_CODER_TOKENS = {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}

#: The August and 6,211-byte texts' control strings in order of first use, then the pad token
#: (the added-token list was not sourced; the special tokens are control strings too).
QWEN3_CODER_CONTROL = (
    "<|im_start|>", "<tools>", "<function>", "<name>", "</name>", "<description>",
    "</description>", "<parameters>", "<parameter>", "<type>", "</type>", "</parameter>",
    "</parameters>", "</function>", "</tools>", "<tool_call>", "<function=", "<parameter=",
    "</tool_call>", "<IMPORTANT>", "</IMPORTANT>", "<|im_end|>", "<tool_response>",
    "</tool_response>", "<|endoftext|>",
)
#: The July text's: the same, with the tool's ``<return>`` tags.
QWEN3_CODER_2025_07_CONTROL = (
    QWEN3_CODER_CONTROL[:13] + ("<return>", "</return>") + QWEN3_CODER_CONTROL[13:]
)
QWEN3_CODER_PROVENANCE = ("template only: the model's added-token list was not sourced; the "
                          "template's control strings in order of first use, then the pad token "
                          "<|endoftext|> (xinference's stop ids 151643, 151645 name it)")

#: How the tests draw the templates' variables: tools whose schemas take any shape (each key
#: a tag), a caller's system_message (the name the template assigns), the flag.
TEST_VARIABLES = {"tools": "tag_schema_tools", "add_generation_prompt": "flag",
                  "system_message": ("You are a coding agent.", "", "<|im_end|>")}

#: The message loop's lines (the same in the three texts): a system message with tools; user,
#: later system and plain assistant turns; a call turn with content (calls with and without
#: ``.function``, a mapping, a list and a scalar argument), one without content and one with
#: a call without arguments; consecutive tool responses, one after an empty message (no
#: header); another role; the generation prompt.
LOOP: tuple[tuple[list[Any], dict[str, Any]], ...] = (
    ([{"role": "system", "content": "S"}, {"role": "user", "content": "q"},
      {"role": "assistant", "content": " a ",
       "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"x": {"k": 1}, "y": [True], "z": "s"}}},
                      {"name": "g", "arguments": {"n": 2}}]},
      {"role": "tool", "content": "t1"}, {"role": "tool", "content": "t2"},
      {"role": "system", "content": "s2"}, {"role": "assistant", "content": "b"},
      {"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "h"}}]},
      {}, {"role": "tool", "content": "t3"},
      {"role": "critic", "content": "c"}, {"role": "tool", "content": "t4"}],
     {"tools": [{"type": "function", "function": {"name": "f", "description": " d ",
                                                    "parameters": {"type": "object", "properties": {}}}}],
      "add_generation_prompt": True}),
    # no system message, the caller's system_message, no tools
    ([{"role": "user", "content": "q"}], {"system_message": "V"}),
    # no system message, tools: the default system prompt; a first tool message has no header
    ([{"role": "tool", "content": "t"}, {"role": "user", "content": "q"}],
     {"tools": [{"name": "f", "parameters": None}]}),
)

GENERATION = (
    # find: the header of a turn with calls, its content and each call's opening
    ("        {{- '<|im_start|>' + message.role }}\n"
     "        {%- if message.content is defined and message.content is string and message.content | trim | length > 0 %}\n"
     "            {{- '\\n' + message.content | trim + '\\n' }}\n"
     "        {%- endif %}\n"
     "        {%- for tool_call in message.tool_calls %}\n"
     "            {%- if tool_call.function is defined %}\n"
     "                {%- set tool_call = tool_call.function %}\n"
     "            {%- endif %}\n"
     "            {{- '\\n<tool_call>\\n<function=' + tool_call.name + '>\\n' }}",
     # replace: the range opens after the newline that follows the header (the content's, or
     # else the first call's)
     "        {{- '<|im_start|>' + message.role + '\\n' }}{%- generation %}\n"
     "        {%- if message.content is defined and message.content is string and message.content | trim | length > 0 %}\n"
     "            {{- message.content | trim + '\\n' }}\n"
     "        {%- endif %}\n"
     "        {%- for tool_call in message.tool_calls %}\n"
     "            {%- if tool_call.function is defined %}\n"
     "                {%- set tool_call = tool_call.function %}\n"
     "            {%- endif %}\n"
     "            {%- if not loop.first or (message.content is defined and message.content is string and message.content | trim | length > 0) %}{{- '\\n' }}{%- endif %}\n"
     "            {{- '<tool_call>\\n<function=' + tool_call.name + '>\\n' }}"),
    # find: the end of a turn with calls
    ("        {{- '<|im_end|>\\n' }}\n"
     '    {%- elif message.role == "user" or message.role == "system" or message.role == "assistant" %}',
     # replace
     "        {{- '<|im_end|>' }}{%- endgeneration %}{{- '\\n' }}\n"
     '    {%- elif message.role == "user" or message.role == "system" or message.role == "assistant" %}'),
    # find: the line that renders user, system and call-less assistant turns
    ("        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}",
     # replace: an assistant turn's body duplicated inside a generation block ('' + keeps the
     # concatenation's failure on a non-string content as it is)
     "        {%- if message.role == 'assistant' %}\n"
     "        {{- '<|im_start|>' + message.role + '\\n' }}{%- generation %}{{- '' + message.content + '<|im_end|>' }}{%- endgeneration %}{{- '\\n' }}\n"
     "        {%- else %}\n"
     "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}\n"
     "        {%- endif %}"),
)
