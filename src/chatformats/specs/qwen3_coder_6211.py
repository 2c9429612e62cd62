"""The spec of format ``qwen3-coder-6211``: Qwen3-Coder, the 6,211-byte text: the August text
with a ``# Tools`` heading and lists written as JSON (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._qwen3_coder import (
    GENERATION, LOOP, QWEN3_CODER_CONTROL, QWEN3_CODER_PROVENANCE, QWEN3_CODER_TOKENS, TEST_VARIABLES,
)
from .qwen3_coder_2025_08 import TOOLS

SPEC = Spec(
    name="qwen3-coder-6211",
    model_ids=(),
    # Two repositories hold these bytes (vLLM's example template, a llama.cpp tree's test
    # template), neither says which model repository it came from: not established as shipped
    # (reference_templates/README.md).  Found by its fingerprint or its name.
    variant_of="Qwen/Qwen3-Coder-30B-A3B-Instruct",
    description="Qwen3-Coder, the 6,211-byte text (the August text with a '# Tools' heading and lists as JSON); no model repository established",
    template_file="qwen3_coder_6211.jinja",
    template_sha256="5a38bfa05833266240066aedc497decc9b00cc0d3e3b8cceea98cf530196ab06",
    special_tokens=QWEN3_CODER_TOKENS,
    control_strings=QWEN3_CODER_CONTROL,
    control_provenance=QWEN3_CODER_PROVENANCE,
    variables=("add_generation_prompt", "system_message", "tools"),
    calls=frozenset(),
    content_format="string",
    grammar="qwen3_coder",
    # a mapping or a list value through tojson, else |string
    canonical={"arguments": "json-container"},
    tests=Tests(
        variables=TEST_VARIABLES,
        covering=((LOOP[0][0], {**LOOP[0][1], "tools": TOOLS}), *LOOP[1:]),
        weight=0.5,
        generation=GENERATION,
    ),
)
