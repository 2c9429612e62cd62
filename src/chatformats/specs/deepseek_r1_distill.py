"""The spec of format ``deepseek-r1-distill``: the DeepSeek-R1-Distill template, February 2025
(the generation prompt opens the reasoning) (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._deepseek_r1_distill import CONTROL, COVERING, GENERATION, PROVENANCE, VARIABLES
from ._vocab import DEEPSEEK_TOKENS

SPEC = Spec(
    name="deepseek-r1-distill",
    # The Llama distills by xinference's family.  The Qwen distills shipped the January text
    # (deepseek-r1-distill-2025-01) at release and a '<think>\n' text since, which of the two
    # the copies do not agree on (reference_templates/README.md): not claimed.  The template
    # reads bos_token only, the same string in both tokenizers (the ids differ).
    model_ids=("deepseek-ai/DeepSeek-R1-Distill-Llama-8B", "deepseek-ai/DeepSeek-R1-Distill-Llama-70B"),
    description="DeepSeek-R1-Distill (Llama), the February 2025 template (<think>\\n prefilled)",
    template_file="deepseek_r1_distill.jinja",
    template_sha256="56a1447ad31926fdc21fb07e56e5642bd9c850c4f52d8c8af7bbe5f079a84f5f",
    special_tokens=DEEPSEEK_TOKENS,
    control_strings=CONTROL,
    control_provenance=PROVENANCE,
    variables=("add_generation_prompt", "bos_token"),
    calls=frozenset(["namespace"]),
    content_format="string",
    # DeepSeek's tool-call section: the family's grammar (parsing/_deepseek.py, parsing/deepseek_r1_distill.py).
    grammar="deepseek_r1_distill",
    call_arguments="string",  # the template concatenates them
    tests=Tests(variables=VARIABLES, covering=COVERING, generation=GENERATION),
)
