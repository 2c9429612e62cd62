"""The spec of format ``deepseek-v3``: DeepSeek-V3 (``docs/adding-a-format.md``).

Effectively single-source: of its two agreeing copies only one names a repository
(``reference_templates/README.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._deepseek_r1_distill import GENERATION as _DISTILL_GENERATION
from ._vocab import DEEPSEEK_TOKENS

_CALL = {"type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
_CALL_2 = {"type": "function", "function": {"name": "search", "arguments": '{"q": "x"}'}}

SPEC = Spec(
    name="deepseek-v3",
    model_ids=("deepseek-ai/DeepSeek-V3",),
    description="DeepSeek-V3 (single-source: one of its two copies names no repository)",
    template_file="deepseek_v3.jinja",
    template_sha256="3b8267e54b67df6500f231ffa969955cc9d26b3444a291ced4eb96ca7d3ca1ea",
    # pad as a deployment config gives it (the model's tokenizer_config.json was not sourced)
    special_tokens={**DEEPSEEK_TOKENS, "pad_token": "<｜end▁of▁sentence｜>"},
    control_strings=("<｜begin▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>", "<｜tool▁calls▁begin｜>",
                     "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>",
                     "<｜tool▁calls▁end｜>", "<｜end▁of▁sentence｜>", "<｜tool▁outputs▁end｜>",
                     "<｜tool▁outputs▁begin｜>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"),
    control_provenance=("template only: the model's added-token list was not sourced; the bos "
                        "token, then the template's control strings in order of first use"),
    variables=("add_generation_prompt", "bos_token"),
    calls=frozenset(["namespace"]),
    content_format="string",
    # DeepSeek's tool-call section: the family's grammar (parsing/_deepseek.py, parsing/deepseek_v3.py).
    grammar="deepseek_v3",
    call_arguments="string",  # the template concatenates them
    tests=Tests(
        variables={"bos_token": ("<｜begin▁of▁sentence｜>",), "add_generation_prompt": "flag"},
        # Together these run every line and branch: two system messages joined, a tool-call
        # turn (content None, two calls: the second closes the list), tool results (the first
        # opens the outputs, the second joined with a newline), an answer after a tool result,
        # a turn with content '' and tool calls (dropped), a second tool-call turn (it
        # continues the first), an answer, the closing '<｜tool▁outputs▁end｜>' and the
        # generation prompt.
        covering=(
            ([{"role": "system", "content": "S1"}, {"role": "user", "content": "q1"},
              {"role": "assistant", "content": None, "tool_calls": [_CALL, _CALL_2]},
              {"role": "tool", "content": "t1"}, {"role": "tool", "content": "t2"},
              {"role": "assistant", "content": "<think>r</think>done"},
              {"role": "system", "content": "S2"}, {"role": "user", "content": "q2"},
              {"role": "assistant", "content": "", "tool_calls": [_CALL]},
              {"role": "user", "content": "q3"},
              {"role": "assistant", "content": None, "tool_calls": [_CALL]},
              {"role": "tool", "content": "t3"}, {"role": "user", "content": "q4"}],
             {"add_generation_prompt": True, "bos_token": "<｜begin▁of▁sentence｜>"}),
            ([{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": [_CALL]},
              {"role": "tool", "content": "t"}], {"add_generation_prompt": True}),
        ),
        # The distill's edits (the same tags and expressions) but for the answer's line, which
        # has no '</think>' split here.
        generation=_DISTILL_GENERATION[:4] + (
            # find: any other answer (the line evaluated whole first, so a failure is the
            # original's; '<｜Assistant｜>' is 13 characters)
            ("{{'<｜Assistant｜>' + message['content'] + '<｜end▁of▁sentence｜>'}}",
             "{%- set line = '<｜Assistant｜>' + message['content'] + '<｜end▁of▁sentence｜>' %}"
             "{{'<｜Assistant｜>'}}{%- generation %}{{ line[13:] }}{%- endgeneration %}"),
        ),
    ),
)
