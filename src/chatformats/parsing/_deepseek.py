"""What the parsers of the DeepSeek R1/V3 family share: the tokens, the tool-call body, and the
two scanner tables (exact and recovering) built from the few facts that tell the formats apart.

Every template of the family (``ports/_deepseek_r1.py``, ``ports/_deepseek_r1_distill.py``,
``ports/deepseek_v3.py``, ``ports/deepseek_r1_0528_qwen3.py``) writes an assistant turn as: the
content, then a tool-call section ``<｜tool▁calls▁begin｜>`` + the calls separated by ``\\n`` +
``<｜tool▁calls▁end｜>``, then ``<｜end▁of▁sentence｜>``.  Each call is::

    <｜tool▁call▁begin｜>TYPE<｜tool▁sep｜>NAME\\n```json\\nARGS\\n```<｜tool▁call▁end｜>

with ``TYPE``, ``NAME`` and ``ARGS`` concatenated as given (the templates take only string
arguments, so they read back as that string).  What tells the formats apart:

- ``think``: whether a think block may open the turn (R1, the R1 distills and R1-0528-Qwen3:
  their templates cut an answer at its last ``</think>``, and the model writes its reasoning
  first; the February templates' generation prompt ends with the ``<think>\\n`` prefill).
  DeepSeek-V3 has none: a ``<think>`` in its content is content.
- ``section_end``: whether the section always closes with ``<｜tool▁calls▁end｜>`` (R1 and
  R1-0528-Qwen3).  The distill and V3 templates write it only after the second and later calls
  (``<｜tool▁calls▁end｜><｜end▁of▁sentence｜>`` after each), so a turn with one call ends
  after its ``<｜tool▁call▁end｜>``: the section may end at ``<｜end▁of▁sentence｜>`` or at the
  end of the completion.

The reasoning is the text between ``<think>`` and ``</think>`` less the newlines at both ends
(the block the model writes is ``<think>\\n...\\n</think>``); the content is verbatim, as the
templates write it (``content.split('</think>')[-1]``: what follows ``</think>``, newlines
included).

The recovering reading follows vLLM (``vllm/frontend/processing/reasoning/``
``deepseek_r1_reasoning_parser.py`` @ ``761f197`` and ``basic_parsers.py`` @ ``055e47c``,
``vllm/frontend/processing/tool_parsers/deepseekv3_tool_parser.py`` @ ``055e47c``; formerly
``vllm/reasoning/`` and ``vllm/tool_parsers/``):
a generated ``<think>`` is dropped (whitespace before it too, and a second one after the
prefill); text before a ``</think>`` that no ``<think>`` opened is reasoning (``partition``:
"models that may not generate the start token"); a think block left open at the end of the
turn is reasoning.  Calls are what ``tool_call_regex`` matches; where vLLM drops text (before
``<｜tool▁calls▁begin｜>`` it keeps, between and after the calls it drops, a call its regex does
not match it skips) the text is content here, a bad call with its tokens; the section inside
unclosed reasoning ends the reasoning (as for DeepSeek-V3.1); a section or call left open ends
at the end of the turn.
"""

from __future__ import annotations

from typing import Any

from ..errors import ParseError
from . import _json, _recover
from ._scan import IGNORE, Outcome, State, excerpt

ASSISTANT = "<｜Assistant｜>"
OUTPUTS_END = "<｜tool▁outputs▁end｜>"
EOS = "<｜end▁of▁sentence｜>"
THINK, THINK_END = "<think>", "</think>"
CALLS = "<｜tool▁calls▁begin｜>"
CALLS_END = "<｜tool▁calls▁end｜>"
CALL = "<｜tool▁call▁begin｜>"
SEP = "<｜tool▁sep｜>"
CALL_END = "<｜tool▁call▁end｜>"
#: What the templates write around the arguments: ``NAME + '\n' + '```json' + '\n' + ARGS +
#: '\n' + '```'``.
FENCE_OPEN = "\n```json\n"
FENCE_CLOSE = "\n```"
#: What a call reads as syntax beside the markers (parsing.syntax): its tags, ``function``
#: before ``<｜tool▁sep｜>``, the fences and the arguments' JSON.
SYNTAX = (CALL, SEP, CALL_END, "function", "```json", "```") + _json.SYNTAX


def verbatim(raw: str, marker: str) -> str:
    return raw


def reasoning(raw: str, marker: str) -> str:
    """The think block's text less the newlines that belong to its delimiters."""
    return raw.strip("\n")


def read_call(raw: str) -> dict[str, Any] | None:
    """``TYPE<｜tool▁sep｜>NAME\\n```json\\nARGS\\n```` as a call (``TYPE`` must be
    ``function``: every call returned has that type), or None where the text is not of that
    shape.  ``NAME`` is the first line after the separator (the templates write it unescaped:
    a name holding a newline cannot be read back), ``ARGS`` everything between the fences."""
    at = raw.find(SEP)
    if at < 0 or raw[:at] != "function":
        return None
    rest = raw[at + len(SEP):]
    nl = rest.find("\n")
    if nl < 0 or not rest.startswith(FENCE_OPEN, nl) or not rest.endswith(FENCE_CLOSE):
        return None
    if len(rest) < nl + len(FENCE_OPEN) + len(FENCE_CLOSE):
        return None  # the closing fence overlaps the opening one
    args = rest[nl + len(FENCE_OPEN):len(rest) - len(FENCE_CLOSE)]
    return {"type": "function", "function": {"name": rest[:nl], "arguments": args}}


def build(name: str, *, think: bool, section_end: bool) -> tuple[dict[str, State], dict[str, State], str]:
    """``(STATES, RECOVER, START)`` of a grammar of the family (see the module docstring):
    ``name`` for its messages, ``think`` whether a think block may open the turn,
    ``section_end`` whether the template always closes the tool-call section."""
    shape = f"function{SEP}NAME{FENCE_OPEN}ARGS{FENCE_CLOSE}{CALL_END}"

    def call(raw: str, marker: str) -> Any:
        value = read_call(raw) if marker == CALL_END else None
        if value is None:
            raise ParseError(f"{name}: malformed tool call, expected {CALL}{shape!r}; "
                             f"got {excerpt(raw)}")
        return value

    def recover_call(raw: str, marker: str) -> Any:
        value = read_call(raw)
        if value is None:
            end = marker if marker == CALL_END else ""
            return Outcome([("content", CALL + raw + end)],
                           [("bad-call", 0, f"a tool call not of the form {shape!r} kept as "
                                            "content")])
        if marker != CALL_END:
            return Outcome([("tool_calls", value)],
                           [("unclosed-call", len(raw), f"a tool call without {CALL_END!r}")])
        return value

    def think_exact(raw: str, marker: str) -> str:
        if marker == EOS:
            raise ParseError(f"{name}: a think block not closed before {EOS!r}")
        return reasoning(raw, marker)

    def content_first(raw: str, marker: str) -> Any:
        # The recovering reading's first content: the text before a </think> that no <think>
        # opened is reasoning (vLLM: the model may not write the start token).
        if marker == THINK_END:
            return Outcome([("reasoning_content", reasoning(raw, marker))], [])
        return raw

    end_of_section = () if section_end else ((EOS, "end", False),)
    start = "start" if think else "content"
    exact = [
        State("content", "content", markers=((CALLS, "calls", False), (EOS, "end", False)),
              value=verbatim),
        State("calls", None, markers=((CALL, "call", False), (CALLS_END, "after", False))
              + end_of_section, what="between tool calls"),
        State("call", "tool_calls", markers=((CALL_END, "calls", False),), value=call,
              eager=True),
        State("after", None, markers=((EOS, "end", False),), what="after the tool calls"),
        State("end", None, stray=IGNORE),
    ]
    unclosed = {EOS: ("unclosed-call", f"a tool-call section without {CALLS_END!r}")}
    recover = [
        State("content", "content", markers=((CALLS, "calls", False), (EOS, "end", False)),
              value=verbatim),
        State("calls", "content", markers=((CALL, "call", False), (CALLS_END, "after", False),
                                           (EOS, "end", False)),
              value=_recover.stray("between tool calls", drop=((CALL, "\n"),)),
              notes=dict(unclosed) if section_end else None),
        State("call", "tool_calls", markers=((CALL_END, "calls", False), (CALL, "call", False),
                                             (CALLS_END, "after", False), (EOS, "end", False)),
              value=recover_call, eager=True),
        State("after", "content", markers=((CALLS, "calls", False), (EOS, "end", False)),
              value=_recover.stray("after the tool calls")),
        State("end", None, stray=IGNORE),
    ]
    if think:
        exact += [
            State("start", "content", leads=((THINK, "think", False),), lead_miss="content"),
            State("think", "reasoning_content",
                  markers=((THINK_END, "content", False), (EOS, "end", False)),
                  value=think_exact, eager=True),
        ]
        recover += [
            State("start", "content", leads=((THINK, "think", False),), lead_miss="first",
                  lead_space=True),
            State("think", "reasoning_content",
                  markers=((THINK_END, "content", False), (CALLS, "calls", False),
                           (EOS, "end", False)),
                  leads=((THINK, "think", False),), lead_miss="think", lead_space=True,
                  value=reasoning, eager=True,
                  notes={CALLS: ("reasoning-ended-by-call",
                                 f"{CALLS!r} inside unclosed reasoning ends it"),
                         EOS: ("unclosed", f"a think block without {THINK_END!r} ends at "
                                           "the end of the turn")}),
            State("first", "content",
                  markers=((THINK_END, "content", False), (CALLS, "calls", False),
                           (EOS, "end", False)),
                  value=content_first,
                  notes={THINK_END: ("missing-opener", f"the text before a {THINK_END!r} "
                                                       f"without {THINK!r} read as reasoning")}),
        ]
    return ({s.name: s for s in exact}, {s.name: s for s in recover}, start)
