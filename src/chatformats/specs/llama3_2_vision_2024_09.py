"""The spec of format ``llama-3.2-vision-2024-09``: Meta Llama 3.2 11B/90B Vision Instruct, the
September 2024 template (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._llama3_2_vision import COVERING, META_GENERATION
from ._vocab import LLAMA3_2_VISION_CONTROL, LLAMA3_TOKENS

SPEC = Spec(
    name="llama-3.2-vision-2024-09",
    # The September 2024 release of both sizes shipped this text (chat_template.json); the 11B's
    # later revision (llama-3.2-vision-2024-12) renders a system message alongside images.
    model_ids=("meta-llama/Llama-3.2-90B-Vision-Instruct",),
    description="Meta Llama 3.2 11B/90B Vision Instruct, the September 2024 template",
    template_file="llama3_2_vision_2024_09.jinja",
    template_sha256="e407323269d15bba92fc431b5b7d757e66d920d01b45cae58149a692d7697d3c",
    special_tokens=LLAMA3_TOKENS,
    control_strings=LLAMA3_2_VISION_CONTROL,
    control_provenance=("tokenizer: the 257 special tokens of Llama 3.2 Vision Instruct (128000-128256, "
         "<|image|> last)"),
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
    grammar="llama3_2_vision",
    tests=Tests(
        variables={"bos_token": ("<|begin_of_text|>",), "tools": "llama_tools",
                   "custom_tools": "llama_tools", "tools_in_user_message": "flag",
                   "date_string": ("26 Jul 2024",), "add_generation_prompt": "flag"},
        covering=COVERING,
        unreachable={
            12: "strftime_now is always defined: transformers' global, or a caller's variable "
                "of that name (any JSON value is defined; calling it fails at line 10)",
            115: "a tool/ipython message reaching the loop had its content iterated by the "
                 "line 30 image scan, which fails for every non-iterable value (None, "
                 "numbers, booleans)",
        },
        weight=0.5,
        generation=META_GENERATION,
    ),
)
