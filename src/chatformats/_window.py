"""The bridge's bounded context: which messages a format's next render needs, and why.

The bridge (:func:`chatformats.bridge`) must know that the template renders the history as it
was sampled, and what it appends for the new messages.  A full render of the conversation
answers both, at a cost that grows with the history.  For the formats in :data:`RULES`, the
render of a *window* answers the same: a few anchor messages and the last messages of the
conversation, a subsequence of it in order.

The argument, for a conversation ``A`` (the previous prompt's messages, ``n`` of them) and
``B = A + [completion's message] + new messages``, and ``k = n - 1`` (the last message of
``A``): a port writes a system block (from ``messages[0]``, the tools and the variables), then
one *iteration* per message, then the generation prompt.  Split each render at the start of
iteration ``k``: ``R(A) = X_A + Y_A``, ``R(B) = X_B + Y_B``, and for the windows
``W_A = anchors + A[s:]``, ``W_B = anchors + B[s:]`` (``s`` is :meth:`Rule.start_at`: ``k - b``
for a rule with look-behind ``b``, the message that sets a loop flag for :class:`FlagsRule`):
``R(W_A) = P_A + Y'_A``, ``R(W_B) = P_B + Y'_B``.  Each rule below proves, from the port's
pre-pass and loop, that

1. ``X_A == X_B`` and ``P_A == P_B`` when :meth:`Rule.keeps` says so: the iterations before
   ``k`` read nothing the new messages change (each reads its message, a bounded number of
   neighbours that all lie in ``A``, ``loop.last``, which is false for them in both, and the
   pre-pass state, which :meth:`Rule.keeps` compares);
2. ``Y_A == Y'_A`` and ``Y_B == Y'_B``: iteration ``j >= k`` reads its message, its
   neighbours back to ``s`` (in the window), the next ones (in the window), ``loop.first``
   (false in both: the window starts with an anchor), ``loop.last`` (the same message in both)
   and pre-pass state that the anchors reproduce (:meth:`Rule.anchors`; a rule whose anchors
   depend on the new messages too gives them from both states, :meth:`Rule.window_anchors`).

Then ``R(B)`` starts with ``R(A) + completion`` exactly when ``R(W_B)`` starts with
``R(W_A) + completion``, and what follows is the same text.  The bridge renders the two windows
and, when the check fails or a rule cannot tell (:meth:`Rule.advance` gives ``None``), falls
back to the full render: the window is only ever a shortcut to the same answer.

The ``"sampled"`` policy reads the same two windows where the check fails or the previous
prompt is not the render of its messages: what it appends (the closing of the completion's turn,
then everything after it) lies in ``Y_B``, which point 2 gives, spans included; the offset it
reports needs where ``Y`` starts, which the windows bound (``rollout._Context.sampled`` has the
argument, and falls back to the full render where the bound does not decide).

State is carried from turn to turn (in the bridge's context) and advanced over the new messages
only, so a turn's cost does not grow with the history.  The messages are the template's own
(transformers' conversions already applied).
"""

from __future__ import annotations

import threading
from typing import Any, Sequence

from ._jinja import MISSING, think_split
from .errors import ChatFormatError

__all__ = ["Rule", "RULES", "rule"]


class Rule:
    """A format's window: ``head`` leading messages always kept (the ones its pre-pass reads
    outside the loop), ``lookbehind`` messages before iteration ``k``; no other state.

    Stateless rules prove point 1 with no comparison: the pre-pass reads only the ``head``
    messages, the tools and the variables, all shared by ``A`` and ``B``."""

    __slots__ = ("head", "lookbehind")

    def __init__(self, head: int, lookbehind: int) -> None:
        self.head, self.lookbehind = head, lookbehind

    def start(self, messages: Sequence[Any]) -> Any:
        """The state after ``messages`` (one pass, at the rollout's start), or ``None``."""
        return self.advance((), messages, 0)

    def advance(self, state: Any, messages: Sequence[Any], n: int) -> Any:
        """The state after ``messages`` from that after ``messages[:n]``, reading only
        ``messages[n:]``; ``None`` when the rule cannot tell (then: the full render)."""
        return ()

    def keeps(self, old: Any, new: Any, k: int) -> bool:
        """Whether the iterations before ``k`` render the same under ``new`` as under ``old``."""
        return True

    def start_at(self, messages: Sequence[Any], k: int) -> int | None:
        """Where the window's run of the conversation starts (``None``: no bounded window)."""
        return k - self.lookbehind

    def anchors(self, old: Any, start: int) -> tuple[int, ...]:
        """The indices below ``start`` the window keeps, in order."""
        return tuple(range(min(self.head, start)))

    def window_anchors(self, old: Any, new: Any, start: int) -> tuple[int, ...]:
        """The anchors of both windows, given the state ``new`` after the new messages too (a
        rule whose anchors depend on the new messages reads it; the others: :meth:`anchors`)."""
        return self.anchors(old, start)


class ImageRule(Rule):
    """Llama 3.2 Vision: the image scan (``image_ns.has_images``, every message's content)
    decides the system block (and, in the September text, raises with a system message).  It
    is read before the loop only, so it is part of ``X`` and ``P``: a new message that holds an
    image part could change it, and then the rule cannot tell (the full render decides).  A
    new message without one leaves it as it was, in ``B`` and in both windows."""

    __slots__ = ()

    def start(self, messages: Sequence[Any]) -> Any:
        return ()  # the first prompt's images are in A, B and both windows' scans alike

    def advance(self, state: Any, messages: Sequence[Any], n: int) -> Any:
        for message in messages[n:]:
            content = message.get("content", MISSING) if type(message) is dict else MISSING
            if type(content) is list or type(content) is tuple:
                if any(type(part) is dict and part.get("type", MISSING) == "image" for part in content):
                    return None
        return ()


class QueryRule(Rule):
    """The Qwen3 reversed scan (``ns.last_query_index``): iteration ``j`` of an assistant
    message writes its reasoning when ``j > ns.last_query_index`` and (``loop.last`` or its
    reasoning is not empty).  The state is ``(last query index or -1 for none, the first
    index after it of an assistant message with reasoning, or -1)``.

    - Point 1: the iterations before ``k = n - 1`` are not last in ``A`` or ``B``; they change
      only if the last query moves (a new user query) while an assistant turn with reasoning
      lies between the old query and ``k``: :meth:`keeps`.  Without a query the index is
      ``len(messages) - 1`` in each render, above every iteration before it, so no iteration
      before ``k`` writes reasoning in either.
    - Point 2: the anchors keep ``messages[0]`` and the last query of ``A`` (when it lies before
      the window), so the window's scan finds the same message (its position shifts with every
      index after it, and ``j > last_query_index`` compares positions in the same order); a
      new query lies in the window.  The look-behind is 1: a tool response reads the role of
      the message before it (``<|im_start|>user`` opens a run of tool messages).
    """

    __slots__ = ()

    #: Whether, with no query in the conversation, every assistant turn with reasoning writes it
    #: (GLM-4.5's ``-1``); for the Qwen3 scan the index is then the last message's, above all.
    none_thinks = False

    def query(self, message: Any) -> bool | None:
        """Whether the scan stops at ``message`` (``None``: it would fail there)."""
        if type(message) is dict and message.get("role", MISSING) == "user":
            content = message.get("content", MISSING)
            return type(content) is str and not (
                content.startswith("<tool_response>") and content.endswith("</tool_response>"))
        return False

    def reasoning(self, message: Any) -> bool | None:
        """Whether an assistant ``message`` has reasoning the loop writes when it is not last
        (``None``: the rule cannot tell)."""
        if type(message) is not dict or message.get("role", MISSING) != "assistant":
            return False
        reasoning = message.get("reasoning_content", MISSING)
        if type(reasoning) is str:
            return reasoning != ""
        content = message.get("content", MISSING)
        if type(content) is not str:
            content = ""
        return "</think>" in content and think_split(content)[0] != ""

    def start(self, messages: Sequence[Any]) -> Any:
        return self.advance((-1, -1), messages, 0)

    def advance(self, state: Any, messages: Sequence[Any], n: int) -> Any:
        query, first = state
        for index in range(n, len(messages)):
            message = messages[index]
            is_query = self.query(message)
            if is_query is None:
                return None
            if is_query:
                query, first = index, -1
                continue
            has = self.reasoning(message)
            if has is None:
                return None
            if has and (query >= 0 or self.none_thinks) and first < 0:
                first = index
        return (query, first)

    def keeps(self, old: Any, new: Any, k: int) -> bool:
        return old[0] == new[0] or (old[0] < 0 and not self.none_thinks) or old[1] < 0 or old[1] >= k

    def anchors(self, old: Any, start: int) -> tuple[int, ...]:
        query = old[0]
        head = tuple(range(min(self.head, start)))
        return head + (query,) if query >= len(head) and query < start else head


class Query2504Rule(QueryRule):
    """``qwen3_2025_04.jinja``: the same scan and reasoning rule with the text's own tests
    (``ports/qwen3_2025_04.py``): the scan calls ``content.startswith`` on every user message
    it reaches, and ``reasoning_content`` is used whenever it is defined and not ``None`` (any
    value, by its truth).  A content the rule does not read as the port does (not a string)
    gives ``None``: the full render decides (and fails where the template fails)."""

    __slots__ = ()

    def query(self, message: Any) -> bool | None:
        if type(message) is dict and message.get("role", MISSING) == "user":
            content = message.get("content", MISSING)
            if type(content) is not str:
                return None
            return not (content.startswith("<tool_response>") and content.endswith("</tool_response>"))
        return False

    def reasoning(self, message: Any) -> bool | None:
        if type(message) is not dict or message.get("role", MISSING) != "assistant":
            return False
        reasoning = message.get("reasoning_content", MISSING)
        if reasoning is not MISSING and reasoning is not None:
            return None if type(reasoning) is not str else reasoning != ""
        content = message.get("content", MISSING)
        if type(content) is not str:
            return None
        return "</think>" in content and think_split(content)[0] != ""


class LastUserRule(QueryRule):
    """GLM-4.5 (``ports/glm4_5.py``): ``ns.last_user_index`` is the last message of role
    ``user`` (any content), ``-1`` when there is none; an assistant turn writes its reasoning
    when ``loop.index0 > ns.last_user_index`` and its reasoning (``reasoning_content`` when a
    string, else split from the visible text at ``</think>``) is not empty, last or not.  So
    with no user message every such turn writes it (:attr:`none_thinks`), and a first user
    message changes the turns before it.  No iteration reads ``messages[0]`` or
    ``loop.last``; a tool response reads the previous message's role (look-behind 1)."""

    __slots__ = ()

    none_thinks = True

    def query(self, message: Any) -> bool | None:
        return type(message) is dict and message.get("role", MISSING) == "user"

    def reasoning(self, message: Any) -> bool | None:
        if type(message) is not dict or message.get("role", MISSING) != "assistant":
            return False
        reasoning = message.get("reasoning_content", MISSING)
        if type(reasoning) is str:
            return reasoning != ""
        from .ports.glm4_5 import visible_text

        try:  # L51: the macro, as the port reads it
            text = visible_text(message.get("content", MISSING), "content")
        except ChatFormatError:  # the full render decides (and fails there)
            return None
        return "</think>" in text and think_split(text)[0] != ""


class FlagsRule(Rule):
    """The DeepSeek R1, R1-Distill and V3 templates (``ports/_deepseek_r1.py``,
    ``ports/_deepseek_r1_distill.py``, ``ports/deepseek_v3.py``): the header is the system prompt
    (every system message's content joined, or the last one's), and the loop carries three
    flags, each a function of the messages before an iteration:

    - ``ns.is_first``, set by the first call of the first assistant turn that makes one (R1:
      ``'tool_calls' in message``; Distill and V3: ``content is none``), never reset;
    - ``ns.is_output_first``, cleared by the first tool message, never reset;
    - ``ns.is_tool``: whether the last message of role user, assistant or tool was a tool
      message (a user or assistant turn clears it, a tool message sets it, any other role leaves
      it), which also decides the closing ``<｜tool▁outputs▁end｜>`` and the generation prompt.

    The state is ``(index of the first call-making assistant turn, index of the first tool
    message)``, ``-1`` for none; the anchors are those two messages (when they lie before the
    window); the window's run starts at the last user, assistant or tool message before ``k``
    (found within :data:`_FLAG_BACK` messages back, else no window), so every flag holds at
    ``k`` what it holds in the whole conversation.  An iteration reads no neighbour and not
    ``loop.last``.  A new system message changes the header: the rule cannot tell."""

    __slots__ = ("calls",)

    def __init__(self, head: int, lookbehind: int, calls: str) -> None:
        super().__init__(head, lookbehind)
        self.calls = calls  # "key": R1's test, "none": Distill's and V3's

    def makes_calls(self, message: Any) -> bool | None:
        if type(message) is not dict or message.get("role", MISSING) != "assistant":
            return False
        if self.calls == "key":
            if "tool_calls" not in message:
                return False
        elif message.get("content", MISSING) is not None:
            return False
        calls = message.get("tool_calls", MISSING)
        if type(calls) is not list:
            return None if calls is not MISSING else False
        return len(calls) > 0

    def start(self, messages: Sequence[Any]) -> Any:
        return self.advance((-1, -1), messages, 0)

    def advance(self, state: Any, messages: Sequence[Any], n: int) -> Any:
        first_call, first_tool = state
        for index in range(n, len(messages)):
            message = messages[index]
            role = message.get("role", MISSING) if type(message) is dict else MISSING
            if role == "system" and n:  # a new system message: the header changes
                return None
            if role == "tool" and first_tool < 0:
                first_tool = index
            if first_call < 0:
                calls = self.makes_calls(message)
                if calls is None:
                    return None
                if calls:
                    first_call = index
        return (first_call, first_tool)

    def start_at(self, messages: Sequence[Any], k: int) -> int | None:
        for index in range(k - 1, max(-1, k - 1 - _FLAG_BACK), -1):
            message = messages[index]
            if type(message) is dict and message.get("role", MISSING) in ("user", "assistant", "tool"):
                return index
        return None

    def anchors(self, old: Any, start: int) -> tuple[int, ...]:
        head = tuple(range(min(self.head, start)))
        return head + tuple(sorted({i for i in old if len(head) <= i < start}))


#: How far back :class:`FlagsRule` looks for the message that sets ``ns.is_tool``.
_FLAG_BACK = 8


class ResetFlagsRule(FlagsRule):
    """DeepSeek-V3.1 (``ports/deepseek_v3_1.py``) and DeepSeek-R1-0528-Qwen3
    (``ports/deepseek_r1_0528_qwen3.py``): the header is ``bos_token`` and every system
    message's content joined (the pre-pass's only reading of the messages), and the loop's flags
    are reset by the turns themselves:

    - ``ns.is_last_user`` and ``ns.is_tool``: every user, assistant or tool message sets both (a
      user message ``True, False``; an assistant turn, with tool calls or without, ``False,
      False``; a tool message ``False, True``), any other role leaves them: they are functions of
      the last user, assistant or tool message before an iteration;
    - ``ns.is_first``: set to ``False`` by each user turn and by each tool-call turn (``tool_calls``
      defined and not ``None``) before that turn's call loop reads it, and read nowhere else: it
      carries nothing from one message to the next;
    - R1-0528-Qwen3's ``ns.is_output_first`` (:attr:`outputs`): set to ``True`` by each tool-call
      turn, cleared by each tool message, read by a tool message: ``False`` before iteration
      ``j`` exactly when a tool message lies between the last tool-call turn before ``j`` (or the
      conversation's start) and ``j``.  V3.1 has no such flag.

    The state is ``(the last tool-call turn, the first tool message after it)``, ``-1`` for none.

    - Point 1: the flags before ``k`` are functions of the messages before it, which ``A`` and
      ``B`` share, and the header changes only with a system message, which a new message that is
      one makes the rule give up on (:meth:`advance`): :meth:`keeps` is true.
    - Point 2: the window's run starts at the last user, assistant or tool message ``s`` before
      ``k`` (:meth:`start_at`), so ``ns.is_last_user`` and ``ns.is_tool`` hold at ``k`` what they
      hold in the whole conversation.  For ``ns.is_output_first``: when the last tool-call turn
      ``c`` of ``A`` lies at or after ``s``, it is in the window, and every message from it to
      ``k`` too (at ``c == k`` the turn sets the flag before anything reads it); when ``c < s``,
      no tool-call turn lies in the run before ``k``, and the anchors are ``c`` and the first tool
      message ``t`` after it (when below ``s``): in the window, as in the conversation, the last
      tool-call turn before ``k`` is ``c`` (``messages[0]``, an anchor, lies before it or is
      it) and a tool message lies between it and ``k`` exactly when ``t < k``.  An iteration
      reads its message, these flags and ``thinking`` (V3.1), no neighbour and not
      ``loop.last``; the generation prompt reads the two role flags after the last message,
      which both windows hold.
    """

    __slots__ = ("outputs",)

    def __init__(self, head: int, lookbehind: int, outputs: bool) -> None:
        super().__init__(head, lookbehind, "reset")
        self.outputs = outputs  # whether the loop carries ns.is_output_first (R1-0528-Qwen3)

    def advance(self, state: Any, messages: Sequence[Any], n: int) -> Any:
        last_call, first_output = state
        for index in range(n, len(messages)):
            message = messages[index]
            role = message.get("role", MISSING) if type(message) is dict else MISSING
            if role == "system" and n:  # a new system message: the header changes
                return None
            if role == "assistant":
                calls = message.get("tool_calls", MISSING)
                if calls is not MISSING and calls is not None:  # the tool-call block
                    last_call, first_output = index, -1
            elif role == "tool" and first_output < 0:
                first_output = index
        return (last_call, first_output)

    def anchors(self, old: Any, start: int) -> tuple[int, ...]:
        head = tuple(range(min(self.head, start)))
        last_call, first_output = old
        if not self.outputs or last_call >= start:
            return head
        return head + tuple(i for i in (last_call, first_output) if len(head) <= i < start)


class MiniCPMRule(QueryRule):
    """MiniCPM-V 4.6 (``ports/minicpm_v4_6_thinking.py``): the reversed scan stops at the last
    user message whose rendered content (the ``render_content`` macro, stripped) is not wrapped
    in ``<tool_response>``; the scan fails where a content does not render, and with no query
    the template raises.  An assistant turn after the last query is written with a think block
    whatever its reasoning (L91-92), so every assistant turn between the old query and ``k``
    changes when a new query arrives: :meth:`reasoning` is true for every assistant message.  A
    tool response reads the previous message (its truth and role) and the next one's role; a
    system message anywhere but first raises, in the window as in the conversation."""

    __slots__ = ()

    def query(self, message: Any) -> bool | None:
        if type(message) is not dict or message.get("role", MISSING) != "user":
            return False
        from .ports.minicpm_v4_6_thinking import render_content

        try:  # L62: the macro, as the port calls it
            content = render_content(message.get("content", MISSING), False, 0, {}).strip()
        except ChatFormatError:  # the scan fails here: the full render decides
            return None
        return not (content.startswith("<tool_response>") and content.endswith("</tool_response>"))

    def reasoning(self, message: Any) -> bool | None:
        return type(message) is dict and message.get("role", MISSING) == "assistant"


class FinalRule(Rule):
    """gpt-oss (``ports/gpt_oss.py``): the system block reads the variables and the tools, the
    developer block ``messages[0]`` (when it is a developer or system message the loop starts
    after it); the pre-pass finds ``future_final``, the last assistant message without a
    ``tool_calls`` key (a *final*); the loop carries ``last_tool_call.name``.  An iteration reads:

    - a tool-call turn (an assistant message with the key): ``found`` (a final lies after it),
      which drops its analysis (a true ``content`` or ``thinking``) when true; it sets the name;
    - any other assistant turn: ``loop.last`` and ``add_generation_prompt`` (the ``<|return|>``
      branch, which leaves the name), else it clears the name;
    - a tool message: the name (none: the template raises); a user message: nothing else.

    The state is ``(the last final, the first tool-call turn after it with analysis, the last
    assistant turn)``, ``-1`` for none: the last assistant turn before an iteration decides the
    name (a tool-call turn sets it, a final that is not last clears it).  The look-behind is 0.

    - Point 1: the iterations before ``k`` read the name (from the messages before them, shared),
      ``loop.last`` (false for them in both) and ``found``, which a new final turns true for the
      tool-call turns between the old final and ``k``: only those with analysis render
      differently, and :meth:`keeps` is false when one lies there (the whole render then rewrites
      that turn: ``None``).
    - Point 2: the anchors are ``messages[0]`` and ``M``, the last assistant turn of ``A``, when
      it lies between them and the run (``k`` itself, the run's start, is in the window).  A
      tool message at ``j >= k`` takes its name from the last assistant turn before ``j``: one
      in the window's run, or ``M``, in the window as in the conversation.  A tool-call turn at ``j >= k`` has ``found`` true exactly when a final
      follows it, and every message after it is in the window.  ``M`` itself is followed by no
      final before ``k`` (it is the last assistant turn), so its ``found`` is the same in each
      window as in its conversation: ``P_A == P_B`` whenever the iterations before ``k`` render
      the same (point 1).  ``loop.last`` and ``add_generation_prompt`` are the conversation's.
      A first message that is a tool-call turn (the loop starting at it, ``found`` over finals
      the window does not hold) is not followed: :meth:`start` gives ``None``.
    """

    __slots__ = ()

    def start(self, messages: Sequence[Any]) -> Any:
        first = messages[0] if messages else None
        if type(first) is dict and first.get("role", MISSING) == "assistant" and "tool_calls" in first:
            return None
        return self.advance((-1, -1, -1), messages, 0)

    def advance(self, state: Any, messages: Sequence[Any], n: int) -> Any:
        final, analysis, last = state
        for index in range(n, len(messages)):
            message = messages[index]
            if type(message) is not dict or message.get("role", MISSING) != "assistant":
                continue
            last = index
            if "tool_calls" in message:  # L273: a tool-call turn
                if analysis < 0 and (message.get("content", MISSING) or message.get("thinking", MISSING)):
                    analysis = index  # L291-294: analysis written while no final follows
            else:
                final, analysis = index, -1
        return (final, analysis, last)

    def keeps(self, old: Any, new: Any, k: int) -> bool:
        return bool(old[0] == new[0] or old[1] < 0 or old[1] >= k)

    def anchors(self, old: Any, start: int) -> tuple[int, ...]:
        head = tuple(range(min(self.head, start)))
        last = old[2]
        return head + (last,) if len(head) <= last < start else head


class _CallIndex:
    """The call-id index of one chain of turns, shared by its states and grown in place: each
    call id's assistant-message indices (ascending) and each tool response id's first index,
    for the chain's messages ``[0, size)``.  A state reads it as of its own message count ``n``
    (entries below ``n``: the chain's messages are the same below any of its counts).  A state
    whose ``n`` is ``size`` extends it in place; any other (a second turn extended from the same
    prompt, a branch) extends a copy restricted to ``[0, n)``: O(ids), once per branch."""

    __slots__ = ("calls", "responses", "size")

    def __init__(self, calls: dict[str, list[int]], responses: dict[str, int], size: int) -> None:
        self.calls, self.responses, self.size = calls, responses, size

    def extended(self, n: int, calls: list[tuple[str, int]], responses: list[tuple[str, int]],
                 size: int) -> _CallIndex:
        """The index as of ``n`` with ``calls`` and ``responses`` (at indices ``n`` and above)
        added, covering ``size`` messages: this one grown in place when it ends at ``n``, else a
        copy (the test and the growth under one lock, as turns are bridged in threads)."""
        with _INDEXING:
            index = self
            if index.size != n:
                kept = {call_id: [i for i in found if i < n] for call_id, found in self.calls.items()}
                index = _CallIndex({call_id: found for call_id, found in kept.items() if found},
                                   {call_id: i for call_id, i in self.responses.items() if i < n}, n)
            known = index.calls
            for call_id, at in calls:
                found = known.get(call_id)
                if found is None:
                    known[call_id] = [at]
                elif found[-1] != at:
                    found.append(at)
            first = index.responses
            for call_id, at in responses:
                if call_id not in first:
                    first[call_id] = at
            index.size = size
        return index


#: Guards the test-and-grow of :meth:`_CallIndex.extended`.
_INDEXING = threading.Lock()


class ToolNameRule(Rule):
    """Solar Open (``ports/solar_open.py``): the system block reads the variables and *every*
    system message's content (``ns.system_messages``, L87-92); the pre-pass finds
    ``last_user_idx``, the last message of role ``user`` (``-1`` for none, L11-16); the loop
    carries no state.  An iteration reads:

    - a user message: its content;
    - an assistant message: its reasoning, written (``lastthink``, the default) when it is
      truthy and ``loop.index0 > last_user_idx``; then its calls or its content;
    - a tool response: the previous and next messages' roles (a run shares one
      ``<|begin|>tool`` block), ``loop.last``'s length test, and ``get_tool_name(messages,
      tool_call_id)`` (L66-76), the names of *every* call in the conversation whose id is its
      ``tool_call_id``, later ones included, joined in message order.

    When the render of ``A`` succeeds, every assistant message of ``A`` with truthy
    ``tool_calls`` renders them (the same iteration the scan makes: a list of calls, each with a
    string ``id`` and ``function.name``), every tool response has a string ``tool_call_id``, so
    the scan of ``A`` meets no failure and its name for an id is the names of ``A``'s calls of
    that id joined; in ``B`` it is those followed by the names of the new calls of that id (the
    new messages come last).

    The state: ``(last user index, first assistant index after it with truthy reasoning, the
    call-id index, its message count n, fresh calls, fresh responses, tail)``: the index
    (:class:`_CallIndex`, read as of ``n``) maps each call id to the assistant messages with a
    call of that id, in order, and each tool response's id to its first index; ``fresh calls``
    and ``fresh responses`` are the ids of the calls and responses of the messages advanced
    over (the responses' from ``messages[n - 1]`` on: the last message of ``A``, the ``tail``
    the previous state records, is iteration ``k``).  Advancing costs the new messages (a
    chain of turns grows one index in place; a branch copies it once).  An assistant message
    whose truthy ``tool_calls`` is not a list or tuple of dicts with string ids, a tool
    response whose id is not a string, or a new system message: the rule cannot tell (the
    full render decides, and fails where the template fails).

    - Point 1: the system block is the same (no new system message).  An assistant turn before
      ``k`` changes only when the last user moves (a new user message) while a turn with truthy
      reasoning lies between the old one and ``k`` (the :class:`LastUserRule` test).  A tool
      response of ``A`` changes only when a new call carries its id (its name grows): then
      :meth:`keeps` is false (the full render decides, which answers ``None`` when the name
      grows).  Its neighbours lie in ``A``, and it is not last in either.
    - Point 2: the window's run starts at ``k - 1`` (a tool response at ``k`` reads the role
      before it); the anchors are ``messages[0]``, the last user message of ``A`` (when before
      the run; a new one is in the run: each window's last user is its conversation's, and
      ``j > last_user_idx`` compares positions in the same order), and every assistant message
      before the run with a call whose id is that of a tool response at or after ``k``
      (:meth:`window_anchors`): the window's scan for such a response then meets every call of
      its id, in order, and joins the same names, in ``W_A`` as in ``A`` and in ``W_B`` as in
      ``B``.  The same anchors are kept in both windows: they lie in ``A``, and the window's
      responses before ``k`` (a subset of ``A``'s) get no new call (point 1), and its
      assistant turns before ``k`` write their reasoning alike (the test of point 1), so
      ``P_A == P_B``.
    """

    __slots__ = ()

    def start(self, messages: Sequence[Any]) -> Any:
        return self.advance((-1, -1, _CallIndex({}, {}, 0), 0, (), (), None), messages, 0)

    def advance(self, state: Any, messages: Sequence[Any], n: int) -> Any:
        user, first, index, _, _, _, tail = state
        calls: list[tuple[str, int]] = []
        responses: list[tuple[str, int]] = []
        fresh_responses: list[str] = [] if tail is None else [tail]
        for at in range(n, len(messages)):
            message = messages[at]
            tail = None
            if type(message) is not dict:
                continue  # no role: no branch, and the scan skips it
            role = message.get("role", MISSING)
            if role == "user":  # L13-14
                user, first = at, -1
            elif role == "assistant":
                if first < 0 and message.get("reasoning", MISSING):  # L131
                    first = at
                tool_calls = message.get("tool_calls", MISSING)
                if tool_calls:  # L68, L137
                    if type(tool_calls) is not list and type(tool_calls) is not tuple:
                        return None
                    for call in tool_calls:
                        call_id = call.get("id", MISSING) if type(call) is dict else MISSING
                        if type(call_id) is not str:
                            return None
                        calls.append((call_id, at))
            elif role == "tool":
                call_id = message.get("tool_call_id", MISSING)
                if type(call_id) is not str:  # L116
                    return None
                responses.append((call_id, at))
                fresh_responses.append(call_id)
                tail = call_id
            elif role == "system" and n:  # a new system message: the header changes
                return None
        size = len(messages)
        index = index.extended(n, calls, responses, size)
        return (user, first, index, size, tuple(call_id for call_id, _ in calls), tuple(fresh_responses), tail)

    def keeps(self, old: Any, new: Any, k: int) -> bool:
        if not (old[0] == new[0] or old[1] < 0 or old[1] >= k):
            return False
        responses, n = old[2].responses, old[3]
        return not any(responses.get(call_id, n) < n for call_id in new[4])

    def window_anchors(self, old: Any, new: Any, start: int) -> tuple[int, ...]:
        head = tuple(range(min(self.head, start)))
        low = len(head)
        kept = {old[0]} if low <= old[0] < start else set()  # a new last user is in the run
        calls = new[2].calls
        for call_id in new[5]:
            for at in calls.get(call_id, ()):
                if at >= start:
                    break
                if at >= low:
                    kept.add(at)
        return head + tuple(sorted(kept))


#: The messages before the loop and the look-behind of each family (the proofs: each rule's
#: docstring and the comments here).
#:
#: - Qwen3 Instruct-2507, Qwen2.5: the system block reads ``messages[0]`` and the tools; an
#:   iteration reads its message, the previous message's role and the next one's (a run of
#:   tool responses) and ``loop.last``: look-behind 1, no other state.
#: - Qwen3-Coder (the three texts): the system block reads ``messages[0]`` (sliced off when it
#:   is the system message) and the tools; an iteration reads its message, ``loop.previtem``'s
#:   role (a tool response opens the user turn after a message that is not one) and
#:   ``loop.nextitem``'s and ``loop.last`` (the run of tool responses closes): look-behind 1,
#:   no other state.
#: - Kimi K2: the default system turn for a first message that is not a system message
#:   (``loop.first``: the anchor); each iteration reads only its message.
#: - Cogito: the pre-pass reads ``messages[0]`` (sliced off when it is the system message) and
#:   the variables; each iteration reads only its message.
#: - Llama 3.1 / 3.2 (and 3.2 Vision, :class:`ImageRule`): the system message (``messages[0]``,
#:   sliced off) and the first user message (the next one, consumed into the tools turn when
#:   ``tools_in_user_message``): two anchors; each iteration reads only its message.
_LOCAL_1 = Rule(head=1, lookbehind=1)
_LOCAL_0 = Rule(head=1, lookbehind=0)
_LLAMA = Rule(head=2, lookbehind=0)
_VISION = ImageRule(head=2, lookbehind=0)
_QUERY = QueryRule(head=1, lookbehind=1)

RULES: dict[str, Rule] = {
    "qwen3-thinking-2507": _QUERY,
    "qwen3": _QUERY,
    "qwen3-instruct-2507-2025-07": _QUERY,
    "qwen3-tool-agent": _QUERY,
    "qwen3-2025-04": Query2504Rule(head=1, lookbehind=1),
    "glm-4.5": LastUserRule(head=1, lookbehind=1),
    "minicpm-v-4.6-thinking": MiniCPMRule(head=1, lookbehind=1),
    "deepseek-r1": FlagsRule(head=1, lookbehind=0, calls="key"),
    "deepseek-r1-2025-01": FlagsRule(head=1, lookbehind=0, calls="key"),
    "deepseek-r1-distill": FlagsRule(head=1, lookbehind=0, calls="none"),
    "deepseek-r1-distill-2025-01": FlagsRule(head=1, lookbehind=0, calls="none"),
    "deepseek-v3": FlagsRule(head=1, lookbehind=0, calls="none"),
    "deepseek-v3.1": ResetFlagsRule(head=1, lookbehind=0, outputs=False),
    "deepseek-r1-0528-qwen3": ResetFlagsRule(head=1, lookbehind=0, outputs=True),
    "gpt-oss": FinalRule(head=1, lookbehind=0),
    "solar-open": ToolNameRule(head=1, lookbehind=1),
    "qwen3-instruct-2507": _LOCAL_1,
    "qwen2.5-instruct": _LOCAL_1,
    "qwen2.5-instruct-2024-09": _LOCAL_1,
    "qwen3-coder": _LOCAL_1,
    "qwen3-coder-2025-07": _LOCAL_1,
    "qwen3-coder-6211": _LOCAL_1,
    "kimi-k2": _LOCAL_0,
    "cogito": _LOCAL_0,
    "llama-3.1": _LLAMA,
    "llama-3.2": _LLAMA,
    "llama-3.2-vision-2024-09": _VISION,
    "llama-3.2-vision-2024-12": _VISION,
    "llama-3.2-vision-variant": _VISION,
}
"""The formats whose bridge renders a window (every registered format has one); a format
without a rule renders the whole conversation each turn (``docs/ids.md``: the rules, format by
format)."""


def rule(name: str) -> Rule | None:
    return RULES.get(name)
