"""What the two DeepSeek-R1-Distill specs share (their templates differ only in the generation
prompt): the control strings, the conversations that run every branch and the generation edits.
"""

from __future__ import annotations

from ._deepseek_r1 import CONTROL, PROVENANCE, VARIABLES

__all__ = ["CONTROL", "PROVENANCE", "VARIABLES", "COVERING", "GENERATION"]

_CALL = {"type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
_CALL_2 = {"type": "function", "function": {"name": "search", "arguments": '{"q": "x"}'}}

# Together these run every branch of the template: two system messages (the last kept), a
# tool-call turn (content None, two calls: the second closes the list), tool results (the first
# opens the outputs, the second joined with a newline), an answer after a tool result, a turn
# with content '' and tool calls (the calls dropped), a second tool-call turn (is_first never
# reset: it continues the first), an answer with a '</think>' split, the closing
# '<｜tool▁outputs▁end｜>' and the generation prompt.
COVERING = (
    ([{"role": "system", "content": "S1"}, {"role": "user", "content": "q1"},
      {"role": "assistant", "content": None, "tool_calls": [_CALL, _CALL_2]},
      {"role": "tool", "content": "t1"}, {"role": "tool", "content": "t2"},
      {"role": "assistant", "content": "<think>r</think>done"},
      {"role": "system", "content": "S2"}, {"role": "user", "content": "q2"},
      {"role": "assistant", "content": "", "tool_calls": [_CALL]},
      {"role": "user", "content": "q3"},
      {"role": "assistant", "content": None, "tool_calls": [_CALL]},
      {"role": "tool", "content": "t3"}, {"role": "user", "content": "q4"},
      {"role": "assistant", "content": "r</think>a</think>b"}, {"role": "user", "content": "q5"}],
     {"add_generation_prompt": True, "bos_token": "<｜begin▁of▁sentence｜>"}),
    ([{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": [_CALL]},
      {"role": "tool", "content": "t"}], {"add_generation_prompt": True}),
)

GENERATION = (
    # find: the tool-call turn's loop
    ("{%- set ns.is_tool = false -%}{%- for tool in message['tool_calls']%}",
     # replace: its header (written by the first call unless a turn before set ns.is_first),
     # then the range
     "{%- set ns.is_tool = false -%}{%- if not ns.is_first and message['tool_calls'] %}"
     "{{'<｜Assistant｜>'}}{%- endif %}{%- generation %}{%- for tool in message['tool_calls']%}"),
    # find: the first call (its header written above)
    ("{{'<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type']",
     "{{'<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type']"),
    # find: the tool-call turn's end, after its last call (a single call is never closed)
    ("{%- endfor %}{%- endif %}{%- if message['role'] == 'assistant' and message['content'] is not none %}",
     "{%- endfor %}{%- endgeneration %}{%- endif %}"
     "{%- if message['role'] == 'assistant' and message['content'] is not none %}"),
    # find: an answer right after a tool result (the line evaluated whole first, so a failure
    # is the original's, then written in two: '<｜tool▁outputs▁end｜>' is 20 characters)
    ("{{'<｜tool▁outputs▁end｜>' + message['content'] + '<｜end▁of▁sentence｜>'}}",
     "{%- set line = '<｜tool▁outputs▁end｜>' + message['content'] + '<｜end▁of▁sentence｜>' %}"
     "{{'<｜tool▁outputs▁end｜>'}}{%- generation %}{{ line[20:] }}{%- endgeneration %}"),
    # find: any other answer (likewise: '<｜Assistant｜>' is 13 characters)
    ("{{'<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>'}}",
     "{%- set line = '<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>' %}"
     "{{'<｜Assistant｜>'}}{%- generation %}{{ line[13:] }}{%- endgeneration %}"),
)
