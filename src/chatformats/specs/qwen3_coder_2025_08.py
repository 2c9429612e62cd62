"""The spec of format ``qwen3-coder``: Qwen3-Coder, the August 2025 text (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._qwen3_coder import (
    GENERATION, LOOP, QWEN3_CODER_CONTROL, QWEN3_CODER_PROVENANCE, QWEN3_CODER_TOKENS, TEST_VARIABLES,
)

#: Tools that run every line of the August text's tool rendering: a parameter with a type, a
#: description and other keys (a mapping, a list, a scalar), parameters' and the tool's own
#: other keys; a tool without a description or parameters; parameters without properties.
TOOLS = [
    {"type": "function", "function": {
        "name": "f", "description": " Find. ",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string", "description": " City ", "enum": ["a", "b"],
                     "items": {"type": "string"}, "default": 1}},
            "required": ["city"]},
        "strict": True}},
    {"name": "g"},
    {"name": "h", "parameters": {"type": "object"}},
]

SPEC = Spec(
    name="qwen3-coder",
    model_ids=("Qwen/Qwen3-Coder-30B-A3B-Instruct", "Qwen/Qwen3-Coder-480B-A35B-Instruct"),
    description="Qwen3-Coder (the August 2025 text: tools as XML, calls as <function=NAME><parameter=KEY>)",
    template_file="qwen3_coder_2025_08.jinja",
    template_sha256="7e0648e7a298d820992b258648406f1e563c7067e55be5ac31fa5c24538735d4",
    special_tokens=QWEN3_CODER_TOKENS,
    control_strings=QWEN3_CODER_CONTROL,
    control_provenance=QWEN3_CODER_PROVENANCE,
    variables=("add_generation_prompt", "system_message", "tools"),
    calls=frozenset(),
    content_format="string",
    grammar="qwen3_coder",
    tests=Tests(
        variables=TEST_VARIABLES,
        covering=((LOOP[0][0], {**LOOP[0][1], "tools": TOOLS}), *LOOP[1:]),
        generation=GENERATION,
    ),
)
