"""The command line's side of one input: a format named on the command line, and the
:class:`~chatformats._rows.Options` its arguments fix (the rest is :mod:`chatformats._rows`, which
the Ray and Parquet stages share)."""

from __future__ import annotations

import argparse
from datetime import datetime

from .._registry import ChatFormat
from .._rows import (LAYERS, TEMPLATE_VARIABLES, _PIPELINE_PARAMS, _RESERVED, Conversation,
                     Options, _parse_file, _parse_line, _variables, parse_conversation,
                     render_conversation, warn_unknown_variables)
from .common import _resolve_format

__all__ = ["LAYERS", "TEMPLATE_VARIABLES", "_PIPELINE_PARAMS", "_RESERVED", "Conversation",
           "Options", "_parse_file", "_parse_line", "_variables", "parse_conversation",
           "render_conversation", "warn_unknown_variables", "_ported", "_options"]


def _ported(name: str) -> ChatFormat:
    return _resolve_format(name)


def _options(args: argparse.Namespace, fmt: ChatFormat) -> Options:
    now = args.now if args.now is not None else datetime.now()
    warn_unknown_variables(fmt.name, [name for name, _ in args.var])
    return Options(format=fmt.name, layer=args.layer, generation_prompt=args.generation_prompt,
                   now=now, variables=tuple(args.var), strict=bool(getattr(args, "strict", False)))

