"""The spec of format ``deepseek-r1-0528-qwen3``: DeepSeek-R1-0528-Qwen3-8B
(``docs/adding-a-format.md``).
"""

from __future__ import annotations

from .._spec import Spec, Tests
from ._vocab import DEEPSEEK_TOKENS

_CALL = {"type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
_CALL_2 = {"type": "function", "function": {"name": "search", "arguments": '{"q": "x"}'}}

SPEC = Spec(
    name="deepseek-r1-0528-qwen3",
    model_ids=("deepseek-ai/DeepSeek-R1-0528-Qwen3-8B",),
    description="DeepSeek-R1-0528-Qwen3-8B (<｜Assistant｜> written after each user turn)",
    template_file="deepseek_r1_0528_qwen3.jinja",
    template_sha256="53671bac29bcb3e1f95f51b8c77d85a6011b66dc38bd23dce64eef04384a976b",
    special_tokens=DEEPSEEK_TOKENS,
    control_strings=("<｜begin▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>", "</think>",
                     "<｜tool▁outputs▁end｜>", "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>",
                     "<｜tool▁sep｜>", "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>",
                     "<｜end▁of▁sentence｜>", "<｜tool▁outputs▁begin｜>", "<｜tool▁output▁begin｜>",
                     "<｜tool▁output▁end｜>"),
    control_provenance=("template only: the model's added-token list was not sourced; the bos "
                        "token, then the template's control strings in order of first use"),
    variables=("add_generation_prompt", "bos_token"),
    calls=frozenset(["namespace"]),
    content_format="string",
    # DeepSeek's tool-call section: the family's grammar (parsing/_deepseek.py, parsing/deepseek_r1_0528_qwen3.py).
    grammar="deepseek_r1_0528_qwen3",
    call_arguments="string",  # the template concatenates them
    tests=Tests(
        variables={"bos_token": ("<｜begin▁of▁sentence｜>",), "add_generation_prompt": "flag"},
        # Together these run every reachable line and branch: two system messages joined, a
        # tool-call turn after content (two calls), tool results (the second joined with a
        # newline), a tool-call turn after a tool result (it closes the outputs), an answer
        # after a tool result and one with a '</think>' split, the closing
        # '<｜tool▁outputs▁end｜>' and the generation prompt after an answer.
        covering=(
            ([{"role": "system", "content": "S1"}, {"role": "user", "content": "q1"},
              {"role": "assistant", "content": "calling", "tool_calls": [_CALL, _CALL_2]},
              {"role": "tool", "content": "t1"}, {"role": "tool", "content": "t2"},
              {"role": "assistant", "content": "", "tool_calls": [_CALL]},
              {"role": "tool", "content": "t3"},
              {"role": "assistant", "content": "<think>r</think>done"},
              {"role": "system", "content": "S2"}, {"role": "user", "content": "q2"},
              {"role": "assistant", "content": "r</think>a</think>b"}],
             {"add_generation_prompt": True, "bos_token": "<｜begin▁of▁sentence｜>"}),
            ([{"role": "user", "content": "q"}, {"role": "assistant", "content": "", "tool_calls": [_CALL]},
              {"role": "tool", "content": "t"}], {"add_generation_prompt": True}),
        ),
        unreachable={
            6: "the first call of a turn whose content is None (L3-6, the expression the "
               "oracle's line map puts on its last line): every assistant content is tested "
               "with '</think>' in content first (L3), which fails for None",
        },
        generation=(
            # find: a tool-call turn, after the outputs it closes
            ("{%- if ns.is_tool %}{{'<｜tool▁outputs▁end｜>'}}{%- endif %}{%- set ns.is_first = false %}",
             "{%- if ns.is_tool %}{{'<｜tool▁outputs▁end｜>'}}{%- endif %}{%- generation %}"
             "{%- set ns.is_first = false %}"),
            # find: its end
            ("{{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}{%- endif %}",
             "{{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}{%- endgeneration %}{%- endif %}"),
            # find: an answer (after a tool result: the line evaluated whole first, so a failure
            # is the original's, then written in two: '<｜tool▁outputs▁end｜>' is 20 characters)
            ("{%- if ns.is_tool %}{{'<｜tool▁outputs▁end｜>' + content + '<｜end▁of▁sentence｜>'}}"
             "{%- set ns.is_tool = false -%}{%- else %}{{content + '<｜end▁of▁sentence｜>'}}{%- endif %}",
             "{%- if ns.is_tool %}{%- set line = '<｜tool▁outputs▁end｜>' + content + '<｜end▁of▁sentence｜>' %}"
             "{{'<｜tool▁outputs▁end｜>'}}{%- generation %}{{ line[20:] }}{%- endgeneration %}"
             "{%- set ns.is_tool = false -%}{%- else %}{%- generation %}{{content + '<｜end▁of▁sentence｜>'}}"
             "{%- endgeneration %}{%- endif %}"),
        ),
    ),
)
