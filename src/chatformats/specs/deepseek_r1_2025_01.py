"""The spec of format ``deepseek-r1-2025-01``: DeepSeek-R1 as released in January 2025 (the
generation prompt ``<｜Assistant｜>`` alone), an earlier revision of ``deepseek-r1``
(``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._deepseek_r1 import CONTROL, COVERING, GENERATION, PROVENANCE, VARIABLES
from ._vocab import DEEPSEEK_TOKENS

SPEC = Spec(
    name="deepseek-r1-2025-01",
    # deepseek-ai/DeepSeek-R1 now ships the February text (deepseek-r1); a snapshot from before
    # the change is found by this text's fingerprint.
    model_ids=(),
    revision_of="deepseek-r1",
    description="DeepSeek-R1, the January 2025 template (generation prompt <｜Assistant｜>)",
    template_file="deepseek_r1_2025_01.jinja",
    template_sha256="3a3036eeb96ca0e48565fc1f19b4d7d3fa17ada32bb1b3d5ed539ae74cf22923",
    special_tokens=DEEPSEEK_TOKENS,
    control_strings=CONTROL,
    control_provenance=PROVENANCE,
    variables=("add_generation_prompt", "bos_token"),
    calls=frozenset(["namespace"]),
    content_format="string",
    # DeepSeek's tool-call section: the family's grammar (parsing/_deepseek.py, parsing/deepseek_r1.py).
    grammar="deepseek_r1",
    call_arguments="string",  # the template concatenates them
    # Its logic is deepseek-r1's (one shared port): half the weight.
    tests=Tests(variables=VARIABLES, covering=COVERING, weight=0.5, generation=GENERATION),
)
