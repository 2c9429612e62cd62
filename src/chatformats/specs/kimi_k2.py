"""The spec of format ``kimi-k2``: Moonshot AI Kimi K2 Instruct, July 2025 (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests

#: L17-38 of the template, the message body every role shares (its lines end CRLF, as the pinned
#: file's do): the generation copy renders it twice, inside a generation block for an assistant.
_BODY = "\r\n".join((
    "  {%- if message['role'] == 'assistant' and message.get('tool_calls') -%}",
    "    {%- if message['content'] -%}{{ message['content'] }}{%- endif -%}",
    '    <|tool_calls_section_begin|>',
    "    {%- for tool_call in message['tool_calls'] -%}",
    "      {%- set func_name = tool_call['function']['name'] -%}",
    "      {%- set formatted_id = 'functions.' + func_name + ':' + loop.index0|string -%}",
    "      <|tool_call_begin|>{{ formatted_id }}<|tool_call_argument_begin|>{{ tool_call['function']['arguments'] | tojson}}<|tool_call_end|>",
    '    {%- endfor -%}',
    '    <|tool_calls_section_end|>',
    "  {%- elif message['role'] == 'tool' -%}",
    "    ## Return of {{ message.tool_call_id }}\\n{{ message['content'] }}",
    "  {%- elif message['content'] is string -%}",
    "    {{ message['content'] }}",
    "  {%- elif message['content'] is not none -%}",
    "    {% for content in message['content'] -%}",
    "      {% if content['type'] == 'image' or 'image' in content or 'image_url' in content -%}",
    '        <|media_start|>image<|media_content|><|media_pad|><|media_end|>',
    '      {% else -%}',
    "        {{ content['text'] }}",
    '      {%- endif -%}',
    '    {%- endfor -%}',
    '  {%- endif -%}',
)) + "\r\n"

SPEC = Spec(
    name="kimi-k2",
    model_ids=("moonshotai/Kimi-K2-Instruct",),
    description="Moonshot AI Kimi K2 Instruct, July 2025",
    template_file="kimi_k2.jinja",
    template_sha256="99645b3f43c27dfeef00be0cdbfdde649ef89b3449192b5bb2ff3e7f972d3329",
    # Not sourced: the tokenizer (tokenization_kimi.py, tokenizer_config.json) was not found in
    # any copy, and the template reads no special-token variable.
    special_tokens={},
    control_strings=("<|im_system|>", "<|im_middle|>", "<|im_end|>", "<|im_user|>", "<|im_assistant|>",
                     "<|tool_calls_section_begin|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>",
                     "<|tool_call_end|>", "<|tool_calls_section_end|>", "<|media_start|>",
                     "<|media_content|>", "<|media_pad|>", "<|media_end|>"),
    control_provenance=("template only: the <|...|> strings the template writes, in order of first "
                        "appearance; the tokenizer's special-token list was not found (that each is one "
                        "token is not confirmed; llama.cpp's common/chat.cpp and src/llama-chat.cpp treat "
                        "the im_* and tool-call strings as the K2 format's markers)"),
    variables=("add_generation_prompt", "tools"),
    calls=frozenset(),
    content_format="openai",
    # Content, then one <|tool_calls_section_begin|> ... <|tool_calls_section_end|> section of
    # functions.NAME:INDEX calls: a grammar of its own (parsing/kimi_k2.py).
    grammar="kimi_k2",
    tests=Tests(
        variables={"tools": "tools", "add_generation_prompt": "flag"},
        # Together these run every line of the template: tools and the generation prompt, the
        # default system message, a system, user, assistant and tool message, a tool-call turn
        # after content, a tool result, and list content with an image part and a text part.
        covering=(
            ([{"role": "user", "content": "q"},
              {"role": "assistant", "content": "a", "tool_calls": [
                  {"id": "c1", "type": "function", "function": {"name": "search", "arguments": {"q": 1}}}]},
              {"role": "tool", "tool_call_id": "functions.search:0", "content": "r"}],
             {"add_generation_prompt": True,
              "tools": [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]}),
            ([{"role": "system", "content": "S"},
              {"role": "user", "content": [{"type": "image", "image": "x.png"}, {"type": "text", "text": "t"}]}], {}),
        ),
        generation=(
            # find
            (_BODY + "  <|im_end|>\r\n",
             # replace
             "  {%- if message['role'] == 'assistant' -%}{%- generation -%}\r\n" + _BODY
             + "  <|im_end|>{%- endgeneration -%}\r\n  {%- else -%}\r\n" + _BODY
             + "  <|im_end|>\r\n  {%- endif -%}\r\n"),
        ),
    ),
)
