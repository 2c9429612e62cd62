"""The spec of format ``qwen3-tool-agent``: variant: the Qwen3 2507 reasoning template
(qwen3-thinking-2507's logic) with a fixed tool-use preamble and the Instruct generation prompt;
no published model (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._qwen3_2507 import COVERING
from ._vocab import QWEN3_2507_CONTROL, QWEN3_2507_PROVENANCE, QWEN3_2507_TOKENS

SPEC = Spec(
    name="qwen3-tool-agent",
    model_ids=(),
    description="variant: the Qwen3 2507 reasoning template (qwen3-thinking-2507's logic) with a fixed tool-use preamble and the Instruct generation prompt; no published model",
    template_file="qwen3_tool_agent.jinja",
    template_sha256="ff80afbfb2bfc83da910c94d8333a10df14b6ad76cc00e5549c3fa16ebed374f",
    special_tokens=QWEN3_2507_TOKENS,
    control_strings=QWEN3_2507_CONTROL,
    control_provenance=QWEN3_2507_PROVENANCE,
    variables=("add_generation_prompt", "tools"),
    calls=frozenset(["namespace"]),
    content_format="string",
    variant_of="the Qwen3 2507-series template (Qwen/Qwen3-*-2507)",
    grammar="qwen3_tool_agent",
    tests=Tests(
        variables={"tools": "tools", "add_generation_prompt": "flag"},
        covering=COVERING,
        generation=(
            # find
            ('{%- if loop.index0 > ns.last_query_index %}\n'
             '{%- if loop.last or (not loop.last and reasoning_content) %}\n'
             "{{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}\n"
             '{%- else %}\n'
             "{{- '<|im_start|>' + message.role + '\\n' + content }}\n"
             '{%- endif %}\n'
             '{%- else %}\n'
             "{{- '<|im_start|>' + message.role + '\\n' + content }}\n"
             '{%- endif %}',
             # replace
             "{{- '<|im_start|>' + message.role + '\\n' }}\n"
             '{%- generation %}\n'
             '{%- if loop.index0 > ns.last_query_index %}\n'
             '{%- if loop.last or (not loop.last and reasoning_content) %}\n'
             "{{- '<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}\n"
             '{%- else %}\n'
             '{{- content }}\n'
             '{%- endif %}\n'
             '{%- else %}\n'
             '{{- content }}\n'
             '{%- endif %}'),
            # find
            ("{{- '<|im_end|>\\n' }}\n"
             '{%- elif message.role == "tool" %}',
             # replace
             "{{- '<|im_end|>' }}{%- endgeneration %}{{- '\\n' }}\n"
             '{%- elif message.role == "tool" %}'),
        )
    ),
)
