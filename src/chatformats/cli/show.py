"""``chatformats formats`` and ``chatformats show FORMAT``: what the registry holds, and whether
the package's copy of each template is the pinned file."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .._registry import ALIASES, ChatFormat, alias_of, formats, get_format
from ..errors import ChatFormatError
from .common import EXIT_OK, _resolve_format
from .conversation import TEMPLATE_VARIABLES


def _cmd_formats(args: argparse.Namespace) -> int:
    rows = [get_format(name) for name in formats()]
    if args.json:
        _print_json([{"name": f.name, "model_ids": list(f.model_ids),
                      "variant_of": f.variant_of or None, "description": f.description}
                     for f in rows])
        return EXIT_OK
    for fmt in rows:
        models = ", ".join(fmt.model_ids) or "-"
        print(f"{fmt.name:26} {fmt.description or models}")
    if ALIASES:  # after a blank line: names that are not formats of their own
        print()
        for alias, (current, about) in ALIASES.items():
            print(f"alias {alias} = {current}: {about}")
    return EXIT_OK


def _cmd_show(args: argparse.Namespace) -> int:
    fmt = _resolve_format(args.format)
    alias = alias_of(args.format)
    info: dict[str, Any] = {
        "name": fmt.name,
        "alias": None if alias is None else {"name": args.format, "means": alias[1]},
        "description": fmt.description,
        "model_ids": list(fmt.model_ids),
        "variant_of": fmt.variant_of or None,
        "revision_of": fmt.revision_of or None,
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
        ("model ids", ", ".join(fmt.model_ids) or (
            f"- (none: a variant of {fmt.variant_of}, whose output differs from its published "
            "template)" if fmt.variant_of else
            f"- (none: another revision of {fmt.revision_of}'s template; its models' ids resolve "
            f"to {fmt.revision_of}, a model folder holding this text to this format)"
            if fmt.revision_of else "- (no published model)")),
        ("special tokens", tokens or "- (none)"),
        ("template", info["template"]),
        ("sha256", f"{fmt.template_sha256} ({_template_check(fmt)})"),
        ("variables", ", ".join(info["variables"]) + "  (and messages)"),
    ]
    alias = alias_of(args.format)
    if alias is not None:
        lines.insert(1, ("alias", f"{args.format} = {alias[0]}: {alias[1]}"))
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
