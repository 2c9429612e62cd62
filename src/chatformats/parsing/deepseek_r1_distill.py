"""Reading back a ``deepseek-r1-distill`` or ``deepseek-r1-distill-2025-01`` assistant turn
(``ports/_deepseek_r1_distill.py``; the grammar is ``_deepseek.py``'s, with a think block and a
section that may end without ``<｜tool▁calls▁end｜>``).

What the template writes: ``<｜Assistant｜>`` + the content after its last ``</think>`` +
``<｜end▁of▁sentence｜>``; tool calls only for a turn whose content is None (so not through
``apply_chat_template``, which drops None values): ``<｜Assistant｜><｜tool▁calls▁begin｜>`` +
the first call, then for each later call ``\\n`` + the call +
``<｜tool▁calls▁end｜><｜end▁of▁sentence｜>``.  A turn with one call ends after its
``<｜tool▁call▁end｜>``; one with three or more ends (at ``<｜end▁of▁sentence｜>``) after the
second.  An answer after tool results follows ``<｜tool▁outputs▁end｜>``.  The February
template's generation prompt ends with the ``<think>\\n`` prefill, January's does not.
"""

from __future__ import annotations

from ._deepseek import ASSISTANT, OUTPUTS_END, build
from ._deepseek import SYNTAX as SYNTAX  # the calls' syntax (parsing.syntax)

NAME = "deepseek-r1-distill"
ANCHOR = (ASSISTANT, OUTPUTS_END)
STATES, RECOVER, START = build(NAME, think=True, section_end=False)

# The grammar's facts beside its tables (``parsing/grammars.py`` says what each means).
RESERVED = ("<think>", "<｜tool▁sep｜>", "<｜Assistant｜>", "<｜tool▁outputs▁end｜>", "<｜User｜>", "<｜tool▁outputs▁begin｜>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>", "<｜begin▁of▁sentence｜>")
PREFIXES = ("", "<｜Assistant｜>", "<｜Assistant｜><think>\n", "<｜tool▁outputs▁end｜>")
STRING_ARGUMENTS = True
SINGLE_CALL = False
RECOVER_OPENERS = ()
CANONICAL = {"reasoning": "dropped", "calls": "if-content-none"}
