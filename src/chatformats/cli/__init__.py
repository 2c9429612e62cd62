"""The ``chatformats`` command (also ``python -m chatformats``).

    chatformats formats                          the formats and their status
    chatformats show FORMAT                      model ids, special tokens, template, variables
    chatformats render FORMAT FILE               render one conversation (FILE or - for stdin)
    chatformats render FORMAT --jsonl IN [-o OUT] [--workers N]
                                                 render a JSONL dataset into JSONL
    chatformats verify FORMAT FILE|--jsonl IN    render with the port and with the reference
                                                 template, and show any difference

An input is a list of messages; an OpenAI chat-completions request body (``messages``,
``tools``, ``chat_template_kwargs`` as vLLM and SGLang accept them); or an object with
``messages``, ``tools`` and template variables.

Exit status: 0 success; 1 an input or a render failed (for ``--jsonl``: at least one line
failed, every other line is still written); 2 usage error (bad arguments, unknown format);
3 ``verify`` found a difference; 4 ``verify`` cannot run (jinja2, or transformers for the
pipeline layer, is not installed).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from typing import IO, Any, Callable, Iterator, Sequence

from .._registry import ChatFormat, formats, get_format
from ..errors import ChatFormatError, TemplateError, UnknownFormatError

__all__ = ["main", "EXIT_OK", "EXIT_FAILED", "EXIT_USAGE", "EXIT_DIFFERENT", "EXIT_NO_REFERENCE"]

EXIT_OK = 0
#: An input could not be read or parsed, or a render failed.
EXIT_FAILED = 1
#: Bad arguments (argparse's own status), an unknown format.
EXIT_USAGE = 2
#: ``verify``: the port and the reference template differ on at least one input.
EXIT_DIFFERENT = 3
#: ``verify``: the reference renderer is not installed.
EXIT_NO_REFERENCE = 4

LAYERS = ("template", "pipeline")

#: The variables each template reads from its caller (besides ``messages``), as jinja2's
#: ``meta.find_undeclared_variables`` finds them, less the names the template only uses as its
#: own locals.  ``tests/test_cli.py`` checks this table against jinja2.
TEMPLATE_VARIABLES: dict[str, tuple[str, ...]] = {
    "solar-open": ("add_generation_prompt", "default_system_prompt", "reasoning_effort",
                   "response_format", "think_render_option", "tools"),
    "llama-3.2-vision": ("add_generation_prompt", "bos_token", "custom_tools", "date_string",
                         "tools", "tools_in_user_message"),
    "minicpm-v-4.6-thinking": ("add_generation_prompt", "enable_thinking", "tools"),
    "cogito": ("add_generation_prompt", "bos_token", "enable_thinking", "tools"),
    "qwen3-tool-agent": ("add_generation_prompt", "tools"),
    "qwen3-instruct-2507": ("add_generation_prompt", "tools"),
    "qwen3-thinking-2507": ("add_generation_prompt", "tools"),
}

#: Names the Python API takes for itself: not usable as template variables from the command line.
_RESERVED = frozenset({"messages", "name", "now"})
#: The pipeline layer's named parameters, taken out of the variables.
_PIPELINE_PARAMS = ("tools", "documents", "add_generation_prompt", "continue_final_message")
#: Top-level fields of an OpenAI chat-completions request that vLLM forwards to the template.
_REQUEST_TEMPLATE_FIELDS = ("add_generation_prompt", "continue_final_message", "documents")


class InputError(Exception):
    """An input that cannot be rendered; the message names where (path) and what is wrong."""


class UsageError(Exception):
    """A bad command line (exit status 2)."""


# ------------------------------------------------------------------ inputs


@dataclass
class Conversation:
    """One input, as the layers take it: the messages and the template variables."""

    messages: Any
    variables: dict[str, Any] = field(default_factory=dict)


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
    return Conversation(messages, variables)


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


def render_conversation(conv: Conversation, opts: Options) -> str:
    """Render one input at the chosen layer; raises :class:`ChatFormatError` or
    :class:`InputError`."""
    variables = _variables(conv, opts)
    now = opts.clock()
    try:
        if opts.layer == "template":
            from .. import render

            return render(opts.format, conv.messages, now=now, **variables)
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


def _describe(exc: BaseException) -> str:
    """One line: the error's kind and message."""
    if isinstance(exc, InputError):
        text = str(exc)
    else:
        text = f"{type(exc).__name__}: {exc}"
    return text.replace("\r", "\\r").replace("\n", "\\n")


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
    except Exception as exc:  # noqa: BLE001 — a bug must not cost the other lines either
        error = _describe(exc) + " (this is a chatformats bug)"
    else:
        return lineno, _dumps_line({"prompt": prompt}), None
    return lineno, _dumps_line({"error": error, "line": lineno}), error


# ------------------------------------------------------------------ files and progress


def _read_json(path: str) -> Any:
    """The JSON document in ``path`` (``-``: stdin); raises :class:`InputError` naming the
    file and, for invalid JSON, the line and column."""
    try:
        if path == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as handle:
                raw = handle.read()
    except OSError as exc:
        raise InputError(f"{_name(path)}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{_name(path)}: not UTF-8 (byte {exc.start + 1})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{_name(path)}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(f"{_name(path)}: invalid JSON: nested too deeply") from None


def _name(path: str) -> str:
    return "<stdin>" if path == "-" else path


@contextmanager
def _open_lines(path: str) -> Iterator[Iterator[tuple[int, bytes]]]:
    try:
        handle: IO[bytes] = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as exc:
        raise InputError(f"{_name(path)}: {exc.strerror or exc}") from None
    try:
        yield enumerate(handle, 1)
    finally:
        if path != "-":
            handle.close()


def _count_lines(path: str) -> int | None:
    if path == "-":
        return None
    try:
        with open(path, "rb") as handle:
            count = 0
            last = b"\n"
            for block in iter(partial(handle.read, 1 << 20), b""):
                count += block.count(b"\n")
                last = block[-1:]
            return count + (last != b"\n")
    except OSError:
        return None


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


def _resolve_format(name: str) -> ChatFormat:
    """A format by name, or by one of the model ids it serves; :class:`UsageError` else."""
    try:
        return get_format(name)
    except UnknownFormatError:
        for candidate in formats():
            fmt = get_format(candidate)
            if name in fmt.model_ids:
                return fmt
        raise UsageError(
            f"unknown format {name!r}; known formats: {', '.join(formats())} "
            "(see `chatformats formats`)"
        ) from None


def _ported(name: str) -> ChatFormat:
    fmt = _resolve_format(name)
    if fmt.status != "ported":
        raise InputError(f"format {fmt.name!r} is not ported yet (status: {fmt.status})")
    return fmt


def _options(args: argparse.Namespace, fmt: ChatFormat) -> Options:
    now = args.now if args.now is not None else datetime.now()
    return Options(format=fmt.name, layer=args.layer, generation_prompt=args.generation_prompt,
                   now=now, variables=tuple(args.var))


def _cmd_formats(args: argparse.Namespace) -> int:
    rows = [get_format(name) for name in formats()]
    if args.json:
        _print_json([{"name": f.name, "status": f.status, "model_ids": list(f.model_ids),
                      "description": f.description} for f in rows])
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
        ("model ids", ", ".join(fmt.model_ids) or "- (no published model)"),
        ("special tokens", tokens or "- (none)"),
        ("template", info["template"]),
        ("sha256", f"{fmt.template_sha256} ({_template_check(fmt)})"),
        ("variables", ", ".join(info["variables"]) + "  (and messages)"),
    ]
    for label, value in lines:
        print(f"{label + ':':16}{value}")
    return EXIT_OK


def _template_check(fmt: ChatFormat) -> str:
    """``verified`` when the template file on disk has the pinned sha256, else what is wrong."""
    import hashlib

    try:
        digest = hashlib.sha256(fmt.template_path.read_bytes()).hexdigest()
    except OSError as exc:
        return f"the file cannot be read: {exc.strerror or exc}"
    return "verified" if digest == fmt.template_sha256 else f"MISMATCH: the file has {digest}"


def _print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


def _write_stdout(text: str) -> None:
    """``text`` to stdout as UTF-8 bytes, exactly (no newline added, no locale encoding)."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"the prompt holds a lone surrogate ({text[exc.start]!r}) that UTF-8 cannot encode; "
            "--jsonl writes it JSON-escaped"
        ) from None
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:  # a text-only stream (an embedding application's)
        sys.stdout.write(text)
        sys.stdout.flush()


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
    source = _name(args.jsonl)
    if args.output is not None and args.output != "-" and args.jsonl != "-":
        try:
            if os.path.samefile(args.jsonl, args.output):
                raise UsageError("the output file is the input file")
        except OSError:
            pass
    work = partial(render_line, opts)
    failures: list[tuple[int, str]] = []
    with _open_lines(args.jsonl) as lines:
        total = _count_lines(args.jsonl)
        try:
            out: IO[bytes] = (sys.stdout.buffer if args.output in (None, "-")
                              else open(args.output, "wb"))
        except OSError as exc:
            raise InputError(f"{args.output}: {exc.strerror or exc}") from None
        progress = _Progress(_progress_enabled(args), total, "lines")
        pool: Any = None
        try:
            if args.workers > 1:
                import multiprocessing

                pool = multiprocessing.Pool(args.workers)
                chunk = 64
                results: Iterator[tuple[int, bytes, str | None]] = (
                    result
                    for batch in _batches(lines, args.workers * chunk * 8)
                    for result in pool.map(work, batch, chunksize=chunk)
                )
            else:
                results = (work(item) for item in lines)
            for lineno, data, error in results:
                out.write(data)
                if error is not None:
                    failures.append((lineno, error))
                progress.update(1, error is not None)
        finally:
            if pool is not None:
                pool.terminate()
                pool.join()
            progress.close()
            if out is sys.stdout.buffer:
                out.flush()
            else:
                out.close()
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
    """The reference renderer for ``layer``; :class:`_NoReference` when not installed."""
    try:
        reference = importlib.import_module("chatformats._reference")
        importlib.import_module("jinja2")
    except ImportError:
        raise _NoReference(
            "verify needs jinja2, which chatformats itself never imports: "
            "python -m pip install jinja2 (or the test extra, which pins the versions verified: "
            "python -m pip install 'chatformats[test]')"
        ) from None
    if layer == "pipeline":
        # transformers advises at import that PyTorch is missing: irrelevant to rendering text.
        os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
        from ..pipeline import TRANSFORMERS_VERSION

        try:
            importlib.import_module("transformers.utils.chat_template_utils")
            importlib.import_module("tokenizers")
        except ImportError:
            raise _NoReference(
                "verify --layer pipeline compares with transformers' own apply_chat_template and "
                f"needs transformers: python -m pip install transformers=={TRANSFORMERS_VERSION} "
                "(or the test extra: python -m pip install 'chatformats[test]'); "
                "--layer template needs only jinja2"
            ) from None
        installed = getattr(importlib.import_module("transformers"), "__version__", "?")
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
    variables = _variables(conv, opts)
    now = opts.clock()
    if opts.layer == "template":
        reference = importlib.import_module("chatformats._reference")
        got = reference.render(opts.format, conv.messages, variables, now)
        return _Outcome(got.text, got.kind, got.message, got.exc_type)
    return _transformers_outcome(opts.format, conv.messages, variables, now)


_TOKENIZERS: dict[str, Any] = {}


def _transformers_tokenizer(name: str) -> Any:
    """A transformers tokenizer carrying format ``name``'s reference template and its model's
    special tokens, built in-process (no download): a ``PreTrainedTokenizerFast`` around a
    ``tokenizers`` word-level model whose vocabulary is the special tokens."""
    if name not in _TOKENIZERS:
        tokenizers = importlib.import_module("tokenizers")
        transformers = importlib.import_module("transformers")
        fmt = get_format(name)
        specials = dict(fmt.special_tokens)
        vocab = {"[UNK]": 0}
        for token in specials.values():
            vocab.setdefault(token, len(vocab))
        backend = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
        _TOKENIZERS[name] = transformers.PreTrainedTokenizerFast(
            tokenizer_object=backend, chat_template=fmt.template_source(), **specials
        )
    return _TOKENIZERS[name]


def _transformers_outcome(name: str, messages: Any, variables: dict[str, Any],
                          now: datetime) -> _Outcome:
    """``tokenizer.apply_chat_template(messages, tokenize=False, ...)`` of transformers itself,
    for a tokenizer that carries this format's template and special tokens, with the template's
    ``strftime_now`` on ``now`` (transformers' ``strftime_now`` reads the module global
    ``datetime`` of ``transformers.utils.chat_template_utils`` at each call: it is swapped for
    the duration of the render)."""
    ctu: Any = importlib.import_module("transformers.utils.chat_template_utils")
    exceptions = importlib.import_module("jinja2.exceptions")
    tokenizer = _transformers_tokenizer(name)
    real_datetime = ctu.datetime

    class _Clock(real_datetime):  # type: ignore[misc, valid-type]
        @classmethod
        def now(cls, tz: Any = None) -> Any:
            return now if tz is None else now.replace(tzinfo=tz)

    ctu.datetime = _Clock
    try:
        result = tokenizer.apply_chat_template(messages, tokenize=False, **variables)
    except exceptions.TemplateError as exc:
        kind = "raise_exception" if type(exc) is exceptions.TemplateError else "other"
        return _Outcome(kind=kind, message=exc.message, exc_type=type(exc).__name__)
    except Exception as exc:  # noqa: BLE001 — every failure is an outcome
        return _Outcome(kind="other", message=str(exc), exc_type=type(exc).__name__)
    finally:
        ctu.datetime = real_datetime
    if not isinstance(result, str):
        return _Outcome(kind="other", message="a batch of conversations", exc_type="InputError")
    return _Outcome(text=result)


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
    try:
        _load_reference(opts.layer)
    except _NoReference as exc:
        sys.stderr.write(f"chatformats: {exc}\n")
        return EXIT_NO_REFERENCE
    if args.jsonl is None:
        conv = _parse_file(args.file)
        report = _compare(_port_outcome(conv, opts), _reference_outcome(conv, opts))
        where = _name(args.file)
        if report is None:
            print(f"{where}: {fmt.name} ({opts.layer} layer): the port and the reference agree")
            return EXIT_OK
        print(f"{where}: {fmt.name} ({opts.layer} layer): the port differs from the reference")
        sys.stdout.write(report)
        return EXIT_DIFFERENT
    source = _name(args.jsonl)
    differ: list[int] = []
    failed: list[tuple[int, str]] = []
    checked = 0
    with _open_lines(args.jsonl) as lines:
        progress = _Progress(_progress_enabled(args), _count_lines(args.jsonl), "lines")
        try:
            for lineno, raw in lines:
                try:
                    conv = _parse_line(raw, lineno)
                except InputError as exc:
                    failed.append((lineno, _describe(exc)))
                    progress.update(1, 1)
                    continue
                checked += 1
                report = _compare(_port_outcome(conv, opts), _reference_outcome(conv, opts))
                if report is not None:
                    differ.append(lineno)
                    print(f"{source}:{lineno}: the port differs from the reference")
                    sys.stdout.write(report)
                progress.update(1, report is not None)
        finally:
            progress.close()
    print(f"{source}: {fmt.name} ({opts.layer} layer): {checked} conversations checked, "
          f"{checked - len(differ)} agree, {len(differ)} differ"
          + (f" (lines {', '.join(map(str, differ[:20]))}{', ...' if len(differ) > 20 else ''})"
             if differ else "")
          + (f"; {len(failed)} lines could not be read" if failed else ""))
    for lineno, error in failed[:20]:
        sys.stderr.write(f"chatformats: {source}:{lineno}: {error}\n")
    if differ:
        return EXIT_DIFFERENT
    return EXIT_FAILED if failed else EXIT_OK


# ------------------------------------------------------------------ argument parsing


def _parse_var(text: str) -> tuple[str, Any]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=JSON, got {text!r}")
    if name in _RESERVED:
        raise argparse.ArgumentTypeError(f"{name} cannot be a template variable")
    try:
        return name, json.loads(value)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise argparse.ArgumentTypeError(
            f"{name}: the value is not JSON ({getattr(exc, 'msg', exc)}); strings need JSON "
            f"quotes, e.g. --var '{name}=\"text\"'"
        ) from None


def _parse_now(text: str) -> datetime:
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an ISO 8601 date or date-time (2026-03-07 or 2026-03-07T14:05:09), "
            f"got {text!r}"
        ) from None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(timezone.utc).replace(tzinfo=None)
    return parsed


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
                        "chat-completions request body, or an object with messages, tools and "
                        "template variables")
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chatformats",
        description="Render LLM chat prompts byte-for-byte as the models' own chat templates do.",
        epilog="exit status: 0 ok; 1 an input or a render failed; 2 usage error; "
               "3 verify found a difference; 4 verify's reference renderer is not installed",
    )
    from .. import __version__

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
    p.add_argument("-o", "--output", metavar="OUT", help="with --jsonl: write here (default stdout)")
    p.add_argument("--workers", metavar="N", type=_positive, default=1,
                   help="with --jsonl: render in N processes (default 1)")
    p.set_defaults(func=_cmd_render)

    p = sub.add_parser("verify", help="compare the port with the reference template (needs jinja2)",
                       description="Render each input with the port and with the reference "
                                   "template (jinja2 configured as transformers configures it; "
                                   "--layer pipeline: transformers' own apply_chat_template) "
                                   "and show any difference.")
    _add_input_options(p, "verify")
    p.set_defaults(parser=p)
    p.set_defaults(func=_cmd_verify)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in ("render", "verify") and (args.file is None) == (args.jsonl is None):
        args.parser.error("give FILE or --jsonl IN (one of them)")  # exits with status 2
    try:
        status: int = args.func(args)
    except UsageError as exc:
        sys.stderr.write(f"chatformats: {exc}\n")
        return EXIT_USAGE
    except InputError as exc:
        sys.stderr.write(f"chatformats: {exc}\n")
        return EXIT_FAILED
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_FAILED
    except KeyboardInterrupt:
        sys.stderr.write("chatformats: interrupted\n")
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
