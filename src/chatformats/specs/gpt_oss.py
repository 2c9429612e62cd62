"""The spec of format ``gpt-oss``: OpenAI gpt-oss-20b and gpt-oss-120b, the Harmony format
(``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests

_BOTH = ('raise_exception("Cannot pass both content and thinking in an assistant message with tool '
         'calls! Put the analysis message in one or the other, but not both.") }}\n')

#: A tool whose parameters reach every branch of the TypeScript macros (L10-147).
_SCHEMA_TOOLS = [
    {"type": "function", "function": {"name": "f", "description": "Every type", "parameters": {
        "type": "object", "required": ["s1", "s11"], "properties": {
            "s1": {"type": "array", "items": {"type": "string"}, "nullable": True},
            "s2": {"type": "array", "items": {"type": "number"}},
            "s3": {"type": "array", "items": {"type": "integer"}},
            "s4": {"type": "array", "items": {"type": "boolean"}},
            "s5": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}},
            "s6": {"type": "array", "items": {"type": ["object", "object"]}},
            "s7": {"type": "array", "items": [], "nullable": True},
            "s8": {"type": ["string", "null"]},
            "s9": {"type": ["integer"]},
            "s10": {"oneOf": [{"type": "object", "description": "o", "default": {"k": 1}},
                              {"type": "string"}], "default": "d"},
            "s11": {"type": "string", "enum": ["a", "b"], "default": "a"},
            "s12": {"type": "string", "nullable": True, "description": "text"},
            "s13": {"type": "number", "default": 1.5},
            "s14": {"type": "integer"},
            "s15": {"type": "boolean"},
            "s16": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "boolean"}},
                    "required": ["x"]},
            "s17": {"type": "object"},
            "s18": {},
        }}}},
    {"type": "function", "function": {"name": "g", "description": "No parameters"}},
]


def _call(name: str, arguments: object, **extra: object) -> dict[str, object]:
    return {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments, **extra}}


SPEC = Spec(
    name="gpt-oss",
    model_ids=("openai/gpt-oss-20b", "openai/gpt-oss-120b"),
    description="OpenAI gpt-oss-20b and gpt-oss-120b (Harmony)",
    template_file="gpt_oss.jinja",
    template_sha256="a4c9919cbbd4acdd51ccffe22da049264b1b73e59055fa58811a99efbd7c8146",
    # huggingface/transformers, src/transformers/models/gpt_oss/convert_gpt_oss_weights_to_hf.py:
    # GptOssConverter builds the instruct tokenizer with these (eos is <|return|> when a chat
    # template is given); no copy of the published tokenizer_config.json was compared.
    special_tokens={"bos_token": "<|startoftext|>", "eos_token": "<|return|>", "pad_token": "<|endoftext|>"},
    control_strings=("<|startoftext|>", "<|endoftext|>", "<|reserved_200000|>", "<|reserved_200001|>",
                     "<|return|>", "<|constrain|>", "<|reserved_200004|>", "<|channel|>", "<|start|>",
                     "<|end|>", "<|message|>", "<|reserved_200009|>", "<|reserved_200010|>",
                     "<|reserved_200011|>", "<|call|>", "<|reserved_200013|>", "<|reserved_200014|>",
                     "<|reserved_200015|>", "<|reserved_200016|>", "<|reserved_200017|>", "<|endofprompt|>"),
    control_provenance=(
        "tokenizer: partly, the 21 special tokens 199998-200018 as transformers' gpt-oss converter "
        "(convert_gpt_oss_weights_to_hf.py) adds them: nine named (<|startoftext|> 199998, "
        "<|endoftext|> 199999, <|return|> 200002, <|constrain|> 200003, <|channel|> 200005, <|start|> "
        "200006, <|end|> 200007, <|message|> 200008, <|call|> 200012) plus <|endofprompt|> 200018 and "
        "<|reserved_N|> for the other ids; openai/harmony src/tiktoken_ext/public_encodings.rs (commit "
        "ec7606df9e87e3d0a1fec9f50928c1e407f0c438) agrees on the nine named ids and 200000-200013, but "
        "continues with <|reserved_200014|> ... <|reserved_201088|> and has no <|endofprompt|> at "
        "200018. The published tokenizer.json was not seen. Template-only: none; '<|final|>' occurs "
        "only inside a comment (prose, not a control string)."),
    prose_strings={"<|final|>": "named in a {#- #} comment (L275) about a later final message"},
    variables=("add_generation_prompt", "builtin_tools", "model_identity", "reasoning_effort", "tools"),
    calls=frozenset(["namespace", "raise_exception", "strftime_now"]),
    content_format="string",
    # Harmony messages: an analysis message, then a final message or one tool call on the
    # commentary channel (parsing/gpt_oss.py).
    grammar="gpt_oss",
    reasoning_field="thinking",
    tests=Tests(
        parse_variables={"reasoning_effort": ("low", "high"),
                         "builtin_tools": (["browser"], ["python", "browser"])},
        variables={
            "tools": "schema_tools",
            "add_generation_prompt": "flag",
            "builtin_tools": (["browser"], ["python"], ["browser", "python"], ["python", "browser", "x"], [],
                              "browser", ("python",)),
            "model_identity": ("You are a helpful assistant.", "", "I am gpt-oss.\n"),
            "reasoning_effort": ("low", "medium", "high", ""),
        },
        # Together these run every line of the template (L54's "any", which no input reaches, is
        # not a line of its own in jinja2's debug information: L53's test owns it; the port's
        # docstring says why it never runs): every TypeScript branch (the
        # schema tool), the browser and python tools, the default identity and effort, a system
        # message as the developer message, a tool-call turn's analysis from content and from
        # thinking (no final answer after them), one whose analysis is dropped (a final answer
        # follows), a content_type, tool results, a history answer (<|end|>), the last answer with
        # its thinking (<|return|>), the generation prompt, and each raise_exception.
        covering=(
            ([{"role": "system", "content": "S"},
              {"role": "user", "content": "q"},
              {"role": "assistant", "content": "c", "tool_calls": [_call("f", {"s1": ["x"]})]},
              {"role": "tool", "content": "r"},
              {"role": "assistant", "thinking": "t", "tool_calls": [_call("g", "{}", content_type="code")]},
              {"role": "tool", "content": {"ok": True}},
              {"role": "user", "content": "more"}],
             {"add_generation_prompt": True, "tools": _SCHEMA_TOOLS, "builtin_tools": ["browser", "python"]}),
            ([{"role": "developer", "content": "D"},
              {"role": "user", "content": "q"},
              {"role": "assistant", "content": "c", "tool_calls": [_call("g", {})]},
              {"role": "tool", "content": "r"},
              {"role": "assistant", "content": "a"},
              {"role": "user", "content": "q2"},
              {"role": "assistant", "thinking": "t", "content": "b"}],
             {"model_identity": "I", "reasoning_effort": "high", "tools": _SCHEMA_TOOLS[1:]}),
            ([{"role": "user", "content": "q"},
              {"role": "assistant", "content": "x<|channel|>final<|message|>y"}], {}),
            ([{"role": "user", "content": "q"},
              {"role": "assistant", "content": "", "thinking": "<|channel|>analysis<|message|>"}], {}),
            ([{"role": "user", "content": "q"},
              {"role": "assistant", "content": "c", "thinking": "t", "tool_calls": [_call("g", {})]}], {}),
            ([{"role": "user", "content": "q"}, {"role": "tool", "content": "r"}], {}),
        ),
        generation=(
            # The tool-call turn (L289-300): one range from after its first <|start|>assistant
            # (the analysis message's, or the call's) through <|call|>; the raise of L290 runs
            # first in either copy.
            ('            {%- if message.content and message.thinking %}\n'
             '                {{- ' + _BOTH +
             '            {%- elif message.content and not future_final_message.found %}\n'
             '                {{- "<|start|>assistant<|channel|>analysis<|message|>" + message.content + "<|end|>" }}\n'
             '            {%- elif message.thinking and not future_final_message.found %}\n'
             '                {{- "<|start|>assistant<|channel|>analysis<|message|>" + message.thinking + "<|end|>" }}\n'
             '            {%- endif %}\n'
             '            {{- "<|start|>assistant to=" }}\n',
             '            {{- "<|start|>assistant" }}{%- generation %}\n'
             '            {%- if message.content and message.thinking %}\n'
             '                {{- ' + _BOTH +
             '            {%- elif message.content and not future_final_message.found %}\n'
             '                {{- "<|channel|>analysis<|message|>" + message.content + "<|end|>" + "<|start|>assistant" }}\n'
             '            {%- elif message.thinking and not future_final_message.found %}\n'
             '                {{- "<|channel|>analysis<|message|>" + message.thinking + "<|end|>" + "<|start|>assistant" }}\n'
             '            {%- endif %}\n'
             '            {{- " to=" }}\n'),
            ('            {{- "<|call|>" }}\n',
             '            {{- "<|call|>" }}{%- endgeneration %}\n'),
            # The last answer (L305-311): its analysis message and the final one, one range.
            ('            {%- if "thinking" in message %}\n'
             '                {{- "<|start|>assistant<|channel|>analysis<|message|>" + message.thinking + "<|end|>" }}\n'
             '            {%- endif %}\n',
             '            {{- "<|start|>assistant" }}{%- generation %}\n'
             '            {%- if "thinking" in message %}\n'
             '                {{- "<|channel|>analysis<|message|>" + message.thinking + "<|end|>" + "<|start|>assistant" }}\n'
             '            {%- endif %}\n'),
            ('            {{- "<|start|>assistant<|channel|>final<|message|>" + message.content + "<|return|>" }}\n',
             '            {{- "<|channel|>final<|message|>" + message.content + "<|return|>" }}{%- endgeneration %}\n'),
            # A history answer (L314).
            ('            {{- "<|start|>assistant<|channel|>final<|message|>" + message.content + "<|end|>" }}\n',
             '            {{- "<|start|>assistant" }}{%- generation %}'
             '{{- "<|channel|>final<|message|>" + message.content + "<|end|>" }}{%- endgeneration %}\n'),
        ),
    ),
)
