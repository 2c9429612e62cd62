"""The spec of format ``qwen3-2025-04``: the Qwen3 hybrid thinking text of the April 2025
release, an earlier revision of ``qwen3`` (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._qwen3_2507 import COVERING, HYBRID_GENERATION, QWEN3_HYBRID_PROVENANCE
from ._vocab import QWEN3_2507_CONTROL, QWEN3_2507_TOKENS

#: The hybrid generation tags, with the assistant content still concatenated to a string where
#: it stands alone in the tagged copy (``'' + content``): this text reads ``message.content``
#: unguarded, so an undefined or list content fails in ``'<|im_start|>' + ... + content``, and
#: a bare ``{{- content }}`` would print it instead (an oracle that renders where the template
#: fails).
GENERATION = tuple((find, replace.replace("{{- content }}", "{{- '' + content }}"))
                   for find, replace in HYBRID_GENERATION)

SPEC = Spec(
    name="qwen3-2025-04",
    # The eight hybrid models of 2025-04-29 shipped this text; their ids resolve to the later
    # revision (qwen3), which the confirmed snapshots carry now.  Found by its fingerprint.
    model_ids=(),
    revision_of="qwen3",
    description="Qwen3 hybrid thinking (enable_thinking), the April 2025 release text",
    template_file="qwen3_2025_04.jinja",
    template_sha256="87a2728cb8dc9fe424d624542f6060ec05a1d285ebbec578bb078900e33396b5",
    special_tokens=QWEN3_2507_TOKENS,
    control_strings=QWEN3_2507_CONTROL,
    control_provenance=QWEN3_HYBRID_PROVENANCE,
    variables=("add_generation_prompt", "enable_thinking", "tools"),
    calls=frozenset(["namespace"]),
    content_format="string",
    # The same assistant turn as the later revision (and the tool agent): one grammar.
    grammar="qwen3_tool_agent",
    tests=Tests(
        variables={"tools": "tools", "add_generation_prompt": "flag",
                   "enable_thinking": (True, False, None, 0, 1, "", "false", "False")},
        # The shared conversation with tools runs the tools branch, the scan, reasoning from a
        # field and from a split, and the tool turns; the others the system block without tools
        # and the empty think block of the generation prompt (every content a string: this
        # text fails on any other).
        covering=COVERING[:1] + (
            ([{"role": "system", "content": "S"}, {"role": "user", "content": "q"},
              {"role": "assistant", "content": "a"}, {"role": "user", "content": "q2"}],
             {"add_generation_prompt": True, "enable_thinking": False}),
        ),
        generation=GENERATION,
    ),
)
