"""The spec of format ``minicpm-v-4.6-thinking``: OpenBMB MiniCPM-V 4.6 Thinking
(``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests

# MiniCPM-V 4.6 (LLM: Qwen3.5-0.8B): the 33 added tokens 248044-248076 of the Qwen3.5 tokenizer,
# which MiniCPM-V 4.6"s keeps at the same ids; then the 7 tokens of MiniCPM-V 4.6"s own published
# tokenizer_config.json that the Qwen3.5 tokenizer lacks (ids above 248076, not known: in the
# file"s order); then the template"s tags that are not tokens.  Up to 10 further MiniCPM tokens
# (248077-248093) are not known.  Sources: ``reference_templates/README.md``, "Control strings".
QWEN3_5_ADDED = (
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
    "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
    "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>",
    "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
    "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>",
    "<|audio_start|>", "<|audio_end|>", "<tts_pad>", "<tts_text_bos>", "<tts_text_eod>",
    "<tts_text_bos_single>", "<|audio_pad|>",
)
MINICPM_V4_6_CONTROL = QWEN3_5_ADDED + (
    "<image>", "</image>", "<slice>", "</slice>", "<image_id>", "</image_id>", "<unk>",
    "<tools>", "</tools>", "<function=", "</function>", "<parameter=", "</parameter>",
    "<IMPORTANT>", "</IMPORTANT>",
)

SPEC = Spec(
    name="minicpm-v-4.6-thinking",
    # The Hub id is spelt with a dot ("Duplicate from openbmb/MiniCPM-V-4.6" on its mirrors,
    # "openbmb/MiniCPM-V-4.6-Thinking" on the quantised variants" cards); transformers" docs
    # write the underscore form.  The GPTQ quantisation's model page is the source document of
    # the template.
    model_ids=("openbmb/MiniCPM-V-4.6-Thinking",
         "openbmb/MiniCPM-V-4_6-Thinking",
         "openbmb/MiniCPM-V-4.6-Thinking-GPTQ"),
    description="OpenBMB MiniCPM-V 4.6 Thinking",
    template_file="minicpm_v4_6_thinking.jinja",
    template_sha256="19356d2fd1c60dc46c92f3b05a5e01a32cdd1ab10b68d649a0081e6bba7c8137",
    # Not established from this checkpoint"s tokenizer config: the 4.6 AWQ (Instruct) release"s
    # names bos <|im_start|>, eos <|im_end|>, pad <|endoftext|>, unk <unk>
    # (reference_templates/README.md, "Control strings"); the template reads none.
    special_tokens={},
    control_strings=MINICPM_V4_6_CONTROL,
    control_provenance=("tokenizer: partial: the 33 added tokens 248044-248076 of the Qwen3.5 tokenizer it "
         "keeps, and the 7 more its tokenizer_config.json names (<image>, </image>, <slice>, "
         "</slice>, <image_id>, </image_id>, <unk>); up to 10 more are not known; template: "
         "<tools>, </tools>, <function=, </function>, <parameter=, </parameter>, <IMPORTANT>, "
         "</IMPORTANT>"),
    variables=("add_generation_prompt", "enable_thinking", "tools"),
    calls=frozenset(["namespace", "raise_exception"]),
    content_format="string",
    # vllm/model_executor/models/minicpmv.py, MiniCPMVBaseModel.get_placeholder_str
    modalities={"image": "(<image>./</image>)", "video": "(<video>./</video>)"},
    grammar="minicpm_v4_6_thinking",
    tests=Tests(
        parse_variables={"enable_thinking": (False, True)},
        variables={"tools": "tools", "add_generation_prompt": "flag",
                   "enable_thinking": (True, False, None, 0, 1, 0.0, "", "false", "False", [], {})},
        # Together these run every line of the template: reasoning in a field and in <think>
        # tags before and after the last query, tool calls (flat and nested, with arguments) and
        # consecutive tool responses, the generation prompt; list contents of odd parts; tools
        # with and without a system message; the template's two raise_exception lines.
        covering=(
            ([{"role": "system", "content": " "}, {"role": "user", "content": [{"type": "text", "text": ""}]},
              {"role": "assistant", "content": "<think>\n\n</think>x", "reasoning_content": "["},
              {"role": "user", "content": "q"},
              {"role": "assistant", "tool_calls": [{"name": "get_weather", "arguments": {"query": None}}],
               "content": "c", "reasoning_content": ""},
              {"role": "tool", "content": "r"}], {"enable_thinking": {}}),
            ([{"role": "user", "content": "q"},
              {"role": "assistant", "tool_calls": [{"name": "get_weather"}, {"function": {
                  "name": "search", "arguments": {"query": True, "": "-p", "city": -18}}}],
               "content": "", "reasoning_content": "r"},
              {"role": "tool", "content": ""}, {"role": "tool", "content": '{"temp": 21}'},
              {"role": "assistant", "content": "", "reasoning_content": "r2"},
              {"role": "user", "content": "q2"}, {"role": "assistant", "content": "a"}], {"tools": "tool"}),
            ([{"role": "user", "content": ["an image", "video", "text", {"text": None}]}], {}),
            ([{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"},
              {"role": "assistant", "content": "<think>r</think>\n\nok"}], {"add_generation_prompt": True}),
            ([{"role": "user", "content": 3}], {}),
            ([{"role": "system", "content": "  "}, {"role": "user", "content": "q"}], {"tools": "ab"}),
            ([{"role": "system", "content": "S"}, {"role": "user", "content": "q"}], {"tools": [{"a": 1}]}),
            ([], {}),
            ([{"role": "tool", "content": "x"}], {}),
            ([{"role": "user", "content": ""}, 0], {}),
            ([{"role": "user", "content": ("plain",)}], {}),
            ([{"role": "user", "content": "q"}, {"role": "system", "content": "late"}], {}),
            ([{"role": "system", "content": [{"type": "image"}]}, {"role": "user", "content": "q"}], {}),
            ([{"role": "system", "content": ["video"]}, {"role": "user", "content": "q"}], {"tools": [{"a": 1}]}),
            ([{"role": "user", "content": "q"}, {"role": "bot", "content": "x"}], {}),
        ),
        generation=(
            # find
            ('{%- if loop.index0 > ns.last_query_index %}\n'
             "{{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content + '\\n</think>\\n\\n' + content }}\n"
             '{%- else %}\n'
             "{{- '<|im_start|>' + message.role + '\\n' + content }}\n"
             '{%- endif %}',
             # replace
             '{%- if loop.index0 > ns.last_query_index %}\n'
             '{%- if enable_thinking is defined and enable_thinking is false and not reasoning_content %}\n'
             "{{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content + '\\n</think>\\n\\n' }}\n"
             '{%- elif enable_thinking is defined and enable_thinking is false %}\n'
             "{{- '<|im_start|>' + message.role + '\\n' }}\n"
             '{%- else %}\n'
             "{{- '<|im_start|>' + message.role + '\\n<think>\\n' }}\n"
             '{%- endif %}\n'
             '{%- else %}\n'
             "{{- '<|im_start|>' + message.role + '\\n' }}\n"
             '{%- endif %}\n'
             '{%- generation %}\n'
             '{%- if loop.index0 > ns.last_query_index %}\n'
             '{%- if enable_thinking is defined and enable_thinking is false and not reasoning_content %}\n'
             '{{- content }}\n'
             '{%- elif enable_thinking is defined and enable_thinking is false %}\n'
             "{{- '<think>\\n' + reasoning_content + '\\n</think>\\n\\n' + content }}\n"
             '{%- else %}\n'
             "{{- reasoning_content + '\\n</think>\\n\\n' + content }}\n"
             '{%- endif %}\n'
             '{%- else %}\n'
             '{{- content }}\n'
             '{%- endif %}'),
            # find
            ("{{- '<|im_end|>\\n' }}\n"
             '{%- elif message.role == "tool" %}',
             # replace
             "{{- '<|im_end|>' }}{%- endgeneration %}{{- '\\n' }}\n"
             '{%- elif message.role == "tool" %}'),
        )
    ),
)
