"""Vocabularies several formats share: special tokens and control strings of one tokenizer.

A format whose tokenizer is its own keeps its lists in its spec; a list two or more specs read
(the same tokenizer behind several templates) lives here, with its sources.
"""

from __future__ import annotations

# Special tokens: what ``tokenizer.special_tokens_map`` holds for each model's tokenizer in
# transformers 5.x (bos/eos/unk/sep/pad/cls/mask plus any other ``*_token`` of its tokenizer
# config), which ``apply_chat_template`` passes to the template under the caller's kwargs.
# Of these, the templates read only ``bos_token`` (the llama-3.2-vision formats and cogito), so no other
# value can change a rendered prompt; ``tests/test_pipeline.py`` builds each tokenizer from these.
# Llama 3.1/3.2 Instruct tokenizer configs (which Cogito v1 keeps): bos "<|begin_of_text|>",
# eos "<|eot_id|>".
LLAMA3_TOKENS = {
    "bos_token": "<|begin_of_text|>",
    "eos_token": "<|eot_id|>",
}

# The Qwen3 2507 tokenizer configs: eos "<|im_end|>", pad "<|endoftext|>", bos and unk null.
QWEN3_2507_TOKENS = {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}

# The DeepSeek V3/R1 family (and its distills: the same strings, other ids); no pad token sourced.
DEEPSEEK_TOKENS = {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>"}

# Control strings (``ChatFormat.control_strings``): each model"s tokenizer"s special and added
# tokens (``tokenizer_config.json`` ``added_tokens_decoder``), then the structural tags its template
# writes that are not tokens.  Where the model"s tokenizer could not be found, the template"s own
# control strings only, and the provenance says so.  Sources: ``reference_templates/README.md``,
# "Control strings".

# Llama 3.1 and 3.2 (text) Instruct: 128000-128255, the list of transformers'
# ``convert_llama_weights_to_hf.py`` (``DEFAULT_LLAMA_SPECIAL_TOKENS["3.1"]`` and ``["3.2"]``).
LLAMA3_1_CONTROL = (
    "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
    "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|reserved_special_token_2|>",
    "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>", "<|python_tag|>",
) + tuple(f"<|reserved_special_token_{i}|>" for i in range(3, 248))

# Llama 3.2 Vision Instruct: 128000-128255 as transformers' ``convert_mllama_weights_to_hf.py``
# builds them (``<|step_id|>`` where the text models reserve token 2), with ``<|image|>`` moved
# to 128256 and ``<|reserved_special_token_246|>`` at 128255, as the published tokenizer holds
# them.
LLAMA3_2_VISION_CONTROL = (
    "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
    "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|step_id|>",
    "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>", "<|python_tag|>",
) + tuple(f"<|reserved_special_token_{i}|>" for i in range(2, 247)) + ("<|image|>",)

# Qwen3 2507: the 26 added tokens 151643-151668 of the Qwen3-4B-Thinking-2507 tokenizer config,
# then the template's ``<tools>`` block tags.
QWEN3_2507_CONTROL = (
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
    "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
    "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>",
    "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
    "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>",
    "<tools>", "</tools>",
)
QWEN3_2507_PROVENANCE = (
    "tokenizer: the 26 added tokens of Qwen/Qwen3-4B-Thinking-2507's tokenizer_config.json (the "
    "Qwen3 2507 tokenizer); template: <tools>, </tools>"
)
