"""The spec of format ``deepseek-r1``: DeepSeek-R1, the February 2025 template (the generation
prompt opens the reasoning) (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._deepseek_r1 import CONTROL, COVERING, GENERATION, PROVENANCE, VARIABLES
from ._vocab import DEEPSEEK_TOKENS

SPEC = Spec(
    name="deepseek-r1",
    model_ids=("deepseek-ai/DeepSeek-R1",),
    description="DeepSeek-R1, the February 2025 template (generation prompt <｜Assistant｜><think>\\n)",
    template_file="deepseek_r1.jinja",
    template_sha256="563b1ce7d61d50a9b4c7439a912a1116f095b712df5b5e4d3e1116049874eb64",
    special_tokens=DEEPSEEK_TOKENS,
    control_strings=CONTROL,
    control_provenance=PROVENANCE,
    variables=("add_generation_prompt", "bos_token"),
    calls=frozenset(["namespace"]),
    content_format="string",
    # DeepSeek's tool-call section: the family's grammar (parsing/_deepseek.py, parsing/deepseek_r1.py).
    grammar="deepseek_r1",
    call_arguments="string",  # the template concatenates them
    tests=Tests(variables=VARIABLES, covering=COVERING, generation=GENERATION),
)
