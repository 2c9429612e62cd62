"""The spec of format ``qwen2.5-instruct-2024-09``: Qwen2.5 Instruct, the September 2024 text (doubled braces in the tool instructions) (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._qwen2_5 import COVERING, GENERATION, QWEN2_5_CONTROL, QWEN2_5_PROVENANCE, QWEN2_5_TOKENS

SPEC = Spec(
    name="qwen2.5-instruct-2024-09",
    model_ids=(),
    # The September 2024 snapshots; the same repositories carry qwen2.5-instruct now, which
    # their ids name.  Found by its fingerprint.
    revision_of="qwen2.5-instruct",
    description="Qwen2.5 Instruct, the September 2024 text (doubled braces in the tool instructions)",
    template_file="qwen2_5_instruct_2024_09.jinja",
    template_sha256="d5495a1e5db0611132a97e46a65dbb64a642a499421228b9c8b93229097fa9a4",
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
        weight=0.5,
        generation=GENERATION,
    ),
)
