"""The spec of format ``qwen2.5-instruct``: Qwen2.5 Instruct (default system prompt, <tool_call> JSON) (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._qwen2_5 import COVERING, GENERATION, QWEN2_5_CONTROL, QWEN2_5_PROVENANCE, QWEN2_5_TOKENS

SPEC = Spec(
    name="qwen2.5-instruct",
    model_ids=("Qwen/Qwen2.5-0.5B-Instruct", "Qwen/Qwen2.5-1.5B-Instruct", "Qwen/Qwen2.5-3B-Instruct",
               "Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-14B-Instruct", "Qwen/Qwen2.5-32B-Instruct",
               "Qwen/Qwen2.5-72B-Instruct"),
    description="Qwen2.5 Instruct (default system prompt, <tool_call> JSON)",
    template_file="qwen2_5_instruct.jinja",
    template_sha256="cd8e9439f0570856fd70470bf8889ebd8b5d1107207f67a5efb46e342330527f",
    special_tokens=QWEN2_5_TOKENS,
    control_strings=QWEN2_5_CONTROL,
    control_provenance=QWEN2_5_PROVENANCE,
    variables=("add_generation_prompt", "tools"),
    calls=frozenset(),
    content_format="string",
    grammar="qwen2_5_instruct",
    tests=Tests(
        variables={"tools": "tools", "add_generation_prompt": "flag"},
        covering=COVERING,
        weight=1.0,
        generation=GENERATION,
    ),
)
