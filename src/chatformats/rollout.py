"""Rollouts turn by turn: the next prompt as an exact extension of what was sampled.

- :func:`start` — a rollout's first prompt (the pipeline layer with the generation prompt), as a
  :class:`Turn`: its text, its ids (with a tokenizer), the messages and the variables it was
  rendered with.
- :func:`bridge` — the next :class:`Turn`: the previous prompt and the completion sampled from it
  kept verbatim (text and ids), then what the template writes for the new messages (and the
  generation prompt), or ``None`` when the template would not render that history the same way.
- :func:`prefix_stable` — which appends keep the earlier render as a prefix, for a format and
  its variables.

The bridge reads the completion back with :func:`chatformats.parse_response`, renders the
conversation (the history, the completion's message, the new messages) as text, and checks that
the render starts with the previous prompt followed by the completion: then the template keeps
the history, and what it appends after it is the new text.  Only that text is encoded, so the ids
of the history are never recomputed.  An end-of-turn the completion was cut before (a length
limit) is part of what the render appends, so it is written as prompt context.

For the formats of :data:`chatformats._window.RULES` the render is of a bounded window (anchor
messages and the last messages, before and after the new ones), with the template's pre-pass
state carried from turn to turn: the same answer as the whole conversation's render (that
module's argument), at a cost that does not grow with the history; where the window cannot tell,
the whole conversation is rendered.  A turn's text, ids and messages are the previous turn's
followed by what it adds, joined when first read (:class:`Joined`).

Policies where the render does not start with what was sampled (Qwen3 drops the reasoning of
turns before the last user message; a template re-serialises tool-call arguments):

- ``"template"`` (the default): ``None``; the caller re-renders (and the trainer sees the
  template's history, not the sampled one);
- ``"sampled"``: the sampled text is kept anyway, the end of the completion's turn is written if
  the completion lacks it, and the render's text from the end of that turn on is appended; the
  :class:`Turn` says so (``rewritten``: the offset where the render first departs from what was
  sampled).  Once a turn is rewritten, the next ones are answered from the same bounded windows
  where they can tell (:meth:`_Context.sampled`), else from the whole conversation's render.
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Any

from ._record import Record
from .errors import ChatFormatError, ParseError

__all__ = ["Turn", "start", "bridge", "prefix_stable", "APPENDS"]

POLICIES = ("template", "sampled")


class Turn(Record):
    """One prompt of a rollout, read-only.

    - ``text``: the prompt;
    - ``ids``: its token ids (``None`` without a tokenizer);
    - ``messages``: the conversation it renders (completions read back as messages);
    - ``variables``: the keyword arguments of ``apply_chat_template`` it was rendered with
      (``tools``, ``now`` fixed at the start, template variables);
    - ``appended``: the text this turn added after the previous prompt and completion (the whole
      prompt for the first turn);
    - ``rewritten``: ``None`` when ``text`` is exactly the template's render of ``messages``
      (with the generation prompt), else (the ``"sampled"`` policy) the least, over this turn
      and the turns before it, of the offset where a turn's render first departs from the
      previous prompt and completion it was bridged from: where this turn's render departs from
      ``text`` or before it, and the same for every later turn of the rollout.

    ``text``, ``ids`` and ``messages`` of a bridged turn are the previous turn's followed by
    what this turn adds: each is joined when first read (:class:`Joined`), so that a turn costs
    what it adds, not the length of the history, until its whole prompt is asked for.
    """

    __slots__ = ("_text", "_ids", "_messages", "variables", "appended", "rewritten", "context")
    _defaults = {"context": None}

    _text: str | Joined
    _ids: list[int] | Joined | None
    _messages: tuple[Any, ...] | Joined
    variables: dict[str, Any]
    appended: str
    rewritten: int | None
    context: _Context | None

    @property
    def text(self) -> str:
        text = self._text
        return text.value() if type(text) is Joined else text  # type: ignore[return-value]

    @property
    def ids(self) -> list[int] | None:
        ids = self._ids
        return ids.value() if type(ids) is Joined else ids  # type: ignore[return-value]

    @property
    def messages(self) -> tuple[Any, ...]:
        messages = self._messages
        return messages.value() if type(messages) is Joined else messages  # type: ignore[return-value]


class Joined:
    """A ``str``, ``list`` or ``tuple`` given as an earlier value (a :class:`Joined` or the
    value itself) followed by ``parts``, and joined once, when first read (:meth:`value`): a
    rollout's turns share their history instead of copying it each turn.  Compares (and
    pickles) as its value."""

    __slots__ = ("_value", "_before", "_parts")

    def __init__(self, before: Any, parts: tuple[Any, ...]) -> None:
        self._value: Any = None
        self._before, self._parts = before, parts

    def value(self) -> Any:
        if self._value is None:
            chain = []
            node: Any = self
            while type(node) is Joined and node._value is None:
                chain.append(node._parts)
                node = node._before
            base = node.value() if type(node) is Joined else node
            pieces = [part for parts in reversed(chain) for part in parts]
            if type(base) is str:
                value: Any = base + "".join(pieces)
            else:
                out = list(base)
                for piece in pieces:
                    out += piece
                value = out if type(base) is list else tuple(out)
            self._value, self._before, self._parts = value, None, ()
        return self._value

    def __eq__(self, other: object) -> bool:
        return self.value() == (other.value() if type(other) is Joined else other)  # type: ignore[no-any-return]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.value())

    def __reduce__(self) -> Any:
        return (_itself, (self.value(),))


def _itself(value: Any) -> Any:
    return value


#: Guards the test-and-append of :meth:`_Context.extended` on a shared message list.
_SHARED = threading.Lock()


class _Context:
    """What the template received for a turn, kept so that the next turn converts only its new
    messages (transformers' conversions are per message): the port, the converted messages, the
    template's variables (the special tokens, the converted tools, ``documents``), the clock,
    whether the turn's text ends with the generation prompt, and the format's window rule
    (:mod:`chatformats._window`) with its state after these messages, so that the next turn
    renders a bounded window instead of the whole conversation.  Built by :func:`start` only
    when rendering from it gives the pipeline's own text.

    ``messages`` may be longer than ``count`` (a list shared with later turns, which append to
    it in place when they extend the last turn: no copy per turn); the turn's messages are
    ``messages[:count]``.  ``windowed``: whether this turn's text came from the window."""

    __slots__ = ("port", "calls", "messages", "count", "variables", "now", "prompted", "rule",
                 "state", "windowed", "length")

    def __init__(self, port: Any, calls: Any, messages: list[Any], variables: dict[str, Any],
                 now: datetime, prompted: bool = True, rule: Any = None, state: Any = None,
                 count: int | None = None, windowed: bool = False, length: int | None = None) -> None:
        self.port, self.calls, self.messages, self.variables, self.now = port, calls, messages, variables, now
        self.count = len(messages) if count is None else count
        self.prompted, self.rule, self.state, self.windowed = prompted, rule, state, windowed
        self.length = length  # len() of the template's render of the messages, when known

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Context):
            return NotImplemented
        return (self.port, self.messages[:self.count], self.variables, self.now, self.prompted) == \
            (other.port, other.messages[:other.count], other.variables, other.now, other.prompted)

    __hash__ = None  # type: ignore[assignment]

    def full(self) -> _Context:
        """This context without its window rule: the next turn renders the whole conversation
        (the path the window must agree with; ``tests/test_bridge.py`` compares them)."""
        return _Context(self.port, self.calls, self.messages, self.variables, self.now,
                        self.prompted, None, None, self.count, False, self.length)

    def extended(self, new: list[Any]) -> list[Any]:
        """The turn's messages followed by ``new``: the shared list, appended to in place when
        no other turn extended it yet, else a copy (the test and the append under one lock: two
        threads bridging from the same turn, as parallel samples of one prompt do, must not
        both append to it)."""
        with _SHARED:
            messages = self.messages
            if len(messages) != self.count:
                messages = messages[:self.count]
            messages.extend(new)
        return messages

    def _variables(self, add_generation_prompt: bool) -> dict[str, Any]:
        variables = self.variables
        if variables["add_generation_prompt"] is not add_generation_prompt:
            variables = dict(variables, add_generation_prompt=add_generation_prompt)
        return variables

    def render(self, name: Any, messages: list[Any], add_generation_prompt: bool) -> tuple[str, _Context]:
        """The text of ``messages`` (:meth:`extended`: this turn's and the next turn's new
        ones) rendered whole, and their context."""
        from . import _core

        text = _core.call_port(name, self.port, self.calls, messages,
                               self._variables(add_generation_prompt), self.now)
        return text, self.rendered(messages, add_generation_prompt, len(text))

    def rendered(self, messages: list[Any], add_generation_prompt: bool, length: int) -> _Context:
        """The context of ``messages`` (:meth:`extended`), whose whole render (``length``
        characters long) the caller made."""
        rule = self.rule
        state = None
        if rule is not None:  # the state after the new messages; where the rule cannot follow
            # them, the state of the whole conversation (this render is the whole one anyway)
            state = rule.advance(self.state, messages, self.count)
            if state is None:
                state = rule.start(messages)
        return _Context(self.port, self.calls, messages, self.variables, self.now,
                        add_generation_prompt, rule if state is not None else None, state,
                        None, False, length)

    def _windows(self, name: Any, messages: list[Any], add_generation_prompt: bool,
                 spans: bool) -> tuple[str, Any, int, Any] | None:
        """The renders of the two windows (:mod:`chatformats._window`): ``R(W_A)`` of this
        turn's messages, ``R(W_B)`` of ``messages`` (a ``Rendering`` when ``spans``), the
        position in ``W_B`` of ``messages[self.count]`` and the state after ``messages``;
        ``None`` when the rule cannot tell."""
        from . import _core

        rule = self.rule
        if rule is None:
            return None
        n = self.count
        start = rule.start_at(messages, n - 1)
        if start is None or start <= rule.head:  # no window, or the whole conversation
            return None
        state = rule.advance(self.state, messages, n)
        if state is None or not rule.keeps(self.state, state, n - 1):
            return None
        head = [messages[i] for i in rule.window_anchors(self.state, state, start)]
        recorder: Any = None
        if spans:
            from ._spans import Recorder

            recorder = Recorder()
        try:
            before = _core.call_port(name, self.port, self.calls, [*head, *messages[start:n]],
                                     self._variables(self.prompted), self.now)
            after = _core.call_port(name, self.port, self.calls, [*head, *messages[start:]],
                                    self._variables(add_generation_prompt), self.now, recorder)
        except ChatFormatError:
            return None
        if recorder is not None:
            from ._spans import build

            return before, build(after, recorder), len(head) + n - start, state
        return before, after, len(head) + n - start, state

    def window(self, name: Any, messages: list[Any], add_generation_prompt: bool,
               completion: str) -> tuple[str, _Context] | None:
        """What the render of ``messages`` (:meth:`extended`) writes after this turn's text
        and ``completion``, from the render of a bounded window (:mod:`chatformats._window`),
        and their context; ``None`` when the window cannot tell (the caller renders them
        whole)."""
        windows = self._windows(name, messages, add_generation_prompt, False)
        if windows is None:
            return None
        before, after, _, state = windows
        if not (after.startswith(before) and after.startswith(completion, len(before))):
            return None
        length = None if self.length is None else self.length + len(after) - len(before)
        return after[len(before) + len(completion):], _Context(
            self.port, self.calls, messages, self.variables, self.now, add_generation_prompt,
            self.rule, state, None, True, length)

    def sampled(self, name: Any, messages: list[Any], add_generation_prompt: bool,
                completion: str, rewritten: int | None) -> tuple[str, int, _Context] | None:
        """The sampled policy's answer from the two windows: what :func:`bridge` appends after
        this turn's text and ``completion`` (the closing of the completion's turn when the
        completion lacks it, then the render from the end of that turn on), the ``rewritten``
        offset it reports, and the context of ``messages``; ``None`` when the windows cannot
        tell (the caller renders the whole conversation).  ``rewritten`` is this turn's
        (``None``: its text is the render of its messages).

        Why it is the whole render's answer.  With ``A`` this turn's messages (``n`` of them,
        ``k = n - 1``), ``B = messages``, ``R(A) = X_A + Y_A``, ``R(B) = X_B + Y_B``,
        ``R(W_A) = P + Y_A`` and ``R(W_B) = P + Y_B`` (``X_A == X_B``, ``P_A == P_B``: point 1,
        :meth:`Rule.keeps`; the ``Y`` equal: point 2), ``x = len(X_A)``, ``p = len(P)`` and
        ``L = len(R(A))`` (:attr:`length`, kept exact from turn to turn: ``len(R(B)) = L +
        len(R(W_B)) - len(R(W_A))``, as the ``Y`` are the only parts that differ):

        - *The appended text.*  The full path reads the render of ``B`` with spans: the end of
          the completion's assistant range (:func:`_turn_end`: the first range ending after the
          first character ``messages[n]`` put in the text) and the template text before it
          (:func:`_closing`).  The completion's message is written by iteration ``n >= k`` only:
          the iterations before ``k`` and the pre-pass read nothing of the new messages (point
          1), so ``X_B`` holds no span of it, and an assistant range lies within one iteration.
          An iteration's spans, like its text, are a function of what it reads (its values and
          their paths, ``messages[j]`` in ``B`` being ``messages[j - s + a]`` in ``W_B``, ``a``
          anchors and ``s`` the run's start), so ``Y_B``'s spans and ranges are ``Y'_B``'s moved
          by ``x - p``: the window gives the same closing and the same text after the end of
          the turn (``R(W_B)[end - x + p:] == R(B)[end:]``).
        - *The offset.*  The full path reports ``min(d, r)`` with ``d`` the first offset where
          ``R(B)`` departs from the sampled ``T_A + completion`` (``T_A``: this turn's text; the
          length of the shorter when neither departs) and ``r`` this turn's offset (none: ``d``).
          Each offset so reported is at most where its turn's text departs from its render
          (``d`` is, as ``T_A + completion`` is a prefix of the new text): so ``T_A[:r] ==
          R(A)[:r]``.  When ``r`` is ``None``, ``T_A == R(A) = X_A + Y_A`` and ``d = x +
          diff(Y_A + completion, Y_B) = (x - p) + diff(R(W_A) + completion, R(W_B))``, with ``x
          - p = L - len(R(W_A))``: exact from the windows.  When ``r < L - len(R(W_A))`` (which
          is ``x - p <= x``): ``R(B)[:r] == X_B[:r] == X_A[:r] == R(A)[:r] == T_A[:r]``, so ``d
          >= r`` and the offset is ``r``.  Otherwise (``r`` may lie at or after iteration ``k``,
          where the windows do not place it): ``None``, the full render decides.
        """
        if self.length is None:
            return None
        windows = self._windows(name, messages, add_generation_prompt, True)
        if windows is None:
            return None
        before, rendering, index, state = windows
        after = rendering.text
        below = self.length - len(before)  # x - p: a lower bound of where iteration k starts
        if rewritten is None:
            sampled = before + completion
            if after.startswith(sampled):  # the template keeps it: not this policy's case
                return None
            rewritten = below + _departure(sampled, after)
        elif not rewritten < below:
            return None
        appended = _appended(rendering, index, completion)
        if appended is None:  # the full render decides (and answers None there too)
            return None
        return appended, rewritten, _Context(
            self.port, self.calls, messages, self.variables, self.now, add_generation_prompt,
            self.rule, state, None, True, self.length + len(after) - len(before))


def _context(name: Any, messages: list[Any], variables: dict[str, Any], text: str) -> _Context | None:
    """The :class:`_Context` of a first prompt, or ``None`` when rendering from it does not give
    ``text`` (a keyword the pipeline treats itself, a batch)."""
    from . import _core, _window
    from ._registry import get_format
    from ._registry import port as registry_port

    try:  # the pipeline's own steps, one by one (without them: the full pipeline every turn)
        from .pipeline import _TOKENIZER_ONLY_PARAMS, _conversation, _plain, _room, _tool_schemas
    except ImportError:
        return None

    kwargs = {k: v for k, v in variables.items() if k not in ("tools", "documents", "now")}
    if _TOKENIZER_ONLY_PARAMS.intersection(kwargs) or "continue_final_message" in kwargs \
            or variables.get("documents") is not None:
        return None
    try:
        fmt = get_format(name)
        port, calls, _ = registry_port(name)
        template = _plain({**fmt.special_tokens, **kwargs}, _room(0))
        tools = variables.get("tools")
        template["tools"] = _plain(None if tools is None else _tool_schemas(tools), _room(1))
        template["documents"] = None
        template["add_generation_prompt"] = True
        converted = _conversation(messages)
        rule = _window.rule(name)
        state = rule.start(converted) if rule is not None else None
        context = _Context(port, calls, converted, template, variables["now"], True,
                           rule if state is not None else None, state, None, False, len(text))
        if _core.call_port(name, port, calls, context.messages, template, context.now) != text:
            return None
    except ChatFormatError:
        return None
    return context


def _encoder(tokenizer: Any) -> Any:
    if tokenizer is None:
        return None
    from .ids import encoder

    return encoder(tokenizer)


def start(name: Any, messages: Any, *, tokenizer: Any = None, tools: Any = None,
          now: datetime | None = None, **variables: Any) -> Turn:
    """The first prompt of a rollout: ``apply_chat_template(name, messages, tools=tools,
    add_generation_prompt=True, now=now, **variables)``, encoded with ``tokenizer`` when given.
    ``now`` is fixed here for the whole rollout (default: the current time)."""
    from . import _core
    from .pipeline import apply_chat_template

    if _core.is_batch(messages):  # a rollout grows one conversation
        raise _core.batch_given(messages)
    if now is None:
        now = datetime.now()
    variables = dict(variables, tools=tools, now=now)
    text = apply_chat_template(name, list(messages), add_generation_prompt=True, **variables)
    enc = _encoder(tokenizer)
    ids = enc.ids(text) if enc is not None else None
    return Turn(text, ids, tuple(messages), variables, text, None,
                _context(name, list(messages), variables, text))


def bridge(name: Any, prompt: Turn, completion: Any, new_messages: Any, *, tokenizer: Any = None,
           policy: str = "template", add_generation_prompt: bool = True,
           message: Any = None) -> Turn | None:
    """The next prompt after ``prompt`` (a :class:`Turn`), the ``completion`` sampled from it
    (its text, or its token ids with ``tokenizer``) and ``new_messages`` (tool results, a user
    turn), or ``None`` when the template would not render that history as it was sampled (or
    the completion is not a turn of the format) under ``policy="template"``.

    With ``tokenizer``, ``ids`` are ``prompt.ids``, the completion's ids (as given; encoded
    alone when the completion is text) and the encoding of the appended text alone.  ``message``
    is the completion read back as a message; by default :func:`chatformats.parse_response`
    reads it (a format with no parser needs it given)."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, not {policy!r}")
    from .parsing import parse_response
    from .pipeline import apply_chat_template, apply_chat_template_spans

    enc = _encoder(tokenizer)
    if isinstance(completion, str):
        text = completion
        completion_ids = enc.ids(text) if enc is not None else None
    else:
        if enc is None:
            raise TypeError("a completion given as token ids needs tokenizer=")
        completion_ids = list(completion)
        text = enc.decode(completion_ids)
    variables = prompt.variables
    if message is None:
        try:
            message = parse_response(name, text, prefix=prompt.appended, tools=variables.get("tools"))
        except ParseError:
            return None
        message = _read_back(name, message)
    new = (message, *new_messages)
    context = prompt.context
    messages: list[Any] = []
    if context is not None:
        from .pipeline import _conversation

        messages = context.extended(_conversation(new))
    if context is not None and prompt.rewritten is None:
        # the window's argument takes prompt.text to be the render of its messages
        windowed = context.window(name, messages, add_generation_prompt, text)
        if windowed is not None:
            appended, context = windowed
            return _turn(appended, text, prompt, completion_ids, enc, new, variables, None, context)
    if policy == "sampled" and context is not None:
        # the template rewrites what was sampled (or rewrote it before), or the window cannot
        # tell: the windows of the sampled policy, where they can tell
        answer = context.sampled(name, messages, add_generation_prompt, text, prompt.rewritten)
        if answer is not None:
            appended, rewritten, context = answer
            return _turn(appended, text, prompt, completion_ids, enc, new, variables,
                         rewritten, context)
    sampled = prompt.text + text
    if policy == "template" or prompt.rewritten is None:
        if context is not None:
            full, context = context.render(name, messages, add_generation_prompt)
        else:
            full = apply_chat_template(name, [*prompt.messages, *new],
                                       add_generation_prompt=add_generation_prompt, **variables)
        if full.startswith(sampled):
            return _turn(full[len(sampled):], text, prompt, completion_ids, enc, new,
                         variables, prompt.rewritten, context, full)
        if policy == "template":
            return None
    history = [*prompt.messages, *new]
    rendering = apply_chat_template_spans(name, history, add_generation_prompt=add_generation_prompt,
                                          **variables)
    full = rendering.text
    extension = _appended(rendering, len(prompt.messages), text)
    if extension is None:  # the template does not render the completion's turn: nothing to extend
        return None
    rewritten = _departure(sampled, full)
    if prompt.rewritten is not None:
        rewritten = min(rewritten, prompt.rewritten)
    if prompt.context is not None:  # the context of the conversation rendered here
        context = prompt.context.rendered(messages, add_generation_prompt, len(full))
    return _turn(extension, text, prompt, completion_ids, enc, new, variables, rewritten, context)


def _read_back(name: Any, message: Any) -> Any:
    """The parsed completion as the template reads it: its ``reasoning_content`` moved to the
    field the format's template reads reasoning from, where the pipeline does not alias it
    (``solar-open`` reads ``reasoning``, which transformers never fills); otherwise as parsed."""
    from ._registry import get_format
    from .pipeline import _ALIASED_FIELDS

    field = get_format(name).reasoning_field
    if field in _ALIASED_FIELDS or "reasoning_content" not in message:
        return message
    moved = type(message)((key, value) for key, value in message.items() if key != "reasoning_content")
    moved[field] = message["reasoning_content"]
    moved.diagnostics = message.diagnostics
    return moved


def _turn(appended: str, completion: str, prompt: Turn, completion_ids: Any, enc: Any,
          new: tuple[Any, ...], variables: dict[str, Any], rewritten: int | None,
          context: _Context | None, text: str | None = None) -> Turn:
    """The turn after ``prompt``: its text (``text`` when the caller has it whole), ids and
    messages followed by the completion (its message: ``new[0]``), what was appended and the
    new messages."""
    ids = None
    if enc is not None:
        before = prompt._ids if prompt._ids is not None else enc.ids(prompt.text)
        ids = Joined(before, (completion_ids, enc.ids(appended)))
    return Turn(Joined(prompt._text, (completion, appended)) if text is None else text, ids,
                Joined(prompt._messages, (new,)), variables, appended, rewritten, context)


def _of_message(source: str | None, prefix: str) -> bool:
    """Whether the input path ``source`` lies in the message whose path is ``prefix``
    (``messages[3]``): the path is that prefix, or it followed by a field (``messages[3].content``)."""
    return source is not None and source.startswith(prefix)


def _departure(a: str, b: str) -> int:
    """The first offset where ``a`` and ``b`` differ (the shorter one's length where neither
    departs from the other)."""
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def _appended(rendering: Any, index: int, completion: str) -> str | None:
    """What the sampled policy appends after ``completion``, message ``index`` of the
    ``rendering`` (with spans): the closing of its turn where the completion lacks it, then the
    render from the end of that turn on; ``None`` when the template does not render its turn."""
    end = _turn_end(rendering, index)
    if end is None:
        return None
    closing = _closing(rendering, index, end)
    text: str = rendering.text
    return ("" if completion.endswith(closing) else closing) + text[end:]


def _turn_end(rendering: Any, index: int) -> int | None:
    """The end of message ``index``'s assistant range: the first range that ends after the first
    character the message put in the text (its role, in a header before the range); ``None``
    when the message put nothing in the text or no range follows it."""
    prefix = f"messages[{index}]"
    first = next((span.start for span in rendering.spans if _of_message(span.source, prefix)), None)
    if first is None:
        return None
    for _, end in rendering.assistant_spans:
        if end > first:
            return int(end)
    return None


def _closing(rendering: Any, index: int, end: int) -> str:
    """The template text that ends message ``index``'s turn: from the end of its last sourced
    span in the turn to ``end``."""
    prefix = f"messages[{index}]"
    last = max((span.end for span in rendering.spans
                if span.end <= end and _of_message(span.source, prefix)), default=end)
    text: str = rendering.text[last:end]
    return text


# ------------------------------------------------------------------ prefix stability

#: The appends :func:`prefix_stable` checks, each on histories that end where it applies.
APPENDS = ("tool", "user", "assistant", "generation_prompt")

_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the weather.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
_CALL = {"id": "call_1", "type": "function",
         "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}
#: The same call with its arguments as JSON text, the only shape some templates take (DeepSeek's
#: concatenate them to a string): a probe that fails on the mapping is tried with this one.
_CALL_TEXT = {"id": "call_1", "type": "function",
              "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
_USER = {"role": "user", "content": "What is the weather in Oslo?"}
_ANSWER = {"role": "assistant", "content": "It is sunny.", "reasoning_content": "The tool said so."}
_CALLING = {"role": "assistant", "content": "", "reasoning_content": "Ask the tool.", "tool_calls": [_CALL]}
_CALLING_PLAIN = {"role": "assistant", "content": "", "tool_calls": [_CALL]}
_CALLING_SAID = {"role": "assistant", "content": "Let me check.", "tool_calls": [_CALL]}
_CALLING_TWICE = {"role": "assistant", "content": "", "tool_calls": [_CALL, _CALL]}
_ANSWER_PLAIN = {"role": "assistant", "content": "It is sunny."}
_RESULT = {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "sunny"}
_SYSTEM = {"role": "system", "content": "Be brief."}
#: The probes' clock (a format that prints the date prints the same one on both sides).
_NOW = datetime(2026, 3, 7, 14, 5, 9)

#: ``append -> [(history, appended message or None for the generation prompt, earlier render has
#: the generation prompt)]``: the probes, every history with and without a system message.
_PROBES: dict[str, list[tuple[list[dict[str, Any]], dict[str, Any] | None, bool]]] = {
    "tool": [([_USER, _CALLING], _RESULT, False), ([_USER, _CALLING, _RESULT, _CALLING], _RESULT, False),
             ([_USER, _CALLING_PLAIN], _RESULT, False)],
    "user": [([_USER, _ANSWER], _USER, False), ([_USER, _CALLING, _RESULT, _ANSWER], _USER, False),
             ([_USER, _ANSWER_PLAIN], _USER, False)],
    "assistant": [([_USER], _ANSWER, True), ([_USER, _CALLING, _RESULT], _ANSWER, True),
                  ([_USER], _CALLING, True), ([_USER], _ANSWER_PLAIN, True),
                  ([_USER], _CALLING_PLAIN, True), ([_USER], _CALLING_SAID, True),
                  ([_USER], _CALLING_TWICE, True), ([_USER, _CALLING, _RESULT], _CALLING, True)],
    "generation_prompt": [([_USER], None, False), ([_USER, _CALLING, _RESULT], None, False)],
}


def _as_text(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The probe ``messages`` with each call's arguments as JSON text."""
    return [{**m, "tool_calls": [_CALL_TEXT] * len(m["tool_calls"])} if m.get("tool_calls") else m
            for m in messages]


def prefix_stable(name: Any, **variables: Any) -> dict[str, str | None]:
    """For each append of :data:`APPENDS` (a tool result after a tool call, a user turn after an
    assistant turn, an assistant turn after the generation prompt, the generation prompt after a
    user turn), ``None`` when the render before it is a prefix of the render after it on every
    probe conversation the template renders (with the ``tools`` of a weather tool, and
    ``variables``; a probe the template refuses, as Llama's templates refuse two calls in one
    turn, says nothing), else why not: the first offset where they differ, the two texts there
    and the input the earlier text came from (or, when the template refuses every probe, that).  ``scripts/prefix_table.py`` checks these answers against a property run."""
    from .pipeline import apply_chat_template_spans

    variables.setdefault("tools", [_TOOL])
    variables.setdefault("now", _NOW)
    out: dict[str, str | None] = {}
    for append in APPENDS:
        out[append] = None
        rendered = 0
        refusal: ChatFormatError | None = None
        for history in (lambda h: h, lambda h: [_SYSTEM, *h]):
            for base, message, prompted in _PROBES[append]:
                messages = history(base)
                later_messages = messages if message is None else [*messages, message]
                try:
                    try:
                        earlier = apply_chat_template_spans(name, messages, add_generation_prompt=prompted,
                                                            **variables)
                        later = apply_chat_template_spans(name, later_messages,
                                                          add_generation_prompt=message is None,
                                                          **variables)
                    except ChatFormatError as exc:  # the arguments' other shape, if it renders
                        refusal = refusal or exc
                        earlier = apply_chat_template_spans(name, _as_text(messages),
                                                            add_generation_prompt=prompted, **variables)
                        later = apply_chat_template_spans(name, _as_text(later_messages),
                                                          add_generation_prompt=message is None,
                                                          **variables)
                except ChatFormatError:
                    # the template refuses this history (Llama's one call per turn): there is no
                    # render to keep as a prefix, so the probe says nothing either way
                    continue
                rendered += 1
                reason = why_not_prefix(earlier, later.text)
                if reason is not None:
                    out[append] = reason
                    break
            if out[append] is not None:
                break
        if out[append] is None and not rendered:
            out[append] = f"no probe renders: {refusal}"
    return out


def why_not_prefix(earlier: Any, later: str) -> str | None:
    """``None`` when ``earlier.text`` (a ``Rendering``) is a prefix of ``later``, else where and
    why not."""
    text = earlier.text
    if later.startswith(text):
        return None
    at = _departure(text, later)
    source = next((span.source for span in earlier.spans if span.start <= at < span.end), None)
    what = "template text" if source is None else source
    return (f"at offset {at} the earlier render has {text[at:at + 24]!r} ({what}), "
            f"the longer one {later[at:at + 24]!r}")
