"""What the two DeepSeek-R1 specs share (their templates differ only in the generation prompt):
the control strings, the conversations that run every branch and the generation edits.
"""

from __future__ import annotations

CONTROL = ("<｜begin▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>", "<｜tool▁calls▁begin｜>",
           "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>",
           "<｜end▁of▁sentence｜>", "<｜tool▁outputs▁end｜>", "<think>", "</think>",
           "<｜tool▁outputs▁begin｜>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>")
PROVENANCE = ("template only: the model's added-token list was not sourced; the bos token, then "
              "the template's control strings in order of first use (<think> from the February "
              "generation prompt, </think> from the split)")
VARIABLES = {"bos_token": ("<｜begin▁of▁sentence｜>",), "add_generation_prompt": "flag"}

_CALL = {"type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
_CALL_2 = {"type": "function", "function": {"name": "search", "arguments": '{"q": "x"}'}}

# Together these run every branch of the template: two system messages joined, a tool-call turn
# with content (two calls), tool results (the first opens the outputs), an answer after a tool
# result, a second tool-call turn without content (is_first never reset: it continues the
# first) and its output, a user turn after it, an answer with a '</think>' split, the closing
# '<｜tool▁outputs▁end｜>' and the generation prompt.
COVERING = (
    ([{"role": "system", "content": "S1"}, {"role": "user", "content": "q1"},
      {"role": "assistant", "content": "calling", "tool_calls": [_CALL, _CALL_2]},
      {"role": "tool", "content": "t1"}, {"role": "tool", "content": "t2"},
      {"role": "assistant", "content": "<think>r</think>done"},
      {"role": "system", "content": "S2"}, {"role": "user", "content": "q2"},
      {"role": "assistant", "content": None, "tool_calls": [_CALL]},
      {"role": "tool", "content": "t3"}, {"role": "user", "content": "q3"},
      {"role": "assistant", "content": "r</think>a</think>b"}, {"role": "user", "content": "q4"}],
     {"add_generation_prompt": True, "bos_token": "<｜begin▁of▁sentence｜>"}),
    ([{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": [_CALL]},
      {"role": "tool", "content": "t"}], {"add_generation_prompt": True}),
)

GENERATION = (
    # find: the tool-call turn's loop
    ("{%- set ns.is_tool = false -%}{%- for tool in message['tool_calls'] %}",
     # replace: its header (written by the first call unless a turn before set ns.is_first),
     # then the range
     "{%- set ns.is_tool = false -%}{%- if not ns.is_first and message['tool_calls'] %}"
     "{{'<｜Assistant｜>'}}{%- endif %}{%- generation %}{%- for tool in message['tool_calls'] %}"),
    # find: the first call without content
    ("{{'<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type']",
     "{{'<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type']"),
    # find: the first call after content: the line is evaluated whole first (a failure is
    # the original's), then written without its header ('<｜Assistant｜>', 13 characters)
    ("{{'<｜Assistant｜>' + message['content'] + '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + "
     "tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + "
     "tool['function']['arguments'] + '\\n' + '```' + '<｜tool▁call▁end｜>'}}",
     "{%- set line = '<｜Assistant｜>' + message['content'] + '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + "
     "tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + "
     "tool['function']['arguments'] + '\\n' + '```' + '<｜tool▁call▁end｜>' %}{{ line[13:] }}"),
    # find: the tool-call turn's end
    ("{{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}{%- endif %}",
     "{{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}{%- endgeneration %}{%- endif %}"),
    # find: an answer right after a tool result
    # (the line evaluated whole first, then written in two: '<｜tool▁outputs▁end｜>' is 20
    # characters)
    ("{{'<｜tool▁outputs▁end｜>' + message['content'] + '<｜end▁of▁sentence｜>'}}",
     "{%- set line = '<｜tool▁outputs▁end｜>' + message['content'] + '<｜end▁of▁sentence｜>' %}"
     "{{'<｜tool▁outputs▁end｜>'}}{%- generation %}{{ line[20:] }}{%- endgeneration %}"),
    # find: any other answer
    # (likewise: '<｜Assistant｜>' is 13 characters)
    ("{{'<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>'}}",
     "{%- set line = '<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>' %}"
     "{{'<｜Assistant｜>'}}{%- generation %}{{ line[13:] }}{%- endgeneration %}"),
)
