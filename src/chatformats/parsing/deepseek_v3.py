"""Reading back a ``deepseek-v3`` assistant turn (``ports/deepseek_v3.py``; the grammar is
``_deepseek.py``'s, without a think block, with a section that may end without
``<｜tool▁calls▁end｜>``).

What the template writes: ``<｜Assistant｜>`` + the content, verbatim (no cut at ``</think>``:
a ``<think>`` in it is content) + ``<｜end▁of▁sentence｜>``; tool calls as the R1 distills'
template writes them (only for a turn whose content is None; the section closed only after a
second call).  An answer after tool results follows ``<｜tool▁outputs▁end｜>``.
"""

from __future__ import annotations

from ._deepseek import ASSISTANT, OUTPUTS_END, build
from ._deepseek import SYNTAX as SYNTAX  # the calls' syntax (parsing.syntax)

NAME = "deepseek-v3"
ANCHOR = (ASSISTANT, OUTPUTS_END)
STATES, RECOVER, START = build(NAME, think=False, section_end=False)

# The grammar's facts beside its tables (``parsing/grammars.py`` says what each means).
RESERVED = ("<｜tool▁sep｜>", "<｜Assistant｜>", "<｜tool▁outputs▁end｜>", "<｜User｜>", "<｜tool▁outputs▁begin｜>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>", "<｜begin▁of▁sentence｜>")
PREFIXES = ("", "<｜Assistant｜>", "<｜tool▁outputs▁end｜>")
STRING_ARGUMENTS = True
SINGLE_CALL = False
RECOVER_OPENERS = ()
CANONICAL = {"reasoning": "dropped", "calls": "if-content-none"}
