"""The spec of format ``qwen3-coder-2025-07``: Qwen3-Coder, the July 2025 text as released
(``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._qwen3_coder import (
    GENERATION, LOOP, QWEN3_CODER_2025_07_CONTROL, QWEN3_CODER_PROVENANCE, QWEN3_CODER_TOKENS,
    TEST_VARIABLES,
)

#: Tools that run every line of the July text's tool rendering: a parameter with a type, a
#: description, an enum, a required list and other keys (a mapping, a scalar, names with
#: ``-``, `` `` and ``$``), required parameters, a return as a mapping and as a string.
TOOLS = [
    {"type": "function", "function": {
        "name": "f", "description": " Find. ",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string", "description": " City ", "enum": ["a", 2],
                     "items": {"type": "string"}, "x-order": 1, "$ref": "r", "a b": None,
                     "required": ["z"]}},
            "required": ["city"]},
        "return": {"type": "string"}}},
    {"name": "g", "parameters": None, "return": "text"},
]

SPEC = Spec(
    name="qwen3-coder-2025-07",
    model_ids=(),
    # The text the models were released with; their repositories carry qwen3-coder now, which
    # their ids name.  Found by its fingerprint.
    revision_of="qwen3-coder",
    description="Qwen3-Coder, the July 2025 text as released (enum and required lists, normalised key names, return)",
    template_file="qwen3_coder_2025_07.jinja",
    template_sha256="672e747c77e990320152343b0a4951222e40de5645297905d89afba05586d827",
    special_tokens=QWEN3_CODER_TOKENS,
    control_strings=QWEN3_CODER_2025_07_CONTROL,
    control_provenance=QWEN3_CODER_PROVENANCE,
    variables=("add_generation_prompt", "system_message", "tools"),
    calls=frozenset(),
    content_format="string",
    grammar="qwen3_coder",
    # every argument value |string (L89), a mapping too
    canonical={"arguments": "string"},
    tests=Tests(
        variables=TEST_VARIABLES,
        covering=((LOOP[0][0], {**LOOP[0][1], "tools": TOOLS}), *LOOP[1:]),
        weight=0.5,
        generation=GENERATION,
    ),
)
