"""The engines compared, each built once per format and called as ``engine(workload) -> str``.

- ``chatformats`` — ``chatformats.render(name, messages, now=NOW, **variables)``: the template
  layer, what the jinja2 and minijinja engines do.
- ``chatformats.apply`` — ``chatformats.apply_chat_template(name, messages, tools=...,
  add_generation_prompt=True, now=NOW)``: the pipeline layer, what transformers'
  ``apply_chat_template`` does (normalise messages, alias reasoning fields, merge special tokens);
  included when the package has it.
- ``chatformats.spans`` / ``chatformats.apply_spans`` — ``chatformats.render_spans(...)`` and
  ``chatformats.apply_chat_template_spans(...)`` with the same arguments as the two above, their
  ``.text`` checked like every engine's output, after reading ``.spans`` and ``.assistant_spans``
  (worked out when first read): what recording and reading the spans costs (the
  ``render_spans/render`` and ``apply_spans/apply`` ratios; each ``Span`` record and its path
  string are made when the spans are iterated, not counted); not built for a format whose port
  does not record spans yet.
- ``chatformats.nospans`` — ``chatformats.render`` as the ``chatformats`` engine calls it, with the
  format's port replaced by a copy without its spans code (``benchmarks/nospans.py``): timed
  against ``chatformats`` on its own (``spans_off.py``), not in the main rounds.
- ``jinja2`` — the reference template compiled once by transformers' own
  ``chat_template_utils._compile_jinja_template`` (its ``ImmutableSandboxedEnvironment``, filters
  and globals: exactly the environment every transformers-based server renders in), then
  ``template.render(messages=..., **variables)`` per request.  This is the reference output.
- ``transformers`` — ``tokenizer.apply_chat_template(messages, tools=..., add_generation_prompt=
  True, tokenize=False)`` on a tokenizer built in-process by ``chatformats.verify.transformers_tokenizer``
  (a ``tokenizers`` WordLevel model whose vocabulary is the special tokens, wrapped in
  ``PreTrainedTokenizerFast`` with the format's special tokens and ``chat_template=`` the
  reference template; no download).
- ``minijinja`` — minijinja-py's ``Environment(trim_blocks=True, lstrip_blocks=True)`` (Python
  string methods through its default ``pycompat`` mode), with transformers' ``tojson`` filter,
  ``raise_exception`` and ``strftime_now`` as Python callbacks, the template added once and
  rendered with ``render_template(name, messages=..., **variables)``.

The clock: every engine sees ``NOW``.  transformers' ``strftime_now`` reads the module global
``datetime`` of ``transformers.utils.chat_template_utils`` at call time, so :func:`fix_clock`
replaces that name for the whole run (both the ``jinja2`` and the ``transformers`` engines use
it); minijinja's ``strftime_now`` formats ``NOW``; chatformats gets ``now=NOW``.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Callable, Dict, Optional, Tuple

NOW = datetime(2026, 3, 7, 14, 5, 9)

Engine = Callable[[Dict[str, Any]], str]

#: Report order.
ENGINES = ("chatformats", "chatformats.apply", "chatformats.spans", "chatformats.apply_spans", "jinja2",
           "transformers", "minijinja")


def variables(name: str, workload: Dict[str, Any]) -> Dict[str, Any]:
    """The template variables of one request at the template layer: what transformers passes
    to the template for ``apply_chat_template(messages, tools=..., add_generation_prompt=True)``
    (``tools`` and ``documents`` are always passed, ``None`` when absent, and the tokenizer's
    special tokens are merged in)."""
    import chatformats

    out: Dict[str, Any] = dict(chatformats.get_format(name).special_tokens)
    out["tools"] = workload.get("tools")
    out["documents"] = None
    out["add_generation_prompt"] = True
    return out


class _FixedClock(datetime):
    @classmethod
    def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
        return NOW if tz is None else NOW.replace(tzinfo=tz)


def fix_clock() -> None:
    """Make transformers' ``strftime_now`` read ``NOW`` (for the rest of the process)."""
    from transformers.utils import chat_template_utils as tcu

    tcu.datetime = _FixedClock  # type: ignore[misc]


def chatformats_render(name: str) -> Engine:
    import chatformats

    render = chatformats.render

    def engine(workload: Dict[str, Any]) -> str:
        return render(name, workload["messages"], now=NOW, **workload["variables"])

    return engine


def chatformats_apply(name: str) -> Optional[Engine]:
    import chatformats

    apply = getattr(chatformats, "apply_chat_template", None)
    if apply is None:
        return None

    def engine(workload: Dict[str, Any]) -> str:
        return apply(name, workload["messages"], tools=workload.get("tools"),  # type: ignore[no-any-return]
                     add_generation_prompt=True, now=NOW)

    return engine


def chatformats_spans(name: str) -> Engine:
    import chatformats
    render_spans = chatformats.render_spans

    def engine(workload: Dict[str, Any]) -> str:
        rendering = render_spans(name, workload["messages"], now=NOW, **workload["variables"])
        rendering.spans, rendering.assistant_spans  # worked out when first read: read both
        return rendering.text

    return engine


def chatformats_apply_spans(name: str) -> Engine:
    import chatformats
    apply_spans = chatformats.apply_chat_template_spans

    def engine(workload: Dict[str, Any]) -> str:
        rendering = apply_spans(name, workload["messages"], tools=workload.get("tools"),
                                add_generation_prompt=True, now=NOW)
        rendering.spans, rendering.assistant_spans  # type: ignore[union-attr]
        return rendering.text  # type: ignore[union-attr]

    return engine


def chatformats_nospans(name: str) -> Engine:
    import chatformats

    from .nospans import register

    key = register(name)  # the format with the copy as its port (ChatFormat.with_port)
    render = chatformats.render

    def engine(workload: Dict[str, Any]) -> str:
        return render(key, workload["messages"], now=NOW, **workload["variables"])

    return engine


def jinja2_engine(name: str) -> Engine:
    import chatformats
    from transformers.utils import chat_template_utils as tcu

    template = tcu._compile_jinja_template(chatformats.get_format(name).template_source())
    render = template.render

    def engine(workload: Dict[str, Any]) -> str:
        return render(messages=workload["messages"], **workload["variables"])  # type: ignore[no-any-return]

    return engine


def tokenizer(name: str) -> Any:
    """A fast tokenizer carrying format ``name``'s reference template and special tokens: the
    one builder the CLI's ``verify`` and the tests use too (``chatformats.verify``)."""
    from chatformats import verify

    return verify.transformers_tokenizer(name)


def transformers_engine(name: str) -> Engine:
    apply = tokenizer(name).apply_chat_template

    def engine(workload: Dict[str, Any]) -> str:
        return apply(workload["messages"], tools=workload.get("tools"),  # type: ignore[no-any-return]
                     add_generation_prompt=True, tokenize=False)

    return engine


def minijinja_engine(name: str) -> Engine:
    """minijinja as benchmarked: Python string methods (``pycompat``) and transformers'
    ``tojson``, ``raise_exception`` and ``strftime_now`` as Python callbacks."""
    return minijinja_probe(name, pycompat=True, transformers_tojson=True)


def minijinja_probe(name: str, pycompat: bool, transformers_tojson: bool) -> Engine:
    """minijinja with or without ``pycompat`` (Python string methods) and transformers'
    ``tojson`` (minijinja's own escapes ``'``, ``<``, ``>``, ``&`` for HTML): both on is the
    benchmarked engine; the other settings record what it needs."""
    import chatformats
    import minijinja

    def tojson(x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None,
               sort_keys: bool = False) -> str:
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                          sort_keys=sort_keys)

    def raise_exception(message: Any) -> None:
        raise minijinja.TemplateError(str(message))

    env = minijinja.Environment(trim_blocks=True, lstrip_blocks=True, pycompat=pycompat)
    if transformers_tojson:
        env.add_filter("tojson", tojson)
    env.add_function("raise_exception", raise_exception)
    env.add_function("strftime_now", lambda fmt: NOW.strftime(fmt))
    env.add_template(name, chatformats.get_format(name).template_source())
    render = env.render_template

    def engine(workload: Dict[str, Any]) -> str:
        return render(name, messages=workload["messages"], **workload["variables"])  # type: ignore[no-any-return]

    return engine


BUILDERS: Dict[str, Callable[[str], Optional[Engine]]] = {
    "chatformats": chatformats_render,
    "chatformats.apply": chatformats_apply,
    "chatformats.spans": chatformats_spans,
    "chatformats.apply_spans": chatformats_apply_spans,
    "chatformats.nospans": chatformats_nospans,
    "jinja2": jinja2_engine,
    "transformers": transformers_engine,
    "minijinja": minijinja_engine,
}


def build(engine: str, name: str) -> Tuple[Optional[Engine], str]:
    """``(callable, "")``, or ``(None, why)`` when the engine is not available."""
    try:
        return BUILDERS[engine](name), ""
    except ImportError as exc:
        return None, f"not installed: {exc}"
    except Exception as exc:  # noqa: BLE001 — e.g. a template minijinja cannot parse
        return None, f"{type(exc).__name__}: {exc}"
