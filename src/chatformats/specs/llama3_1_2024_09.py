"""The spec of format ``llama-3.1``: Meta Llama 3.1 8B/70B/405B Instruct and Llama 3.3 70B
Instruct, which ships the same text byte for byte (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._vocab import LLAMA3_1_CONTROL, LLAMA3_TOKENS

_CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
_BRAVE = {"function": {"name": "brave_search", "arguments": {"query": "x", "count": "2"}}}

SPEC = Spec(
    name="llama-3.1",
    # The Hub renamed the Meta-Llama-3.1-* repositories to Llama-3.1-*: both names resolve here.
    model_ids=("meta-llama/Llama-3.1-8B-Instruct",
         "meta-llama/Llama-3.1-70B-Instruct",
         "meta-llama/Llama-3.1-405B-Instruct",
         "meta-llama/Meta-Llama-3.1-8B-Instruct",
         "meta-llama/Meta-Llama-3.1-70B-Instruct",
         "meta-llama/Meta-Llama-3.1-405B-Instruct",
         "meta-llama/Llama-3.3-70B-Instruct"),
    description="Meta Llama 3.1 8B/70B/405B Instruct and Llama 3.3 70B Instruct (built-in tools, <|python_tag|>, <|eom_id|>)",
    template_file="llama3_1_2024_09.jinja",
    template_sha256="e10ca381b1ccc5cf9db52e371f3b6651576caee0a630b452e2816b2d404d4b65",
    special_tokens=LLAMA3_TOKENS,
    control_strings=LLAMA3_1_CONTROL,
    control_provenance=("tokenizer: the 256 special tokens 128000-128255 of DEFAULT_LLAMA_SPECIAL_TOKENS['3.1'] "
         "in transformers' convert_llama_weights_to_hf.py (every <|...|> string the template writes is one of "
         "them); Llama 3.3: the same stop tokens (128001, 128008, 128009) in xinference's family, not confirmed "
         "from a 3.3 tokenizer copy"),
    variables=("add_generation_prompt",
         "bos_token",
         "builtin_tools",
         "custom_tools",
         "date_string",
         "tools",
         "tools_in_user_message"),
    calls=frozenset(["raise_exception"]),
    content_format="string",
    # Its own grammar: the Llama 3.2 Vision JSON call plus <|python_tag|>NAME.call(k="v")
    # (parsing/llama3_1.py).
    grammar="llama3_1",
    tests=Tests(
        parse_variables={"builtin_tools": (
            ["brave_search", "wolfram_alpha"], ["brave_search", "wolfram_alpha", "code_interpreter"])},
        variables={"bos_token": ("<|begin_of_text|>",), "tools": "llama_tools",
                   "custom_tools": "llama_tools", "tools_in_user_message": "flag",
                   "date_string": ("26 Jul 2024", "01 Jan 2025"), "add_generation_prompt": "flag",
                   # lists naming the shared strategies' tool names too, so that their calls
                   # take the built-in branch; a string (its characters, and `in` a substring test)
                   "builtin_tools": (["brave_search", "wolfram_alpha"],
                                     ["brave_search", "wolfram_alpha", "code_interpreter"],
                                     ["code_interpreter"], ["search", "get_weather"], "search")},
        covering=(
            # built-in tools: Tools line, a <|python_tag|> call with two arguments, <|eom_id|>;
            # a custom call in ipython mode (JSON, <|eom_id|>); a result that is not iterable
            ([{"role": "system", "content": " S "}, {"role": "user", "content": "q"},
              {"role": "assistant", "tool_calls": [_BRAVE]},
              {"role": "ipython", "content": {"r": 1}},
              {"role": "assistant", "content": "", "tool_calls": [_CALL]},
              {"role": "tool", "content": None},
              {"role": "assistant", "content": " done "}],
             {"builtin_tools": ["brave_search", "code_interpreter"], "date_string": "01 Jan 2025",
              "add_generation_prompt": True}),
            # custom tools in the first user message, a JSON call ending in <|eot_id|>
            ([{"role": "user", "content": " weather? "}, {"role": "assistant", "tool_calls": [_CALL]},
              {"role": "tool", "content": "18C"}], {"custom_tools": [{"b": 2}]}),
            # tools in the system block
            ([{"role": "system", "content": "S"}, {"role": "user", "content": "hi"}],
             {"tools": [{"a": 1}], "tools_in_user_message": False}),
            # the template's two errors
            ([{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [_CALL, _CALL]}], {}),
            ([{"role": "system", "content": "s"}], {"tools": []}),
        ),
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
            # find: each branch of L74 begins with the header, emitted by a copy of the `if`
            # before the range opens; the original `if` writes the rest inside it
            ("        {%- set tool_call = message.tool_calls[0].function %}\n"
             "        {%- if builtin_tools is defined and tool_call.name in builtin_tools %}\n"
             "            {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}\n",
             # replace
             "        {%- set tool_call = message.tool_calls[0].function %}\n"
             "        {%- if builtin_tools is defined and tool_call.name in builtin_tools %}\n"
             "            {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}\n"
             "        {%- else %}\n"
             "            {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}\n"
             "        {%- endif %}{%- generation %}\n"
             "        {%- if builtin_tools is defined and tool_call.name in builtin_tools %}\n"),
            # find
            ("        {%- else  %}\n"
             "            {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}\n",
             # replace
             "        {%- else  %}\n"),
            # find
            ('            {{- "<|eot_id|>" }}\n'
             '        {%- endif %}\n'
             '    {%- elif message.role == "tool" or message.role == "ipython" %}',
             # replace
             '            {{- "<|eot_id|>" }}\n'
             '        {%- endif %}{%- endgeneration %}\n'
             '    {%- elif message.role == "tool" or message.role == "ipython" %}'),
        ),
    ),
)
