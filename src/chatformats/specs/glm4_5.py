"""The spec of format ``glm-4.5``: Z.ai GLM-4.5 (``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests

SPEC = Spec(
    name="glm-4.5",
    model_ids=("zai-org/GLM-4.5",),
    description="Z.ai GLM-4.5",
    template_file="glm4_5.jinja",
    template_sha256="44f815868bf02fa458dd2f741a338046f4bf45f398eb6d067766726b9d96cce3",
    # Not sourced: no copy of GLM-4.5's tokenizer_config.json or special_tokens_map.json was
    # found, and the template reads no special-token variable ([gMASK]<sop> is literal text).
    special_tokens={},
    control_strings=("<|endoftext|>", "[gMASK]", "<|user|>", "<|observation|>", "<sop>", "<|system|>",
                     "<|assistant|>", "<think>", "</think>", "<tool_call>", "</tool_call>", "<arg_key>",
                     "</arg_key>", "<arg_value>", "</arg_value>", "<tool_response>", "</tool_response>",
                     "<tools>", "</tools>", "/nothink"),
    control_provenance=("tokenizer: partly, <|endoftext|> 151329, [gMASK] 151331, <|user|> 151336, "
                        "<|observation|> 151338 (llama.cpp conversion/base.py _set_vocab_glm, commit "
                        "ae1a0b1c71a8b3a86ede8cb5892ed9ce967d00b2 of the Raudbjorn/ggml-llama.cpp fork, "
                        "comments give the ids), in id order; then, template only, the template's other "
                        "structural strings in order of first appearance (whether each is one token is not "
                        "confirmed; the full added-token list was not found)"),
    variables=("add_generation_prompt", "enable_thinking", "tools"),
    calls=frozenset(["namespace"]),
    content_format="openai",
    # A think block, content and <tool_call>NAME calls whose arguments are <arg_key>/<arg_value>
    # pairs: a described grammar with a call body of its own (parsing/_build.py's "glm").
    grammar="glm4_5",
    tests=Tests(
        parse_variables={"enable_thinking": (False, True)},
        variables={"tools": "tools", "add_generation_prompt": "flag", "enable_thinking": "flag"},
        # Together these run every line of the template: tools and the generation prompt with
        # thinking off, /nothink, a system message with list content, reasoning from the field
        # and from </think>, a turn before the last user message (its reasoning cleared), a
        # tool call with arguments, consecutive string tool results, a list tool result, and
        # content the macro renders with str().
        covering=(
            ([{"role": "system", "content": [{"type": "text", "text": "S"}, "s", {"type": "image"}]},
              {"role": "user", "content": "q"},
              {"role": "assistant", "content": "<think>r</think>a", "tool_calls": [
                  {"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"x": 1, "y": "s"}}}]},
              {"role": "tool", "content": "r1"}, {"role": "tool", "content": "r2"},
              {"role": "tool", "content": [{"output": "o"}, "p"]},
              {"role": "assistant", "content": "b", "reasoning_content": "why"}],
             {"add_generation_prompt": True, "enable_thinking": False,
              "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]}),
            ([{"role": "assistant", "content": None}, {"role": "user", "content": "x/nothink"}],
             {"enable_thinking": False}),
        ),
        generation=(
            # find
            ("{%- if loop.index0 > ns.last_user_index and reasoning_content -%}\n"
             "{{ '\\n<think>' + reasoning_content.strip() +  '</think>'}}\n"
             "{%- else -%}\n"
             "{{ '\\n<think></think>' }}\n"
             "{%- endif -%}\n",
             # replace
             "{%- if loop.index0 > ns.last_user_index and reasoning_content -%}\n"
             "{%- elif enable_thinking is defined and not enable_thinking -%}\n"
             "{{ '\\n<think></think>' }}\n"
             "{%- endif -%}\n"
             "{%- generation -%}\n"
             "{%- if loop.index0 > ns.last_user_index and reasoning_content -%}\n"
             "{{ '\\n<think>' + reasoning_content.strip() +  '</think>'}}\n"
             "{%- elif enable_thinking is defined and not enable_thinking -%}\n"
             "{%- else -%}\n"
             "{{ '\\n<think></think>' }}\n"
             "{%- endif -%}\n"),
            # find
            ("{% endif %}\n{%- elif m.role == 'tool' -%}",
             # replace
             "{% endif %}{%- endgeneration -%}\n{%- elif m.role == 'tool' -%}"),
        ),
    ),
)
