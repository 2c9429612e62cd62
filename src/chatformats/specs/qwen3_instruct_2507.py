"""The spec of format ``qwen3-instruct-2507``: Qwen3 Instruct-2507 (non-thinking)
(``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._qwen3_2507 import COVERING
from ._vocab import QWEN3_2507_CONTROL, QWEN3_2507_PROVENANCE, QWEN3_2507_TOKENS

SPEC = Spec(
    name="qwen3-instruct-2507",
    # The models whose tokenizer config carries exactly this text (see
    # reference_templates/README.md for the evidence per model).
    model_ids=("Qwen/Qwen3-4B-Instruct-2507", "Qwen/Qwen3-30B-A3B-Instruct-2507"),
    description="Qwen3 Instruct-2507 (non-thinking)",
    template_file="qwen3_instruct_2507.jinja",
    template_sha256="64f85b198065d0fba2a81f37e10ed68161ce2c19a754c7100e67e0ca2ee9c326",
    special_tokens=QWEN3_2507_TOKENS,
    control_strings=QWEN3_2507_CONTROL,
    control_provenance=QWEN3_2507_PROVENANCE,
    variables=("add_generation_prompt", "tools"),
    calls=frozenset(),
    content_format="string",
    grammar="qwen3_instruct_2507",
    tests=Tests(
        variables={"tools": "tools", "add_generation_prompt": "flag"},
        covering=COVERING,
        generation=(
            # find
            ("{{- '<|im_start|>' + message.role + '\\n' + content }}",
             # replace
             "{{- '<|im_start|>' + message.role + '\\n' }}{%- generation %}{{- content }}"),
            # find
            ("{{- '<|im_end|>\\n' }}\n"
             '    {%- elif message.role == "tool" %}',
             # replace
             "{{- '<|im_end|>' }}{%- endgeneration %}{{- '\\n' }}\n"
             '    {%- elif message.role == "tool" %}'),
        )
    ),
)
