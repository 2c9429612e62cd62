"""The spec of format ``qwen3-thinking-2507``: Qwen3 Thinking-2507 (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._qwen3_2507 import COVERING
from ._vocab import QWEN3_2507_CONTROL, QWEN3_2507_PROVENANCE, QWEN3_2507_TOKENS

SPEC = Spec(
    name="qwen3-thinking-2507",
    model_ids=("Qwen/Qwen3-235B-A22B-Thinking-2507",
         "Qwen/Qwen3-235B-A22B-Thinking-2507-FP8",
         "Qwen/Qwen3-30B-A3B-Thinking-2507",
         "Qwen/Qwen3-30B-A3B-Thinking-2507-FP8",
         "Qwen/Qwen3-4B-Thinking-2507",
         "Qwen/Qwen3-4B-Thinking-2507-FP8"),
    description="Qwen3 Thinking-2507",
    template_file="qwen3_thinking_2507.jinja",
    template_sha256="3802169b2a02b81e6adb7ab4f64f91ff02db753c8c3a64a01c35192d3a61d8d7",
    special_tokens=QWEN3_2507_TOKENS,
    control_strings=QWEN3_2507_CONTROL,
    control_provenance=QWEN3_2507_PROVENANCE,
    variables=("add_generation_prompt", "tools"),
    calls=frozenset(["namespace"]),
    content_format="string",
    # The Thinking-2507 logic writes the same assistant turn as the tool agent: one grammar.
    grammar="qwen3_tool_agent",
    tests=Tests(
        variables={"tools": "tools", "add_generation_prompt": "flag"},
        covering=COVERING,
        generation=(
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
             # replace
             '        {%- if loop.index0 > ns.last_query_index %}\n'
             '            {%- if loop.last or (not loop.last and reasoning_content) %}\n'
             "                {{- '<|im_start|>' + message.role + '\\n<think>\\n' }}\n"
             '            {%- else %}\n'
             "                {{- '<|im_start|>' + message.role + '\\n' }}\n"
             '            {%- endif %}\n'
             '        {%- else %}\n'
             "            {{- '<|im_start|>' + message.role + '\\n' }}\n"
             '        {%- endif %}\n'
             '        {%- generation %}\n'
             '        {%- if loop.index0 > ns.last_query_index %}\n'
             '            {%- if loop.last or (not loop.last and reasoning_content) %}\n'
             "                {{- reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}\n"
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
    ),
)
