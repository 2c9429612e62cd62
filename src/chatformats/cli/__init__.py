"""The ``chatformats`` command (also ``python -m chatformats``).

    chatformats formats                          the formats and their status
    chatformats show FORMAT                      model ids, special tokens, template, variables
    chatformats render FORMAT FILE               render one conversation (FILE or - for stdin)
    chatformats render FORMAT --jsonl IN [-o OUT] [--workers N]
                                                 render a JSONL dataset into JSONL
    chatformats verify FORMAT FILE|--jsonl IN    render with the port and with the reference
                                                 template, and show any difference
    chatformats parse FORMAT FILE|- [--prefix FILE] [--stream]
                                                 read a completion back into a message
    chatformats request FORMAT FILE              the prompt a vLLM server builds for an OpenAI
                                                 chat-completions request body

An input is a list of messages; an OpenAI chat-completions request body (``messages``,
``tools``, ``chat_template_kwargs`` as vLLM and SGLang accept them); or an object with
``messages``, ``tools`` and template variables.

Exit status: 0 success; 1 an input or a render failed (for ``--jsonl``: at least one line
failed, every other line is still written), or the run could not finish (an input or the
output cannot be read or written, a worker process died); 2 usage error (bad arguments,
unknown format); 3 ``verify`` found a difference; 4 ``verify`` cannot run (jinja2, or
transformers for the pipeline layer, is not installed); 130 interrupted (SIGINT, Ctrl-C);
143 terminated (SIGTERM).  Every failure is one line on stderr (``--jsonl`` adds the failed
lines, one per line).

The modules beside this one hold one concern each: :mod:`.io` (reading any stream, writing
``-o`` atomically), :mod:`.workers` (worker processes, interrupts).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
import contextlib
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any, Callable, Iterator, Sequence

from .._registry import ChatFormat, formats, get_format
from ..errors import ChatFormatError, TemplateError
from . import io as _io
from .workers import Interrupted, Interrupts, WorkerDied, WorkerPool
from .common import (
    EXIT_DIFFERENT,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_NO_REFERENCE,
    EXIT_OK,
    EXIT_USAGE,
    InputError,
    UsageError,
    _describe,
    _name,
    _parse_now,
    _read_json,
    _resolve_format,
    _too_long,
    _write_stdout,
)

__all__ = ["main", "EXIT_OK", "EXIT_FAILED", "EXIT_USAGE", "EXIT_DIFFERENT", "EXIT_NO_REFERENCE",
           "EXIT_INTERRUPTED"]

LAYERS = ("template", "pipeline")

#: The variables each template reads from its caller (besides ``messages``): the registry's
#: ``variables``.  ``tests/test_cli.py`` checks this table against jinja2.
TEMPLATE_VARIABLES: dict[str, tuple[str, ...]] = {
    name: get_format(name).variables or () for name in formats()
}

#: Names the Python API takes for itself: not usable as template variables from the command line.
_RESERVED = frozenset({"messages", "name", "now"})
#: The pipeline layer's named parameters, taken out of the variables.
_PIPELINE_PARAMS = ("tools", "documents", "add_generation_prompt", "continue_final_message")
#: Top-level fields of an OpenAI chat-completions request that vLLM forwards to the template.
_REQUEST_TEMPLATE_FIELDS = ("add_generation_prompt", "continue_final_message", "documents")


# ------------------------------------------------------------------ inputs


@dataclass
class Conversation:
    """One input, as the layers take it: the messages and the template variables."""

    messages: Any
    variables: dict[str, Any] = field(default_factory=dict)
    #: From an OpenAI request body: its ``chat_template_kwargs`` are meant for whichever model
    #: serves it (a server drops the names a template does not read), so they draw no warning.
    from_request: bool = False


def parse_conversation(data: Any) -> Conversation:
    """The three input shapes.

    - a list of messages;
    - an OpenAI chat-completions request body (an object with ``messages`` and ``model`` or
      ``chat_template_kwargs``): ``messages``, ``tools``, the fields vLLM forwards to the
      template (``add_generation_prompt``, ``continue_final_message``, ``documents``) when
      present, then ``chat_template_kwargs`` merged over them, as vLLM merges them; every
      other field (``model``, ``temperature``, ``stream``, ...) is ignored;
    - any other object with ``messages``: every other key is a template variable.
    """
    if isinstance(data, list):
        return Conversation(data)
    if not isinstance(data, dict):
        raise InputError(
            f"expected a list of messages or an object with \"messages\", got {_json_type(data)}"
        )
    if "messages" not in data:
        raise InputError(
            "expected a list of messages or an object with \"messages\" "
            f"(an OpenAI chat-completions request body); found keys: {_keys(data)}"
        )
    messages = data["messages"]
    if "model" in data or "chat_template_kwargs" in data:
        variables: dict[str, Any] = {}
        if "tools" in data:
            variables["tools"] = data["tools"]
        for name in _REQUEST_TEMPLATE_FIELDS:
            if name in data:
                variables[name] = data[name]
        kwargs = data.get("chat_template_kwargs")
        if kwargs is not None:
            if not isinstance(kwargs, dict):
                raise InputError(
                    f"chat_template_kwargs: expected an object, got {_json_type(kwargs)}"
                )
            variables.update(kwargs)
    else:
        variables = {key: value for key, value in data.items() if key != "messages"}
    reserved = sorted(_RESERVED.intersection(variables))
    if reserved:
        raise InputError(
            f"{reserved[0]}: cannot be a template variable (chatformats' own parameter)"
        )
    from_request = "model" in data or "chat_template_kwargs" in data
    return Conversation(messages, variables, from_request=from_request)


def _json_type(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}.get(type(value), "a value")


def _keys(data: dict[str, Any]) -> str:
    keys = list(data)
    shown = ", ".join(json.dumps(k, ensure_ascii=False) for k in keys[:8])
    return (shown + (", ..." if len(keys) > 8 else "")) or "none"


# ------------------------------------------------------------------ rendering


@dataclass(frozen=True)
class Options:
    """What the command line decides for every input (picklable, sent to worker processes)."""

    format: str
    layer: str = "pipeline"
    generation_prompt: bool = False
    now: datetime | None = None
    variables: tuple[tuple[str, Any], ...] = ()

    def clock(self) -> datetime:
        return self.now if self.now is not None else datetime.now()


def _variables(conv: Conversation, opts: Options) -> dict[str, Any]:
    variables = dict(conv.variables)
    variables.update(opts.variables)
    if opts.generation_prompt:
        variables["add_generation_prompt"] = True
    return variables


#: transformers' own ``apply_chat_template`` parameters: the pipeline layer treats (or refuses)
#: them itself, so they are no template variables to warn about.
_TRANSFORMERS_PARAMS = frozenset({
    "tokenize", "chat_template", "padding", "truncation", "max_length", "return_tensors",
    "return_dict", "return_assistant_tokens_mask", "tokenizer_kwargs", "sanitize_control_tokens",
})

#: Unknown variables already reported by this process (each set once per run).
_WARNED: set[tuple[str, tuple[str, ...]]] = set()


def warn_unknown_variables(format_name: str, names: Any) -> None:
    """One line on stderr when ``names`` holds variables the template never reads (a typo such
    as ``enable_thinkng`` renders without a word otherwise), listing those it reads."""
    fmt = get_format(format_name)
    if fmt.variables is None:
        return
    known = (set(fmt.variables) | set(_PIPELINE_PARAMS) | set(fmt.special_tokens)
             | _TRANSFORMERS_PARAMS)
    unknown = tuple(sorted(set(names) - known))
    if not unknown or (fmt.name, unknown) in _WARNED:
        return
    _WARNED.add((fmt.name, unknown))
    sys.stderr.write(
        f"chatformats: warning: {fmt.name} does not read {', '.join(unknown)} (a typo?); "
        f"the template reads {', '.join(fmt.variables) or 'no variables'}\n"
    )


def render_conversation(conv: Conversation, opts: Options) -> str:
    """Render one input at the chosen layer; raises :class:`ChatFormatError` or
    :class:`InputError`."""
    variables = _variables(conv, opts)
    if conv.variables and not conv.from_request:
        warn_unknown_variables(opts.format, conv.variables)
    now = opts.clock()
    try:
        if opts.layer == "template":
            return get_format(opts.format).render(conv.messages, now=now, **variables)
        apply_chat_template = _apply_chat_template()
        params = {name: variables.pop(name) for name in _PIPELINE_PARAMS if name in variables}
        result = apply_chat_template(opts.format, conv.messages, now=now, **params, **variables)
    except ChatFormatError:
        raise
    except TypeError as exc:  # a variable the Python API refuses (tokenize, chat_template, ...)
        raise InputError(str(exc)) from None
    if not isinstance(result, str):
        raise InputError(
            "messages: a batch of conversations (a list of lists); give one conversation per "
            "line with --jsonl"
        )
    return result


def _apply_chat_template() -> Callable[..., Any]:
    """The pipeline layer, imported on first use."""
    module = importlib.import_module("chatformats.pipeline")
    fn: Callable[..., Any] = module.apply_chat_template
    return fn


def _parse_line(raw: bytes, lineno: int) -> Conversation:
    """One JSONL line to a conversation (raises :class:`InputError`)."""
    try:
        text = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 (byte {exc.start + 1})") from None
    text = text.rstrip("\r\n")
    if not text.strip():
        raise InputError("blank line: expected one conversation as JSON")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON at column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply") from None
    except ValueError as exc:  # an integer longer than Python converts from text
        raise InputError(f"invalid JSON: {_too_long(exc)}") from None
    return parse_conversation(data)


def _dumps_line(record: dict[str, Any]) -> bytes:
    text = json.dumps(record, ensure_ascii=False)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # a lone surrogate: keep the exact text, \u-escaped
        return json.dumps(record, ensure_ascii=True).encode("ascii") + b"\n"


def render_line(opts: Options, item: tuple[int, bytes]) -> tuple[int, bytes, str | None]:
    """Worker: one JSONL line to ``(line number, output line, error or None)``."""
    lineno, raw = item
    try:
        conv = _parse_line(raw, lineno)
        prompt = render_conversation(conv, opts)
    except (ChatFormatError, InputError) as exc:
        error = _describe(exc)
    except MemoryError:  # a resource error, not a bug: this line alone fails
        error = "MemoryError: out of memory while rendering this line"
    except Exception as exc:  # noqa: BLE001 — a bug must not cost the other lines either
        error = _describe(exc) + " (this is a chatformats bug)"
    else:
        return lineno, _dumps_line({"prompt": prompt}), None
    return lineno, _dumps_line({"error": error, "line": lineno}), error


# ------------------------------------------------------------------ files and progress


class _Progress:
    """A progress bar on stderr for long runs: tqdm when installed, else a plain counter.
    Shown only after the first second, and only when ``enabled``."""

    def __init__(self, enabled: bool, total: int | None, unit: str) -> None:
        self.enabled = enabled
        self.total = total
        self.unit = unit
        self.count = 0
        self.errors = 0
        self.started = time.monotonic()
        self.last = 0.0
        self.bar: Any = None
        if enabled:
            try:
                tqdm = importlib.import_module("tqdm").tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(total=total, unit=f" {unit}", file=sys.stderr, delay=1.0,
                                dynamic_ncols=True)

    def update(self, n: int, errors: int) -> None:
        self.count += n
        self.errors += errors
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(n)
            if errors:
                self.bar.set_postfix(errors=self.errors, refresh=False)
            return
        now = time.monotonic()
        if now - self.started >= 1.0 and now - self.last >= 0.25:
            self.last = now
            self._write()

    def _write(self) -> None:
        of = f"/{self.total}" if self.total is not None else ""
        sys.stderr.write(f"\r{self.count}{of} {self.unit}, {self.errors} failed")
        sys.stderr.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.enabled and self.last:  # the counter was shown: its final state, then a newline
            self._write()
            sys.stderr.write("\n")
            sys.stderr.flush()


# ------------------------------------------------------------------ commands


def _ported(name: str) -> ChatFormat:
    fmt = _resolve_format(name)
    if fmt.status != "ported":
        raise InputError(f"format {fmt.name!r} is not ported yet (status: {fmt.status})")
    return fmt


def _options(args: argparse.Namespace, fmt: ChatFormat) -> Options:
    now = args.now if args.now is not None else datetime.now()
    warn_unknown_variables(fmt.name, [name for name, _ in args.var])
    return Options(format=fmt.name, layer=args.layer, generation_prompt=args.generation_prompt,
                   now=now, variables=tuple(args.var))


def _cmd_formats(args: argparse.Namespace) -> int:
    rows = [get_format(name) for name in formats()]
    if args.json:
        _print_json([{"name": f.name, "status": f.status, "model_ids": list(f.model_ids),
                      "variant_of": f.variant_of or None, "description": f.description}
                     for f in rows])
        return EXIT_OK
    for fmt in rows:
        models = ", ".join(fmt.model_ids) or "-"
        print(f"{fmt.name:24} {fmt.status:8} {fmt.description or models}")
    return EXIT_OK


def _cmd_show(args: argparse.Namespace) -> int:
    fmt = _resolve_format(args.format)
    info: dict[str, Any] = {
        "name": fmt.name,
        "description": fmt.description,
        "status": fmt.status,
        "model_ids": list(fmt.model_ids),
        "variant_of": fmt.variant_of or None,
        "special_tokens": dict(fmt.special_tokens),
        "template": str(fmt.template_path),
        "sha256": fmt.template_sha256,
        "template_verified": _template_check(fmt) == "verified",
        "variables": list(TEMPLATE_VARIABLES.get(fmt.name, ())),
    }
    if args.json:
        _print_json(info)
        return EXIT_OK
    tokens = "  ".join(f"{k}={json.dumps(v, ensure_ascii=False)}"
                       for k, v in fmt.special_tokens.items())
    lines = [
        ("format", fmt.name),
        ("description", fmt.description or "-"),
        ("status", fmt.status),
        ("model ids", ", ".join(fmt.model_ids) or (
            f"- (none: a variant of {fmt.variant_of}, whose output differs from its published "
            "template)" if fmt.variant_of else "- (no published model)")),
        ("special tokens", tokens or "- (none)"),
        ("template", info["template"]),
        ("sha256", f"{fmt.template_sha256} ({_template_check(fmt)})"),
        ("variables", ", ".join(info["variables"]) + "  (and messages)"),
    ]
    for label, value in lines:
        print(f"{label + ':':16}{value}")
    return EXIT_OK


def _template_check(fmt: ChatFormat) -> str:
    """``verified`` when the package's text of the template has the pinned sha256, else what is
    wrong."""
    try:
        fmt.template_source()
    except ChatFormatError as exc:
        return f"MISMATCH: {exc}"
    return "verified"


def _print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


def _cmd_render(args: argparse.Namespace) -> int:
    fmt = _ported(args.format)
    opts = _options(args, fmt)
    if args.jsonl is not None:
        return _render_jsonl(args, opts)
    if args.output is not None or args.workers != 1:
        raise UsageError("-o/--output and --workers go with --jsonl")
    conv = _parse_file(args.file)
    try:
        text = render_conversation(conv, opts)
    except (ChatFormatError, InputError) as exc:
        raise InputError(f"{_name(args.file)}: {_describe(exc)}") from None
    _write_stdout(text)
    return EXIT_OK


def _parse_file(path: str) -> Conversation:
    data = _read_json(path)
    try:
        return parse_conversation(data)
    except InputError as exc:
        raise InputError(f"{_name(path)}: {exc}") from None


def _batches(lines: Iterator[tuple[int, bytes]], size: int) -> Iterator[list[tuple[int, bytes]]]:
    batch: list[tuple[int, bytes]] = []
    for item in lines:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _render_jsonl(args: argparse.Namespace, opts: Options) -> int:
    """``render --jsonl``: one output line per input line, in order, written as whole lines;
    ``-o`` replaces OUT only when the run finishes (see :mod:`.io`); with ``--workers`` N > 1,
    the lines are rendered in N processes (see :mod:`.workers`)."""
    source = _name(args.jsonl)
    if args.output is not None and args.output != "-" and args.jsonl != "-":
        try:
            if os.path.samefile(args.jsonl, args.output):
                raise UsageError("the output file is the input file")
        except OSError:
            pass
    work = partial(render_line, opts)
    failures: list[tuple[int, str]] = []
    total = _io.count_lines(args.jsonl)
    with _io.Lines(args.jsonl) as lines, _io.Output(args.output) as out, Interrupts() as signals:
        progress = _Progress(_progress_enabled(args), total, "lines")
        written = 0
        try:
            with contextlib.ExitStack() as stack:
                if args.workers > 1:
                    pool = stack.enter_context(WorkerPool(work, args.workers))
                    results: Iterator[tuple[int, bytes, str | None]] = pool.map(
                        _batches(iter(lines), _BATCH))
                else:
                    results = (work(item) for item in lines)
                for lineno, data, error in results:
                    with signals.deferred():  # an interrupt waits for the whole line
                        out.write(data)
                        written += 1
                    if error is not None:
                        failures.append((lineno, error))
                    progress.update(1, error is not None)
            out.commit()
        except Interrupted as exc:
            _flush_quietly(out)
            raise _Stopped(
                f"{source}: interrupted after {_lines(written)}; {out.kept}", exc.exit_status
            ) from None
        except WorkerDied as exc:
            _flush_quietly(out)
            raise _Stopped(
                f"{source}: {exc}; the {_lines(written)} before it were rendered; {out.kept}",
                EXIT_FAILED,
            ) from None
        except _io.ReadError as exc:
            _flush_quietly(out)
            raise _Stopped(f"{exc}; {_lines(written)} rendered; {out.kept}", EXIT_FAILED) from None
        except _io.OutputError as exc:
            kept = f"; {out.kept}" if out.atomic else ""
            raise _Stopped(f"{exc}{kept}", EXIT_FAILED) from None
        finally:
            progress.close()
    done = progress.count
    if failures:
        sys.stderr.write(
            f"chatformats: {source}: {done - len(failures)} of {done} lines rendered, "
            f"{len(failures)} failed:\n"
        )
        for lineno, error in failures[:20]:
            sys.stderr.write(f"  {source}:{lineno}: {error}\n")
        if len(failures) > 20:
            sys.stderr.write(f"  ... and {len(failures) - 20} more "
                             "(each has an {\"error\", \"line\"} record in the output)\n")
        return EXIT_FAILED
    if progress.enabled:
        sys.stderr.write(f"chatformats: {source}: {done} lines rendered\n")
    return EXIT_OK


def _lines(n: int) -> str:
    return "1 line" if n == 1 else f"{n} lines"


#: Lines sent to a worker process at a time.
_BATCH = 64


class _Stopped(Exception):
    """A run that could not finish: one line for stderr, and the exit status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def _flush_quietly(out: _io.Output) -> None:
    """Flush what was written (whole lines) before reporting a stop; a failure to flush is
    not the failure to report."""
    try:
        out.flush()
    except _io.OutputError:
        pass


def _progress_enabled(args: argparse.Namespace) -> bool:
    if args.progress is not None:
        return bool(args.progress)
    return sys.stderr.isatty()


# ------------------------------------------------------------------ verify


@dataclass
class _Outcome:
    text: str | None = None
    kind: str | None = None
    message: str | None = None
    exc_type: str | None = None

    @property
    def ok(self) -> bool:
        return self.kind is None

    def describe(self) -> str:
        if self.ok:
            return f"renders {len(self.text or '')} characters"
        return f"fails: {self.exc_type}: {self.message}"


def _port_outcome(conv: Conversation, opts: Options) -> _Outcome:
    try:
        text = render_conversation(conv, opts)
    except TemplateError as exc:
        return _Outcome(kind="raise_exception", message=str(exc), exc_type=type(exc).__name__)
    except (ChatFormatError, InputError) as exc:
        return _Outcome(kind="other", message=str(exc), exc_type=type(exc).__name__)
    return _Outcome(text=text)


def _load_reference(layer: str) -> Any:
    """The reference renderer (``chatformats.verify``) for ``layer``; :class:`_NoReference`
    when what it needs is not installed."""
    try:
        reference = importlib.import_module("chatformats.verify")
    except ImportError:
        raise _NoReference(
            "verify needs jinja2 (the verify extra; rendering never needs it): "
            "python -m pip install 'chatformats[verify]' (or the test extra, which pins the "
            "versions verified: python -m pip install 'chatformats[test]')"
        ) from None
    if layer == "pipeline":
        # transformers advises at import that PyTorch is missing: irrelevant to rendering text.
        os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
        from ..pipeline import TRANSFORMERS_VERSION

        try:
            installed = reference.require_transformers()
        except ImportError:
            raise _NoReference(
                "verify --layer pipeline compares with transformers' own apply_chat_template and "
                f"needs transformers: python -m pip install transformers=={TRANSFORMERS_VERSION} "
                "(or the test extra: python -m pip install 'chatformats[test]'); "
                "--layer template needs only jinja2"
            ) from None
        if installed != TRANSFORMERS_VERSION:
            sys.stderr.write(
                f"chatformats: note: transformers {installed} is installed; the pipeline layer "
                f"mirrors transformers {TRANSFORMERS_VERSION}, so a difference may be a change "
                "in transformers\n"
            )
    return reference


class _NoReference(Exception):
    pass


def _reference_outcome(conv: Conversation, opts: Options) -> _Outcome:
    reference = importlib.import_module("chatformats.verify")
    variables = _variables(conv, opts)
    now = opts.clock()
    if opts.layer == "template":
        got = reference.render(opts.format, conv.messages, variables, now)
    else:
        got = reference.apply_chat_template(opts.format, conv.messages, variables, now)
    return _Outcome(got.text, got.kind, got.message, got.exc_type)


def _compare(port: _Outcome, reference: _Outcome) -> str | None:
    """``None`` when the port agrees with the reference (the same text, or both fail — with
    the same message where the template raised its own error); else a readable report."""
    if reference.ok and port.ok:
        if port.text == reference.text:
            return None
        assert port.text is not None and reference.text is not None
        return _diff(reference.text, port.text)
    if not reference.ok and not port.ok:
        if "raise_exception" not in (reference.kind, port.kind):
            return None
        if (reference.kind, reference.message) == (port.kind, port.message):
            return None
    return f"  reference {reference.describe()}\n  port      {port.describe()}\n"


def _both_fail(port: _Outcome, reference: _Outcome) -> str:
    """Where the port and the reference agree by both failing: the input cannot be rendered,
    which is no agreement to report as success."""
    return f"  reference {reference.describe()}\n  port      {port.describe()}\n"


def _reference_template_problem(fmt: ChatFormat) -> str | None:
    """Why ``verify`` cannot use the reference template (missing, unreadable, or not the pinned
    file), or ``None``."""
    check = _template_check(fmt)
    if check == "verified":
        return None
    return (f"verify cannot run: the reference template {fmt.template_path} of {fmt.name} is "
            f"not the pinned file ({check}; expected sha256 {fmt.template_sha256}); reinstall "
            "chatformats")


def _diff(expected: str, got: str) -> str:
    import difflib

    index = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b),
                 min(len(expected), len(got)))
    line = expected.count("\n", 0, index) + 1
    head = (f"  first difference at character {index} (line {line}): "
            f"reference {expected[index:index + 40]!r}, port {got[index:index + 40]!r}\n")
    body = "".join(
        (text if text.endswith("\n") else text + "\n\\ no newline at end\n")
        for text in difflib.unified_diff(
            expected.splitlines(keepends=True), got.splitlines(keepends=True),
            "reference", "port")
    )
    return head + body


def _cmd_verify(args: argparse.Namespace) -> int:
    fmt = _ported(args.format)
    opts = _options(args, fmt)
    problem = _reference_template_problem(fmt)
    if problem is not None:
        sys.stderr.write(f"chatformats: {problem}\n")
        return EXIT_NO_REFERENCE
    try:
        _load_reference(opts.layer)
    except _NoReference as exc:
        sys.stderr.write(f"chatformats: {exc}\n")
        return EXIT_NO_REFERENCE
    if args.jsonl is None:
        conv = _parse_file(args.file)
        port, reference = _port_outcome(conv, opts), _reference_outcome(conv, opts)
        report = _compare(port, reference)
        where = _name(args.file)
        if report is None and not port.ok:
            print(f"{where}: {fmt.name} ({opts.layer} layer): the port and the reference both "
                  "fail on this input")
            sys.stdout.write(_both_fail(port, reference))
            return EXIT_FAILED
        if report is None:
            print(f"{where}: {fmt.name} ({opts.layer} layer): the port and the reference agree")
            return EXIT_OK
        print(f"{where}: {fmt.name} ({opts.layer} layer): the port differs from the reference")
        sys.stdout.write(report)
        return EXIT_DIFFERENT
    source = _name(args.jsonl)
    differ: list[int] = []
    failed: list[tuple[int, str]] = []
    both_fail: list[int] = []
    checked = 0
    total = _io.count_lines(args.jsonl)
    with _io.Lines(args.jsonl) as lines:
        progress = _Progress(_progress_enabled(args), total, "lines")
        try:
            for lineno, raw in lines:
                try:
                    conv = _parse_line(raw, lineno)
                except InputError as exc:
                    failed.append((lineno, _describe(exc)))
                    progress.update(1, 1)
                    continue
                checked += 1
                port, reference = _port_outcome(conv, opts), _reference_outcome(conv, opts)
                report = _compare(port, reference)
                if report is None and not port.ok:
                    both_fail.append(lineno)
                if report is not None:
                    differ.append(lineno)
                    print(f"{source}:{lineno}: the port differs from the reference")
                    sys.stdout.write(report)
                progress.update(1, report is not None)
        finally:
            progress.close()
    print(f"{source}: {fmt.name} ({opts.layer} layer): {checked} conversations checked, "
          f"{checked - len(differ) - len(both_fail)} agree, {len(differ)} differ"
          + (f", {len(both_fail)} fail in both (lines "
             f"{', '.join(map(str, both_fail[:20]))}{', ...' if len(both_fail) > 20 else ''})"
             if both_fail else "")
          + (f" (lines {', '.join(map(str, differ[:20]))}{', ...' if len(differ) > 20 else ''})"
             if differ else "")
          + (f"; {len(failed)} lines could not be read" if failed else ""))
    for lineno, error in failed[:20]:
        sys.stderr.write(f"chatformats: {source}:{lineno}: {error}\n")
    if differ:
        return EXIT_DIFFERENT
    return EXIT_FAILED if failed or both_fail else EXIT_OK


# ------------------------------------------------------------------ argument parsing


def _parse_var(text: str) -> tuple[str, Any]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=JSON, got {text!r}")
    if name in _RESERVED:
        raise argparse.ArgumentTypeError(f"{name} cannot be a template variable")
    try:
        return name, json.loads(value)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, or a number too long
        raise argparse.ArgumentTypeError(
            f"{name}: the value is not JSON ({getattr(exc, 'msg', exc)}); strings need JSON "
            f"quotes, e.g. --var '{name}=\"text\"'"
        ) from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def _add_input_options(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("format", metavar="FORMAT", help="format name or model id (see `chatformats formats`)")
    p.add_argument("file", metavar="FILE", nargs="?",
                   help="a JSON file (- for stdin): a list of messages, an OpenAI "
                        "chat-completions request body (its messages as given; `chatformats "
                        "request` preprocesses them as a vLLM server does), or an object with "
                        "messages, tools and template variables")
    p.add_argument("--jsonl", metavar="IN",
                   help=f"{what} a JSONL dataset, one conversation per line (- for stdin)")
    p.add_argument("--layer", choices=LAYERS, default="pipeline",
                   help="template: the template alone (chatformats.render); pipeline (default): "
                        "what transformers' apply_chat_template gives, i.e. what a served model "
                        "sees (chatformats.apply_chat_template)")
    p.add_argument("--generation-prompt", action="store_true",
                   help="pass add_generation_prompt=True (end with the assistant header)")
    p.add_argument("--now", metavar="ISO-DATE", type=_parse_now,
                   help="the clock behind strftime_now (default: the current time)")
    p.add_argument("--var", metavar="NAME=JSON", type=_parse_var, action="append", default=[],
                   help="a template variable, e.g. --var enable_thinking=false "
                        "--var date_string='\"26 Jul 2024\"' (repeatable; overrides the file)")
    p.add_argument("--progress", action="store_true", default=None,
                   help="show a progress bar on stderr (default: when stderr is a terminal)")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="never show the progress bar")


class _ArgumentParser(argparse.ArgumentParser):
    """argparse with one-line errors: ``chatformats render: error: ... (see --help)`` instead
    of the usage block followed by the error (subcommand parsers inherit the class)."""

    def error(self, message: str) -> Any:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog="chatformats",
        description="Render LLM chat prompts byte-for-byte as the models' own chat templates do.",
        epilog="exit status: 0 ok; 1 an input, a render or the run failed (a file that cannot "
               "be read or written, a worker process that died); 2 usage error; "
               "3 verify found a difference; 4 verify's reference renderer is not installed; "
               "130 interrupted (Ctrl-C); 143 terminated (SIGTERM)",
    )
    from .._version import __version__

    parser.add_argument("--version", action="version", version=f"chatformats {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("formats", help="list the formats and their status")
    p.add_argument("--json", action="store_true", help="as JSON")
    p.set_defaults(func=_cmd_formats)

    p = sub.add_parser("show", help="a format's model ids, special tokens, template and variables")
    p.add_argument("format", metavar="FORMAT", help="format name or model id")
    p.add_argument("--json", action="store_true", help="as JSON")
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("render", help="render a conversation, or a JSONL dataset",
                       description="Render FILE (the prompt goes to stdout exactly, no newline "
                                   "added), or --jsonl IN into JSONL ({\"prompt\": ...} or "
                                   "{\"error\": ..., \"line\": N} per line, in order).")
    _add_input_options(p, "render")
    p.set_defaults(parser=p)
    p.add_argument("-o", "--output", metavar="OUT",
                   help="with --jsonl: write here (default stdout); OUT is replaced only when "
                        "the run finishes (written beside it, then renamed)")
    p.add_argument("--workers", metavar="N", type=_positive, default=1,
                   help="with --jsonl: render in N processes (default 1)")
    p.set_defaults(func=_cmd_render)
    from . import audit as _audit

    _audit.add_html_option(p, _resolve_format, _parse_file)

    p = sub.add_parser("verify", help="compare the port with the reference template (needs jinja2)",
                       description="Render each input with the port and with the reference "
                                   "template (jinja2 configured as transformers configures it; "
                                   "--layer pipeline: transformers' own apply_chat_template) "
                                   "and show any difference.")
    _add_input_options(p, "verify")
    p.set_defaults(parser=p)
    p.set_defaults(func=_cmd_verify)

    from . import parse as _parse

    _parse.add_parser(sub, _resolve_format, InputError)
    from .request import add_parser as add_request_parser

    add_request_parser(sub)
    _audit.add_parser(sub, _resolve_format, _parse_file, _parse_var)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    parser = build_parser()
    _WARNED.clear()  # each run reports its unknown variables once
    args = parser.parse_args(argv)
    if args.command in ("render", "verify") and (args.file is None) == (args.jsonl is None):
        args.parser.error("give FILE or --jsonl IN (one of them)")  # exits with status 2
    try:
        status: int = args.func(args)
        sys.stdout.flush()  # a full disk is reported here, not at exit
    except UsageError as exc:
        return _fail(f"chatformats: {exc}", EXIT_USAGE)
    except (InputError, _io.ReadError, _io.OutputError) as exc:
        return _fail(f"chatformats: {exc}", EXIT_FAILED)
    except _Stopped as exc:
        return _fail(f"chatformats: {exc}", exc.status)
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly.
        _discard_stdout()
        return EXIT_FAILED
    except OSError as exc:  # stdout on a full disk, an I/O error
        _discard_stdout()
        return _fail(f"chatformats: cannot write the output: {exc.strerror or exc}", EXIT_FAILED)
    except Interrupted as exc:
        return _fail("chatformats: interrupted", exc.exit_status)
    except KeyboardInterrupt:
        return _fail("chatformats: interrupted", EXIT_INTERRUPTED)
    return status


def _fail(message: str, status: int) -> int:
    """``message`` as one line on stderr; returns ``status``."""
    try:
        sys.stderr.write(message.replace("\n", "\\n") + "\n")
        sys.stderr.flush()
    except OSError:
        pass
    return status


def _discard_stdout() -> None:
    """Point stdout at the null device, so that what is still buffered cannot fail again at
    exit (a second error message, a different status)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
