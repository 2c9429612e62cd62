"""The spans-off check's comparison: each port as it would be without its spans code.

A port records spans only when the render core passes it a recorder (``spans``); without one its
only extra work is the ``if spans is not None:`` tests and passing ``spans`` on to its helpers.
To measure that work (``spans_off.py``), :func:`register` loads a copy of the port module
(and of the sibling modules it imports from, ``_qwen3_2507``, ``llama3_2_vision_2024_09``) with
the spans code taken out of the syntax tree:

- every ``if`` whose test names ``spans`` is replaced by its ``else`` branch (or nothing), but
  ``if spans is None:`` by its body;
- ``x if spans is not None else y`` becomes ``y`` (the port's ``out = spans.pieces if ...``);
- every parameter named ``spans`` and every argument passing ``spans`` is dropped, and any
  other use of the name is ``None`` (``spans is not None``).

What stays is what the port computes for spans without testing ``spans`` (a variable where the
plain render had a literal): the check reports the cost of the tests and branches, and
``docs/spans.md`` says what the ports cost against the ports as they were before spans.  The
copy is the format's port through the public ``ChatFormat.with_port``, so
``chatformats.render(fmt, ...)`` reaches it by the same fast path as the real port.
This is benchmark code: it compiles source at run time, which the package itself never does.
"""

from __future__ import annotations

import ast
import importlib
import sys
import types
from pathlib import Path
from typing import Any

SUFFIX = "__nospans"


def _names_spans(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "spans" for n in ast.walk(node))


def _is_none_test(test: ast.expr) -> bool:
    """``spans is None``."""
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
            and test.left.id == "spans" and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is)
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None)


class _Strip(ast.NodeTransformer):
    def __init__(self, siblings: set[str]) -> None:
        self.siblings = siblings

    def visit_If(self, node: ast.If) -> Any:
        if _names_spans(node.test):
            kept: list[ast.stmt] = []
            # `if spans is None:` keeps its body (the plain render's code), any other test of
            # spans its else branch
            branch = node.body if _is_none_test(node.test) else node.orelse
            for statement in branch:  # an elif testing spans again is dropped the same way
                result = self.visit(statement)
                kept += result if isinstance(result, list) else [result] if result else []
            return kept or None
        return self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        if _names_spans(node.test):
            return self.visit(node.body if _is_none_test(node.test) else node.orelse)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> Any:
        if node.id == "spans" and isinstance(node.ctx, ast.Load):  # spans is not None, ...
            return ast.copy_location(ast.Constant(None), node)
        return node

    def visit_arguments(self, node: ast.arguments) -> Any:
        self.generic_visit(node)
        for field in ("posonlyargs", "args", "kwonlyargs"):
            params = getattr(node, field)
            for i, param in enumerate(params):
                if param.arg != "spans":
                    continue
                del params[i]
                if field == "kwonlyargs":
                    del node.kw_defaults[i]
                elif node.defaults:  # positional defaults align with the last parameters
                    offset = len(node.posonlyargs) + len(node.args) + 1 - len(node.defaults)
                    position = i + (len(node.posonlyargs) if field == "args" else 0)
                    if position >= offset:
                        del node.defaults[position - offset]
                break
        return node

    def visit_Call(self, node: ast.Call) -> Any:
        node.args = [a for a in node.args if not (isinstance(a, ast.Name) and a.id == "spans")]
        node.keywords = [k for k in node.keywords if k.arg != "spans"]
        return self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> Any:
        if node.level == 1 and node.module in self.siblings:
            node.module += SUFFIX
        return node


def _load(module: str) -> types.ModuleType:
    """``chatformats.ports.<module>`` without its spans code, as ``...<module>__nospans``."""
    name = f"chatformats.ports.{module}{SUFFIX}"
    if name in sys.modules:
        return sys.modules[name]
    real = importlib.import_module(f"chatformats.ports.{module}")
    path = Path(real.__file__ or "")
    siblings = {p.stem for p in path.parent.glob("*.py")}
    tree = _Strip(siblings).visit(ast.parse(path.read_text(encoding="utf-8")))
    for node in ast.walk(tree):  # a block left empty keeps a `pass` (elsewhere none: it is a NOP)
        if isinstance(getattr(node, "body", None), list) and not node.body:  # type: ignore[attr-defined]
            node.body = [ast.Pass()]  # type: ignore[attr-defined]
    for node in tree.body:  # the siblings first, stripped too
        if isinstance(node, ast.ImportFrom) and node.module and node.module.endswith(SUFFIX):
            _load(node.module[: -len(SUFFIX)])
    copy = types.ModuleType(name)
    copy.__package__ = "chatformats.ports"
    copy.__file__ = str(path)
    sys.modules[name] = copy
    exec(compile(ast.fix_missing_locations(tree), str(path), "exec"), copy.__dict__)  # noqa: S102
    return copy


def register(name: str) -> Any:
    """Format ``name`` with its port replaced by the copy without spans code
    (``ChatFormat.with_port``): ``chatformats.render`` takes it as it takes the format, by the
    same fast path as the real port (the template layer only: the pipeline layer calls the
    same port)."""
    import chatformats

    fmt = chatformats.get_format(name)
    return fmt.with_port(_load(fmt.module).render)
