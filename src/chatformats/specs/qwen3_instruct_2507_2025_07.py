"""The spec of format ``qwen3-instruct-2507-2025-07``: the Thinking-2507 text with the Instruct
generation prompt, which the Instruct-2507 models first shipped; an earlier revision of
``qwen3-instruct-2507`` (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._qwen3_2507 import COVERING
from ._vocab import QWEN3_2507_CONTROL, QWEN3_2507_TOKENS

SPEC = Spec(
    name="qwen3-instruct-2507-2025-07",
    # The Instruct-2507 models' snapshots from before the switch; their ids resolve to the
    # current text (qwen3-instruct-2507).  Found by its fingerprint.
    model_ids=(),
    revision_of="qwen3-instruct-2507",
    description="Qwen3 Instruct-2507, the July 2025 text (Thinking-2507 logic, Instruct generation prompt)",
    template_file="qwen3_instruct_2507_2025_07.jinja",
    template_sha256="40c21f34cf67d8c760ef72f8ad3ae5afad514299d4b06e91dd9a8d705af7b541",
    special_tokens=QWEN3_2507_TOKENS,
    control_strings=QWEN3_2507_CONTROL,
    control_provenance=(
        "tokenizer: the 26 added tokens 151643-151668 of the Qwen3 tokenizer as pinned for "
        "qwen3-thinking-2507 (Qwen/Qwen3-4B-Thinking-2507's tokenizer_config.json, "
        "reference_templates/README.md 'Control strings'); the Instruct-2507 models' own "
        "tokenizer_config.json was not compared; template: the tags that are not tokens"),
    variables=("add_generation_prompt", "tools"),
    calls=frozenset(["namespace"]),
    content_format="string",
    # The Thinking-2507 logic writes the same assistant turn as the tool agent: one grammar.
    grammar="qwen3_tool_agent",
    tests=Tests(
        variables={"tools": "tools", "add_generation_prompt": "flag"},
        covering=COVERING,
        # This revision's logic is exercised at full weight through qwen3-thinking-2507 and the
        # tool agent (the same function); this text differs in its generation prompt only.
        weight=0.5,
        generation=(
            # find
            ('        {%- if loop.index0 > ns.last_query_index %}\n'
             '            {%- if loop.last or (not loop.last and reasoning_content) %}\n'
             "                {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}\n"
             '            {%- else %}\n'
             "                {{- '<|im_start|>' + message.role + '\\n' + content }}\n"
             '            {%- endif %}\n'
             '        {%- else %}\n'
             "            {{- '<|im_start|>' + message.role + '\\n' + content }}\n"
             '        {%- endif %}',
             # replace: the generation prompt prefills nothing, so every range starts after
             # the header (a rendered think block is inside it)
             "        {{- '<|im_start|>' + message.role + '\\n' }}\n"
             '        {%- generation %}\n'
             '        {%- if loop.index0 > ns.last_query_index %}\n'
             '            {%- if loop.last or (not loop.last and reasoning_content) %}\n'
             "                {{- '<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}\n"
             '            {%- else %}\n'
             '                {{- content }}\n'
             '            {%- endif %}\n'
             '        {%- else %}\n'
             '            {{- content }}\n'
             '        {%- endif %}'),
            # find
            ("        {{- '<|im_end|>\\n' }}\n"
             '    {%- elif message.role == "tool" %}',
             # replace
             "        {{- '<|im_end|>' }}{%- endgeneration %}{{- '\\n' }}\n"
             '    {%- elif message.role == "tool" %}'),
        )
    ),
)
