"""The spec of format ``solar-open``: Upstage Solar Open 100B (``docs/adding-a-format.md``)."""

from __future__ import annotations

from .._spec import Spec, Tests

# Solar Open 100B: the published tokenizer's full added-token list was not found.  Sourced
# (``reference_templates/README.md``, "Control strings"): <|startoftext|>, <|endoftext|> and <unk>
# (llama.cpp"s converter reads their ids from the tokenizer"s added vocabulary; ids not known,
# first in bos, eos, unk order); the ids 20-25 and 30-34 Upstage's vLLM fork pins, in id order
# (<|flush|>, 24, is the end-of-turn token; the template never writes it); then the template's
# other <|...|> strings (whether each is a single token is not confirmed).
SOLAR_OPEN_CONTROL = (
    "<|startoftext|>", "<|endoftext|>", "<unk>",
    "<|begin|>", "<|end|>", "<|think|>", "<|content|>", "<|flush|>", "<|calls|>",
    "<|tool_calls|>", "<|tool_call:begin|>", "<|tool_call:end|>", "<|tool_call:name|>",
    "<|tool_call:args|>",
    "<|tools:begin|>", "<|tools:end|>", "<|tool:begin|>", "<|tool:end|>",
    "<|tool_response|>", "<|tool_response:begin|>", "<|tool_response:end|>",
    "<|tool_response:id|>", "<|tool_response:name|>", "<|tool_response:result|>",
)

SPEC = Spec(
    name="solar-open",
    model_ids=("upstage/Solar-Open-100B",),
    description="Upstage Solar Open 100B",
    template_file="solar_open.jinja",
    template_sha256="e7a5ad7d23b2a9cac020db4582dd076cc400007ae7daecb08f30ca1cb53f9dd0",
    # Not established from the model"s tokenizer config (llama.cpp"s converter takes bos
    # <|startoftext|>, eos <|endoftext|> and unk <unk> from the tokenizer's added vocabulary,
    # Upstage"s vLLM fork calls <|flush|> the eos token; the config"s own bos_token/eos_token
    # were not seen); the template reads none.
    special_tokens={},
    control_strings=SOLAR_OPEN_CONTROL,
    control_provenance=("tokenizer: partial, the full added-token list was not found: <|startoftext|>, "
         "<|endoftext|>, <unk> (added tokens llama.cpp's converter reads), the tokens 20-25 "
         "and 30-34 Upstage's vLLM fork pins (<|begin|> ... <|flush|>, <|calls|>, "
         "<|tool_calls|> ... <|tool_call:args|>); template: its other <|...|> strings"),
    prose_strings={"<results>": "the system block's description of a tool response "
                                "(<|tool_response:result|><results><|tool_response:end|>) uses it "
                                "as a placeholder for the result"},
    variables=("add_generation_prompt",
         "default_system_prompt",
         "reasoning_effort",
         "response_format",
         "think_render_option",
         "tools"),
    calls=frozenset(["namespace", "strftime_now"]),
    content_format="string",
    grammar="solar_open",
    reasoning_field="reasoning",
    tests=Tests(
        parse_variables={"think_render_option": ("all", "lastthink", "none"),
                         "reasoning_effort": ("high", "medium")},
        variables={"add_generation_prompt": "flag", "default_system_prompt": "flag",
                   "reasoning_effort": ("low", "minimal", "medium", "high", "LOW", "low ", ["low"]),
                   "think_render_option": ("all", "lastthink", "none", "ALL", "", ["all"]),
                   "tools": "tools",
                   "response_format": ({"type": "json_schema", "json_schema": {
                       "name": "answer", "schema": {"type": "object", "properties": {
                           "answer": {"type": "string"}}}}}, '{"type": "object"}')},
        # Together these run every line of the template: system messages first and later, a
        # tool round and its response, the default system prompt; tools, a response format;
        # reasoning shown with think_render_option "all"; a reasoning that is not a string; a
        # tool response whose call comes later, and one without content.
        covering=(
            ([{"role": "system", "content": "S"}, {"role": "user", "content": "q"},
              {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", "function": {
                  "name": "search", "arguments": {"query": True}}}]},
              {"role": "tool", "tool_call_id": "call_1", "content": "r"},
              {"role": "system", "content": "late"}, {"role": "user", "content": ""},
              {"role": "system", "content": "later"}, {"role": "user", "content": ""},
              {"role": "assistant", "content": ""}], {}),
            ([], {"tools": [{"function": None}], "response_format": {"a": None}}),
            ([{"role": "assistant", "reasoning": "r0", "content": "a"}, {"role": "user", "content": "u"},
              {"role": "assistant", "reasoning": "r1", "content": "b"}], {"think_render_option": "all"}),
            ([{"role": "assistant", "reasoning": ["r"], "content": "x"}], {}),
            ([{"role": "assistant", "tool_calls": [{"id": "y", "function": {"name": "f"}}]},
              {"role": "tool", "tool_call_id": "x", "content": None}, {"role": "tool", "tool_call_id": "y"}], {}),
        ),
        generation=(
            # find
            (" {%- elif message.role == 'assistant' -%}\n"
             ' {#- ======== Assistant Thinking ======== #}\n'
             ' {%- if think_render_option == "all" -%}\n'
             ' {%- if message.reasoning -%}\n'
             ' {{- "<|begin|>assistant<|think|>" + message.reasoning + "<|end|>" }}\n'
             ' {%- endif -%}\n'
             ' {%- elif think_render_option == "lastthink" -%}\n'
             ' {%- if message.reasoning and loop.index0 > last_user_idx.value -%}\n'
             ' {{- "<|begin|>assistant<|think|>" + message.reasoning + "<|end|>" }}\n'
             ' {%- endif -%}\n'
             ' {%- endif -%}\n'
             '\n'
             ' {#- ======== Assistant Messages ======== #}\n'
             ' {%- if message.tool_calls -%}\n'
             ' {{- "<|begin|>assistant<|tool_calls|>" }}\n'
             ' {%- for tool_call in message.tool_calls -%}\n'
             ' {{- "<|tool_call:begin|>" + tool_call.id +"<|tool_call:name|>" + tool_call.function.name + "<|tool_call:args|>" }}\n'
             ' {{- render_tool_arguments(tool_call.function.arguments) }}\n'
             ' {{- "<|tool_call:end|>" }}\n'
             ' {%- endfor -%}\n'
             ' {{- "<|calls|>" }}\n'
             ' {%- else -%}\n'
             ' {{- "<|begin|>assistant<|content|>" + message.content + "<|end|>" }}\n'
             ' {%- endif -%}',
             # replace
             " {%- elif message.role == 'assistant' -%}\n"
             ' {{- "<|begin|>assistant" }}{%- generation %}\n'
             ' {#- ======== Assistant Thinking ======== #}\n'
             ' {%- if think_render_option == "all" -%}\n'
             ' {%- if message.reasoning -%}\n'
             ' {{- "<|think|>" + message.reasoning + "<|end|>" }}{{- "<|begin|>assistant" }}\n'
             ' {%- endif -%}\n'
             ' {%- elif think_render_option == "lastthink" -%}\n'
             ' {%- if message.reasoning and loop.index0 > last_user_idx.value -%}\n'
             ' {{- "<|think|>" + message.reasoning + "<|end|>" }}{{- "<|begin|>assistant" }}\n'
             ' {%- endif -%}\n'
             ' {%- endif -%}\n'
             '\n'
             ' {#- ======== Assistant Messages ======== #}\n'
             ' {%- if message.tool_calls -%}\n'
             ' {{- "<|tool_calls|>" }}\n'
             ' {%- for tool_call in message.tool_calls -%}\n'
             ' {{- "<|tool_call:begin|>" + tool_call.id +"<|tool_call:name|>" + tool_call.function.name + "<|tool_call:args|>" }}\n'
             ' {{- render_tool_arguments(tool_call.function.arguments) }}\n'
             ' {{- "<|tool_call:end|>" }}\n'
             ' {%- endfor -%}\n'
             ' {{- "<|calls|>" }}\n'
             ' {%- else -%}\n'
             ' {{- "<|content|>" + message.content + "<|end|>" }}\n'
             ' {%- endif -%}{%- endgeneration %}'),
        )
    ),
)
