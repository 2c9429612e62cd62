"""The spec of format ``cogito``: Deep Cogito (Llama-based hybrid reasoning), the v1 preview
template with a <think> prefill (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._vocab import LLAMA3_1_CONTROL, LLAMA3_TOKENS

SPEC = Spec(
    name="cogito",
    # Serves no published id: the v1 preview releases' template (seen only in a copy with its
    # whitespace collapsed) has no ``<think>`` prefill after the generation prompt, which this
    # one adds (reference_templates/README.md).
    model_ids=(),
    description="Deep Cogito (Llama-based hybrid reasoning), the v1 preview template with a <think> prefill",
    template_file="cogito.jinja",
    template_sha256="ee97f6ef49c5eaee00242bb0547c231b7b1b1fd1ec5623273954ca0dda913d1c",
    special_tokens=LLAMA3_TOKENS,
    control_strings=LLAMA3_1_CONTROL + ("<think>", "</think>"),
    control_provenance=("tokenizer: the 256 special tokens of the Llama 3.1/3.2 Instruct tokenizer the v1 "
         "preview models keep; template: <think> (and its closing </think>)"),
    variables=("add_generation_prompt", "bos_token", "enable_thinking", "tools"),
    calls=frozenset(),
    content_format="openai",
    variant_of="deepcogito/cogito-v1-preview-llama-3B",
    grammar="cogito",
    tests=Tests(
        variables={"bos_token": ("<|begin_of_text|>",),
                   "tools": "tools_or_odd", "enable_thinking": "flag",
                   "add_generation_prompt": "flag"},
        # Together these run every line of the template: tools with thinking and the
        # generation prompt, a tool-call turn after content (a call with a function and one
        # with an id), a system message and a tool response, list contents, a tool_call_id,
        # a system content that is a list.
        covering=(
            ([{"role": "user", "content": "q"},
              {"role": "assistant", "content": "a", "tool_calls": [
                  {"function": {"name": "search", "arguments": {"q": 1}}},
                  {"id": "c1", "type": "function", "function": {"name": "f"}}]}],
             {"add_generation_prompt": True, "enable_thinking": True, "bos_token": "<|begin_of_text|>",
              "tools": [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]}),
            ([{"role": "system", "content": "S"}, {"role": "tool", "content": "r"}], {}),
            ([{"role": "assistant", "content": [{"type": "image"}, {"type": "text", "text": "t"}],
               "tool_calls": False}], {}),
            ([{"role": "user", "content": [{"type": "text", "text": "t"}]}, {"role": "user", "content": ""}], {}),
            ([{"role": "tool", "content": "x", "tool_call_id": "c1"}], {}),
            ([{"role": "system", "content": ["a"]}], {"enable_thinking": 1}),
        ),
        generation=(
            # find
            ("        {%- if message['content'] is string %}\n"
             "            {{- message['content'] | trim }}\n"
             '        {%- else %}\n'
             "            {%- for item in message['content'] %}\n"
             "                {%- if item.type == 'text' %}\n"
             '                    {{- item.text | trim }}\n'
             '                {%- endif %}\n'
             '            {%- endfor %}\n'
             '        {%- endif %}\n'
             "        {{- '<|eot_id|>' }}",
             # replace
             "        {%- if message['role'] == 'assistant' %}{%- generation %}\n"
             "        {%- if message['content'] is string %}\n"
             "            {{- message['content'] | trim }}\n"
             '        {%- else %}\n'
             "            {%- for item in message['content'] %}\n"
             "                {%- if item.type == 'text' %}\n"
             '                    {{- item.text | trim }}\n'
             '                {%- endif %}\n'
             '            {%- endfor %}\n'
             '        {%- endif %}\n'
             "        {{- '<|eot_id|>' }}{%- endgeneration %}\n"
             '        {%- else %}\n'
             "        {%- if message['content'] is string %}\n"
             "            {{- message['content'] | trim }}\n"
             '        {%- else %}\n'
             "            {%- for item in message['content'] %}\n"
             "                {%- if item.type == 'text' %}\n"
             '                    {{- item.text | trim }}\n'
             '                {%- endif %}\n'
             '            {%- endfor %}\n'
             '        {%- endif %}\n'
             "        {{- '<|eot_id|>' }}\n"
             '        {%- endif %}'),
            # find
            ('{{- "<|start_header_id|>assistant<|end_header_id|>\n'
             '\n'
             '" }}\n'
             "        {%- if message['content'] is string %}",
             # replace
             '{{- "<|start_header_id|>assistant<|end_header_id|>\n'
             '\n'
             '" }}{%- generation %}\n'
             "        {%- if message['content'] is string %}"),
            # find
            ('                {{- "]<|eot_id|>" }}\n'
             '            {%- endif %}\n'
             '        {%- endfor %}',
             # replace
             '                {{- "]<|eot_id|>" }}\n'
             '            {%- endif %}\n'
             '        {%- endfor %}{%- endgeneration %}'),
        )
    ),
)
