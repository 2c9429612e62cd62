"""The spec of format ``llama-3.2-vision-2024-12``: Meta Llama 3.2 11B Vision Instruct, the
December 2024 template (a system message alongside images) (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._llama3_2_vision import COVERING, META_GENERATION
from ._vocab import LLAMA3_2_VISION_CONTROL, LLAMA3_TOKENS

SPEC = Spec(
    name="llama-3.2-vision-2024-12",
    # The revision the 11B model's chat_template.json carries since December 2024 (the Hub copy
    # a 2025 test suite pasted, and the 11B GGUF Ollama serves); the 90B's is not attested, so
    # its id stays with the September text.
    model_ids=("meta-llama/Llama-3.2-11B-Vision-Instruct",),
    description="Meta Llama 3.2 11B Vision Instruct, the December 2024 template (a system message alongside images)",
    template_file="llama3_2_vision_2024_12.jinja",
    template_sha256="53ff0dc467531d098a8bdd2ba38a3b2c157c9a90e96e16a0a79aa86476d47eea",
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
            112: "a tool/ipython message reaching the loop had its content iterated by the "
                 "line 32 image scan, which fails for every non-iterable value (None, "
                 "numbers, booleans)",
        },
        generation=META_GENERATION,
    ),
)
