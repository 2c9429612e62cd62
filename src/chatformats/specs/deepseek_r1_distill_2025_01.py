"""The spec of format ``deepseek-r1-distill-2025-01``: the DeepSeek-R1-Distill template as
released in January 2025 (the generation prompt ``<｜Assistant｜>`` alone), an earlier revision of
``deepseek-r1-distill`` (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._deepseek_r1_distill import CONTROL, COVERING, GENERATION, PROVENANCE, VARIABLES
from ._vocab import DEEPSEEK_TOKENS

SPEC = Spec(
    name="deepseek-r1-distill-2025-01",
    # All six distills (Qwen 1.5B-32B, Llama 8B/70B) shipped this text at release and a
    # '<think>\n' text since: a snapshot from before is found by this text's fingerprint.
    model_ids=(),
    revision_of="deepseek-r1-distill",
    description="DeepSeek-R1-Distill (Qwen and Llama), the January 2025 template (generation prompt <｜Assistant｜>)",
    template_file="deepseek_r1_distill_2025_01.jinja",
    template_sha256="b6835114b7303ddd78919a82e4d9f7d8c26ed0d7dfc36beeb12d524f6144eab1",
    special_tokens=DEEPSEEK_TOKENS,
    control_strings=CONTROL,
    control_provenance=PROVENANCE,
    variables=("add_generation_prompt", "bos_token"),
    calls=frozenset(["namespace"]),
    content_format="string",
    # DeepSeek's tool-call section: the family's grammar (parsing/_deepseek.py, parsing/deepseek_r1_distill.py).
    grammar="deepseek_r1_distill",
    call_arguments="string",  # the template concatenates them
    # Its logic is deepseek-r1-distill's (one shared port): half the weight.
    tests=Tests(variables=VARIABLES, covering=COVERING, weight=0.5, generation=GENERATION),
)
