"""The spec of format ``deepseek-v3.1``: DeepSeek-V3.1, thinking and non-thinking modes
(``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._vocab import DEEPSEEK_TOKENS

_CALL = {"type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
_CALL_2 = {"type": "function", "function": {"name": "search", "arguments": '{"q": "x"}'}}

SPEC = Spec(
    name="deepseek-v3.1",
    model_ids=("deepseek-ai/DeepSeek-V3.1",),
    description="DeepSeek-V3.1 (thinking and non-thinking modes, through `thinking`)",
    template_file="deepseek_v3_1.jinja",
    template_sha256="45690185067ea25c073bff2d3e425a45ee2564d2bbf6cdf7d885e139d460b8e0",
    special_tokens=DEEPSEEK_TOKENS,
    control_strings=("<｜begin▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>", "</think>",
                     "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>",
                     "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>", "<｜end▁of▁sentence｜>",
                     "<think>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"),
    control_provenance=("template only: the model's added-token list was not sourced; the bos "
                        "token, then the template's control strings in order of first use"),
    variables=("add_generation_prompt", "bos_token", "thinking"),
    calls=frozenset(["namespace"]),
    content_format="string",
    # DeepSeek's tool-call tokens: a grammar of its own (parsing/deepseek_v3_1.py).
    grammar="deepseek_v3_1",
    call_arguments="string",  # the template concatenates them
    tests=Tests(
        variables={"bos_token": ("<｜begin▁of▁sentence｜>",), "thinking": "flag",
                   "add_generation_prompt": "flag"},
        # Together these run every branch of the template: two system messages joined, a tool
        # call turn after a user turn (with content, two calls) and one without content after
        # a tool result, tool results, an answer after a tool result (no header), an answer
        # with a '</think>' split, a prefix turn under thinking, an assistant turn after
        # another, the generation prompt in both modes.
        covering=(
            ([{"role": "system", "content": "S1"}, {"role": "user", "content": "q1"},
              {"role": "assistant", "content": "calling", "tool_calls": [_CALL, _CALL_2]},
              {"role": "tool", "content": "t1"},
              {"role": "assistant", "content": None, "tool_calls": [_CALL]},
              {"role": "tool", "content": "t2"}, {"role": "assistant", "content": "<think>r</think>done"},
              {"role": "system", "content": "S2"}, {"role": "user", "content": "q2"},
              {"role": "assistant", "content": "r</think>a</think>b"},
              {"role": "assistant", "content": "more"}, {"role": "user", "content": "q3"}],
             {"add_generation_prompt": True, "bos_token": "<｜begin▁of▁sentence｜>"}),
            ([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a", "prefix": True},
              {"role": "user", "content": "q2"}],
             {"add_generation_prompt": True, "thinking": True}),
        ),
        generation=(
            # find: the tool-call turn's header
            ("{%- if ns.is_last_user %}{{'<｜Assistant｜></think>'}}{%- endif %}",
             # replace: the header (under thinking, '</think>' is generated), then the range
             "{%- if ns.is_last_user %}{%- if thinking %}{{'<｜Assistant｜>'}}{%- else %}"
             "{{'<｜Assistant｜></think>'}}{%- endif %}{%- endif %}{%- generation %}"
             "{%- if ns.is_last_user %}{%- if thinking %}{{'</think>'}}{%- endif %}{%- endif %}"),
            # find: the tool-call turn's end
            ("{{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}{%- endif %}",
             "{{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}{%- endgeneration %}{%- endif %}"),
            # find: the answer turn's header
            ("{%- if ns.is_last_user %}{{'<｜Assistant｜>'}}{%- if message['prefix'] is defined and "
             "message['prefix'] and thinking %}{{'<think>'}}  {%- else %}{{'</think>'}}{%- endif %}"
             "{%- endif %}",
             # replace: under thinking, a '</think>' turn's range opens after '<｜Assistant｜>'
             "{%- if ns.is_last_user %}{{'<｜Assistant｜>'}}{%- if message['prefix'] is defined and "
             "message['prefix'] and thinking %}{{'<think>'}}  {%- else %}{%- if not thinking %}"
             "{{'</think>'}}{%- endif %}{%- endif %}{%- endif %}{%- generation %}"
             "{%- if ns.is_last_user %}{%- if message['prefix'] is defined and message['prefix'] "
             "and thinking %}{%- else %}{%- if thinking %}{{'</think>'}}{%- endif %}{%- endif %}"
             "{%- endif %}"),
            # find: the answer turn's end
            ("{{content + '<｜end▁of▁sentence｜>'}}{%- endif %}{%- endif %}",
             "{{content + '<｜end▁of▁sentence｜>'}}{%- endif %}{%- endgeneration %}{%- endif %}"),
        ),
    ),
)
