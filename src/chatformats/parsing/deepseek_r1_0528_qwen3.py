"""Reading back a ``deepseek-r1-0528-qwen3`` assistant turn (``ports/deepseek_r1_0528_qwen3.py``;
the grammar is ``_deepseek.py``'s, with a think block and a section always closed).

What the template writes: a user turn ends with ``<｜Assistant｜>`` (the generation prompt adds
nothing after it); the assistant turn is the content after its last ``</think>``, then the
section when it has tool calls, then ``<｜end▁of▁sentence｜>``.  After tool results the turn
begins with ``<｜tool▁outputs▁end｜>``; after another assistant turn it has no header at all.
So the turn is read after the prefix's last ``<｜Assistant｜>``, ``<｜tool▁outputs▁end｜>`` or
``<｜end▁of▁sentence｜>``.
"""

from __future__ import annotations

from ._deepseek import ASSISTANT, EOS, OUTPUTS_END, build
from ._deepseek import SYNTAX as SYNTAX  # the calls' syntax (parsing.syntax)

NAME = "deepseek-r1-0528-qwen3"
ANCHOR = (ASSISTANT, OUTPUTS_END, EOS)
STATES, RECOVER, START = build(NAME, think=True, section_end=True)

# The grammar's facts beside its tables (``parsing/grammars.py`` says what each means).
RESERVED = ("<think>", "<｜tool▁sep｜>", "<｜Assistant｜>", "<｜tool▁outputs▁end｜>", "<｜User｜>", "<｜tool▁outputs▁begin｜>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>", "<｜begin▁of▁sentence｜>")
PREFIXES = ("", "<｜Assistant｜>", "<｜tool▁outputs▁end｜>", "<｜end▁of▁sentence｜>")
STRING_ARGUMENTS = True
SINGLE_CALL = False
RECOVER_OPENERS = ()
CANONICAL = {"reasoning": "dropped"}
