"""The spec of format ``qwen3``: Qwen3 hybrid thinking, the later revision
(``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._qwen3_2507 import COVERING, HYBRID_GENERATION, QWEN3_HYBRID_PROVENANCE
from ._vocab import QWEN3_2507_CONTROL, QWEN3_2507_TOKENS

SPEC = Spec(
    name="qwen3",
    # The snapshots confirmed to carry this text (reference_templates/README.md, qwen3.jinja);
    # the other sizes of the release are not claimed.
    model_ids=("Qwen/Qwen3-0.6B", "Qwen/Qwen3-8B", "Qwen/Qwen3-30B-A3B"),
    description="Qwen3 hybrid thinking (enable_thinking), the later revision",
    template_file="qwen3.jinja",
    template_sha256="a55ee1b1660128b7098723e0abcd92caa0788061051c62d51cbe87d9cf1974d8",
    special_tokens=QWEN3_2507_TOKENS,
    control_strings=QWEN3_2507_CONTROL,
    control_provenance=QWEN3_HYBRID_PROVENANCE,
    variables=("add_generation_prompt", "enable_thinking", "tools"),
    calls=frozenset(["namespace"]),
    content_format="string",
    # The Thinking-2507 logic writes the same assistant turn as the tool agent: one grammar.
    grammar="qwen3_tool_agent",
    tests=Tests(
        variables={"tools": "tools", "add_generation_prompt": "flag",
                   "enable_thinking": (True, False, None, 0, 1, "", "false", "False")},
        covering=COVERING + (
            ([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"},
              {"role": "user", "content": "q2"}],
             {"add_generation_prompt": True, "enable_thinking": False}),
        ),
        generation=HYBRID_GENERATION,
    ),
)
