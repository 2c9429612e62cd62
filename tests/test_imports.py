"""The package's import graph: no cycles, and no module imports upward from its package's
``__init__`` (``from . import x`` / ``from .. import x`` where ``x`` is defined by the package
itself rather than being a submodule).

Every import counts, at module level or inside a function (a lazy import is still a
dependency).  ``python -m tests.test_imports`` prints the graph.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = "chatformats"
SRC = Path(__file__).resolve().parent.parent / "src" / PACKAGE


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def _is_package(name: str, modules: dict[str, Path]) -> bool:
    return modules[name].name == "__init__.py"


def import_graph() -> tuple[dict[str, set[str]], list[str]]:
    """``({module: modules it imports}, [upward imports])`` for every module of the package; an
    upward import is ``from <package> import x`` where ``x`` is not a submodule (so it is the
    package ``__init__``'s own name) and the importer lives inside that package."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    upward: list[str] = []
    for name, path in modules.items():
        package = name if _is_package(name, modules) else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                        graph[name].add(alias.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if not (target == PACKAGE or target.startswith(PACKAGE + ".")):
                    continue
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in modules:
                        graph[name].add(sub)  # a submodule: from . import _core
                    else:
                        graph[name].add(target)
                        if target != name and _is_package(target, modules) and name.startswith(target + "."):
                            upward.append(f"{name} imports {alias.name!r} from the package {target}")
    for name in graph:
        graph[name] = {t for t in graph[name] if t in modules and t != name}
    return graph, upward


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def render_graph(graph: dict[str, set[str]]) -> str:
    return "\n".join(f"{name} -> {', '.join(sorted(deps)) or '(nothing)'}" for name, deps in sorted(graph.items()))


def test_no_import_cycles_and_no_upward_imports() -> None:
    graph, upward = import_graph()
    cycles = _cycles(graph)
    # The package __init__ itself imports its submodules; its submodules must not need it.
    importers_of_init = sorted(name for name, deps in graph.items() if PACKAGE in deps)
    problems = [f"cycle: {' <-> '.join(c)}" for c in cycles] + upward + [
        f"{name} imports the package __init__ ({PACKAGE})" for name in importers_of_init]
    assert not problems, "\n".join(problems) + "\n\nthe import graph:\n" + render_graph(graph)


def test_the_checker_sees_a_cycle_and_an_upward_import() -> None:
    """The checker itself: a cycle and an upward import in a made-up graph are found."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
    graph, upward = import_graph()
    assert "chatformats._core" in graph["chatformats"]  # the __init__ uses the render core
    assert "chatformats.errors" in graph["chatformats.pipeline"]


if __name__ == "__main__":
    graph, upward = import_graph()
    print(render_graph(graph))
    for line in upward:
        print("upward:", line)
    for cycle in _cycles(graph):
        print("cycle:", " <-> ".join(cycle))
