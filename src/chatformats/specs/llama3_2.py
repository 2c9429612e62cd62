"""The spec of format ``llama-3.2``: Meta Llama 3.2 1B/3B Instruct, the text models
(``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._vocab import LLAMA3_1_CONTROL, LLAMA3_TOKENS

_CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}

SPEC = Spec(
    name="llama-3.2",
    model_ids=("meta-llama/Llama-3.2-1B-Instruct",
         "meta-llama/Llama-3.2-3B-Instruct"),
    description="Meta Llama 3.2 1B/3B Instruct (text)",
    template_file="llama3_2.jinja",
    template_sha256="5816fce10444e03c2e9ee1ef8a4a1ea61ae7e69e438613f3b17b69d0426223a4",
    special_tokens=LLAMA3_TOKENS,
    control_strings=LLAMA3_1_CONTROL,
    control_provenance=("tokenizer: the 256 special tokens 128000-128255 of DEFAULT_LLAMA_SPECIAL_TOKENS['3.2'] "
         "(identical to ['3.1']) in transformers' convert_llama_weights_to_hf.py; every <|...|> string the "
         "template writes is one of them"),
    variables=("add_generation_prompt",
         "bos_token",
         "custom_tools",
         "date_string",
         "tools",
         "tools_in_user_message"),
    calls=frozenset(["raise_exception", "strftime_now"]),
    content_format="string",
    grammar="llama3_2_vision",
    # the text model writes message['content'] | trim (the vision texts do not)
    canonical={"content": "strip"},
    tests=Tests(
        variables={"bos_token": ("<|begin_of_text|>",), "tools": "llama_tools",
                   "custom_tools": "llama_tools", "tools_in_user_message": "flag",
                   "date_string": ("26 Jul 2024",), "add_generation_prompt": "flag"},
        covering=(
            # a system message, a JSON call, results of several kinds, the generation prompt
            ([{"role": "system", "content": " S "}, {"role": "user", "content": "q"},
              {"role": "assistant", "content": "", "tool_calls": [_CALL]},
              {"role": "ipython", "content": {"r": 1}},
              {"role": "tool", "content": None},
              {"role": "assistant", "content": " done "}],
             {"add_generation_prompt": True}),
            # custom tools in the first user message
            ([{"role": "user", "content": " weather? "}, {"role": "assistant", "tool_calls": [_CALL]},
              {"role": "tool", "content": "18C"}], {"custom_tools": [{"b": 2}]}),
            # tools in the system block
            ([{"role": "system", "content": "S"}, {"role": "user", "content": "hi"}],
             {"tools": [{"a": 1}], "tools_in_user_message": False, "date_string": "01 Jan 2025"}),
            # the template's two errors
            ([{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [_CALL, _CALL]}], {}),
            ([{"role": "system", "content": "s"}], {"tools": []}),
        ),
        unreachable={
            12: "strftime_now is always defined: transformers' global, or a caller's variable "
                "of that name (any JSON value is defined; calling it fails at line 10)",
        },
        generation=(
            # find
            ("        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' }}\n",
             # replace
             "        {%- if message['role'] == 'assistant' %}\n"
             "        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' }}{%- generation %}"
             "{{- message['content'] | trim + '<|eot_id|>' }}{%- endgeneration %}\n"
             "        {%- else %}\n"
             "        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' }}\n"
             "        {%- endif %}\n"),
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
        ),
    ),
)
