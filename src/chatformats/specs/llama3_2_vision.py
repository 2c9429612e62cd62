"""The spec of format ``llama-3.2-vision-variant``: a variant of Meta's Llama 3.2 Vision September
2024 template (reworded tool instructions, comments that emit newlines); no published model
identified (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._llama3_2_vision import COVERING
from ._vocab import LLAMA3_2_VISION_CONTROL, LLAMA3_TOKENS

SPEC = Spec(
    name="llama-3.2-vision-variant",
    model_ids=(),
    description="a variant of Meta's Llama 3.2 Vision September 2024 template (reworded tool instructions, comments that emit newlines); no published model identified",
    template_file="llama3_2_vision.jinja",
    template_sha256="d3e97dc81677b7918ffae734b13999c4b4ea5eb3939a8506bbf501602f4d2b62",
    special_tokens=LLAMA3_TOKENS,
    control_strings=LLAMA3_2_VISION_CONTROL,
    control_provenance=("tokenizer: the 257 special tokens of Llama 3.2 Vision Instruct (128000-128256, "
         "<|image|> last), the model this variant varies"),
    variables=("add_generation_prompt",
         "bos_token",
         "custom_tools",
         "date_string",
         "tools",
         "tools_in_user_message"),
    calls=frozenset(["namespace", "raise_exception", "strftime_now"]),
    content_format="openai",
    # vllm/model_executor/models/mllama.py (Llama 3.2 Vision): images only
    modalities={"image": "<|image|>"},
    variant_of="meta-llama/Llama-3.2-11B-Vision-Instruct",
    grammar="llama3_2_vision",
    tests=Tests(
        variables={"bos_token": ("<|begin_of_text|>",), "tools": "llama_tools",
                   "custom_tools": "llama_tools", "tools_in_user_message": "flag",
                   "date_string": ("26 Jul 2024",), "add_generation_prompt": "flag"},
        covering=COVERING,
        unreachable={
            16: "strftime_now is always defined: transformers' global, or a caller's variable "
                "of that name (any JSON value is defined; calling it fails at line 14)",
            122: "a tool/ipython message reaching the loop had its content iterated by the "
                 "line 35 image scan, which fails for every non-iterable value (None, "
                 "numbers, booleans)",
        },
        weight=0.5,
        generation=(
            # find
            ("        {%- if message['content'] is string %}\n"
             "            {{- message['content'] }}\n"
             '        {%- else %}\n'
             "            {%- for content in message['content'] %}\n"
             "                {%- if content['type'] == 'image' %}\n"
             "                    {{- '<|image|>' }}\n"
             "                {%- elif content['type'] == 'text' %}\n"
             "                    {{- content['text'] }}\n"
             '                {%- endif %}\n'
             '            {%- endfor %}\n'
             '        {%- endif %}\n'
             "        {{- '<|eot_id|>' }}",
             # replace
             "        {%- if message['role'] == 'assistant' %}{%- generation %}\n"
             "        {%- if message['content'] is string %}\n"
             "            {{- message['content'] }}\n"
             '        {%- else %}\n'
             "            {%- for content in message['content'] %}\n"
             "                {%- if content['type'] == 'image' %}\n"
             "                    {{- '<|image|>' }}\n"
             "                {%- elif content['type'] == 'text' %}\n"
             "                    {{- content['text'] }}\n"
             '                {%- endif %}\n'
             '            {%- endfor %}\n'
             '        {%- endif %}\n'
             "        {{- '<|eot_id|>' }}{%- endgeneration %}\n"
             '        {%- else %}\n'
             "        {%- if message['content'] is string %}\n"
             "            {{- message['content'] }}\n"
             '        {%- else %}\n'
             "            {%- for content in message['content'] %}\n"
             "                {%- if content['type'] == 'image' %}\n"
             "                    {{- '<|image|>' }}\n"
             "                {%- elif content['type'] == 'text' %}\n"
             "                    {{- content['text'] }}\n"
             '                {%- endif %}\n'
             '            {%- endfor %}\n'
             '        {%- endif %}\n'
             "        {{- '<|eot_id|>' }}\n"
             '        {%- endif %}'),
            # find
            ("{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n"
             '        {{- \'{"name": "\'',
             # replace
             "{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- generation %}\n"
             '        {{- \'{"name": "\''),
            # find
            ('        {{- "<|eot_id|>" }}\n'
             '    {%- elif message.role in ["tool", "ipython"] %}',
             # replace
             '        {{- "<|eot_id|>" }}{%- endgeneration %}\n'
             '    {%- elif message.role in ["tool", "ipython"] %}'),
        )
    ),
)
