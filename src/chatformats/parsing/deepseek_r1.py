"""Reading back a ``deepseek-r1`` or ``deepseek-r1-2025-01`` assistant turn
(``ports/_deepseek_r1.py``; the grammar is ``_deepseek.py``'s, with a think block and a
section always closed).

What the template writes: ``<｜Assistant｜>`` + the content after its last ``</think>`` +
``<｜end▁of▁sentence｜>``; with tool calls, ``<｜Assistant｜>`` + the content + the section +
``<｜end▁of▁sentence｜>``; an answer after tool results follows ``<｜tool▁outputs▁end｜>`` with
no header (and no cut at ``</think>``).  The February template's generation prompt is
``<｜Assistant｜><think>\\n`` (the model's text up to ``</think>`` is reasoning), January's
``<｜Assistant｜>`` (the model writes its own ``<think>``).  The turn is read after the prefix's
last ``<｜Assistant｜>`` or ``<｜tool▁outputs▁end｜>``.
"""

from __future__ import annotations

from ._deepseek import ASSISTANT, OUTPUTS_END, build
from ._deepseek import SYNTAX as SYNTAX  # the calls' syntax (parsing.syntax)

NAME = "deepseek-r1"
ANCHOR = (ASSISTANT, OUTPUTS_END)
STATES, RECOVER, START = build(NAME, think=True, section_end=True)

# The grammar's facts beside its tables (``parsing/grammars.py`` says what each means).
RESERVED = ("<think>", "<｜tool▁sep｜>", "<｜Assistant｜>", "<｜tool▁outputs▁end｜>", "<｜User｜>", "<｜tool▁outputs▁begin｜>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>", "<｜begin▁of▁sentence｜>")
PREFIXES = ("", "<｜Assistant｜>", "<｜Assistant｜><think>\n", "<｜tool▁outputs▁end｜>")
STRING_ARGUMENTS = True
SINGLE_CALL = False
RECOVER_OPENERS = ()
CANONICAL = {"reasoning": "dropped"}
