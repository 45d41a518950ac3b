"""The package-internal import graph of awm_gym/, agents/ and synth/ has no cycle (issue 44).

Every module is parsed with ``ast`` (nothing is imported): each ``import`` and ``from ... import``
anywhere in a file counts, at module level, inside a function and under ``if TYPE_CHECKING:``
alike, since an import moved into a function still ties the two files together. Relative imports
are resolved against the importing module's package. ``from pkg import name`` points at
``pkg.name`` when that is a module of ours, else at ``pkg`` (its ``__init__``); importing a
submodule is not counted as importing its parent package's ``__init__`` too.

A cycle is fixed by moving the shared name to where both sides can import it downward (a small
module of its own, or the lower of the two), not by hiding the import inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

_REPO = Path(__file__).resolve().parents[2]
_ROOTS = ("awm_gym", "agents", "synth")


def _module_name(path: Path) -> str:
    parts = path.relative_to(_REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _known_prefix(name: str, modules: set[str]) -> str | None:
    """The longest leading part of the dotted ``name`` that is one of our modules."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool,
              modules: set[str]) -> list[str]:
    """The modules of ours that one import statement names."""
    if isinstance(node, ast.Import):
        targets = [_known_prefix(alias.name, modules) for alias in node.names]
        return [t for t in targets if t is not None]
    if node.level:  # relative: against the importing module's package
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[:len(package) - (node.level - 1)]
        base = ".".join([*package, node.module] if node.module else package)
    else:
        base = node.module or ""
    targets = []
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        targets.append(submodule if submodule in modules else _known_prefix(base, modules))
    return [t for t in targets if t is not None]


def _import_graph() -> dict[str, dict[str, str]]:
    """``{module: {imported module: "path:line" of the first import of it}}``."""
    paths = {_module_name(p): p for root in _ROOTS for p in sorted((_REPO / root).rglob("*.py"))}
    modules = set(paths)
    graph: dict[str, dict[str, str]] = {}
    for module, path in paths.items():
        edges = graph.setdefault(module, {})
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _imported(node, module, path.name == "__init__.py", modules):
                    if target != module:
                        edges.setdefault(target, f"{path.relative_to(_REPO)}:{node.lineno}")
    return graph


def _cycles(graph: dict[str, dict[str, str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each as a list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return components


def _describe(component: list[str], graph: dict[str, dict[str, str]]) -> str:
    members = set(component)
    lines = [f"  {a} -> {b} ({where})" for a in component
             for b, where in sorted(graph[a].items()) if b in members]
    return f"cycle of {len(component)} modules:\n" + "\n".join(lines)


def test_import_cycles_none_in_packages() -> None:
    graph = _import_graph()
    assert len(graph) > 100, f"only {len(graph)} modules found under {_ROOTS}: wrong root?"
    cycles = _cycles(graph)
    assert not cycles, (
        f"{len(cycles)} import cycle(s) among our modules (function-level and TYPE_CHECKING "
        "imports count):\n" + "\n".join(_describe(c, graph) for c in cycles) +
        "\nMove the shared name to where both sides import it downward (a small module of its "
        "own, or the lower of the two); an import inside a function still counts.")


def test_import_cycles_detector_sees_relative_and_local_imports() -> None:
    graph = {"p.a": {"p.b": "a.py:3"}, "p.b": {"p.c": "b.py:9"}, "p.c": {"p.a": "c.py:20"},
             "p.d": {"p.a": "d.py:1"}}
    assert _cycles(graph) == [["p.a", "p.b", "p.c"]]
    modules = {"p", "p.a", "p.b", "p.sub", "p.sub.x"}
    local = ast.parse("def f():\n    from ..a import thing\n    from . import x\n")
    found = [t for node in ast.walk(local) if isinstance(node, ast.ImportFrom)
             for t in _imported(node, "p.sub.y", False, modules)]
    assert found == ["p.a", "p.sub.x"]
