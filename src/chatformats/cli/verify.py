"""``chatformats verify FORMAT FILE|--jsonl IN``: render each input with the port and with the
reference renderer (:mod:`chatformats.verify`: jinja2 as transformers configures it, or
transformers' own ``apply_chat_template`` for the pipeline layer), and show any difference."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import TYPE_CHECKING, Any

from .._registry import ChatFormat
from ..errors import ChatFormatError, TemplateError
from .. import _io
from .common import (EXIT_DIFFERENT, EXIT_FAILED, EXIT_NO_REFERENCE, EXIT_OK, InputError,
                     _describe, _name)
from .conversation import (Conversation, Options, _options, _parse_file, _parse_line, _ported,
                           _variables, render_conversation)
from .progress import _Progress, _progress_enabled
from .show import _template_check

if TYPE_CHECKING:
    from ..verify import Outcome


def _port_outcome(conv: Conversation, opts: Options) -> Outcome:
    # The record is the reference's (``chatformats.verify``, loaded by now): this module is
    # imported by every command, and rendering never imports jinja2.
    outcome: type[Outcome] = importlib.import_module("chatformats.verify").Outcome
    try:
        text = render_conversation(conv, opts)
    except TemplateError as exc:
        return outcome(kind="raise_exception", message=str(exc), exc_type=type(exc).__name__)
    except (ChatFormatError, InputError) as exc:
        return outcome(kind="other", message=str(exc), exc_type=type(exc).__name__)
    return outcome(text=text)


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


def _reference_outcome(conv: Conversation, opts: Options) -> Outcome:
    reference = importlib.import_module("chatformats.verify")
    variables = _variables(conv, opts)
    now = opts.clock()
    if opts.layer == "template":
        got: Outcome = reference.render(opts.format, conv.messages, variables, now)
    else:
        got = reference.apply_chat_template(opts.format, conv.messages, variables, now)
    return got


def _compare(port: Outcome, reference: Outcome) -> str | None:
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


def _both_fail(port: Outcome, reference: Outcome) -> str:
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
