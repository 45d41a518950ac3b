"""MkDocs hook: an API page lists exactly its package's public names, its ``__all__``.

An API page (``docs/api/*.md``) holds a marker, ``<!-- public-api: awm_gym.envs -->``, which this
hook replaces with the package's docstring and one mkdocstrings block per name in its
``__all__``. mkdocstrings reads code statically (griffe), so it cannot see the names our
packages export lazily (``__getattr__ = lazy_exports(...)``, PEP 562), nor follow them through a
package that only re-exports: here each name is resolved to the module that defines it, with
``ast`` and without importing anything (the bridges' libraries need not be installed to build
the docs). An object exported by several packages is rendered once, on the first page in the nav
that exports it; later pages link to it.

Resolution, per name of ``__all__``: defined in the module (``class``, ``def``, assignment) ->
there; ``from X import name`` -> followed into X; a ``lazy_exports(__name__, {sub: (names,)})``
entry, or an import inside a hand-written ``__getattr__`` -> followed there. A name that cannot
be resolved fails the build: a public name with no documentation is a broken reference.
"""

from __future__ import annotations

import ast
import logging
import re
from functools import cache
from pathlib import Path

from mkdocs.exceptions import PluginError

log = logging.getLogger("mkdocs.hooks.api_reference")

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^<!-- public-api: ([\w.]+) -->$", re.MULTILINE)

_homes: dict[str, str] = {}  # canonical path -> page (src_uri) that renders it


@cache
def _module_file(module: str) -> Path:
    base = ROOT.joinpath(*module.split("."))
    for path in (base / "__init__.py", base.with_suffix(".py")):
        if path.is_file():
            return path
    raise PluginError(f"api_reference: no module {module!r} under {ROOT}")


@cache
def _tree(module: str) -> ast.Module:
    return ast.parse(_module_file(module).read_text(encoding="utf-8"))


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module if _module_file(module).name == "__init__.py" else module.rpartition(".")[0]
    parts = package.split(".")
    base = ".".join(parts[: len(parts) - node.level + 1])
    return f"{base}.{node.module}" if node.module else base


def public_names(module: str) -> list[str]:
    """The module's ``__all__``, read from its source."""
    for node in _tree(module).body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return [ast.literal_eval(e) for e in node.value.elts]
    raise PluginError(f"api_reference: {module} has no __all__")


def _lazy_homes(module: str) -> dict[str, str]:
    homes = {}
    for node in ast.walk(_tree(module)):
        if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_exports"
                and len(node.args) == 2 and isinstance(node.args[1], ast.Dict)):
            for key, names in zip(node.args[1].keys, node.args[1].values, strict=True):
                for name in ast.literal_eval(names):
                    homes[name] = f"{module}.{ast.literal_eval(key)}"
    return homes


def resolve(module: str, name: str, depth: int = 0) -> str:
    """The dotted path of the module that defines ``name`` as seen from ``module``, + name."""
    if depth > 10:
        raise PluginError(f"api_reference: {module}.{name}: import chain too long")
    for node in _tree(module).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.name == name:
            return f"{module}.{name}"
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return f"{module}.{name}"
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    return resolve(_absolute(module, node), alias.name, depth + 1)
    lazy = _lazy_homes(module)
    if name in lazy:
        return resolve(lazy[name], name, depth + 1)
    for node in _tree(module).body:  # a hand-written PEP 562 __getattr__ that imports the name
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and any(
                        (a.asname or a.name) == name for a in inner.names):
                    return resolve(_absolute(module, inner), name, depth + 1)
    raise PluginError(f"api_reference: {module} exports {name!r} in __all__, but it is not "
                      "defined, imported or lazily exported there")


def _summary(path: str) -> str:
    module, _, name = path.rpartition(".")
    for node in _tree(module).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.name == name:
            doc = ast.get_docstring(node) or ""
            first = doc.split("\n\n")[0].replace("\n", " ").strip()
            first = re.sub(r":\w+:`~?([\w.]+)`", r"`\1`", first)  # :class:`X` -> `X`
            if len(first) > 160:
                first = first[:160].rsplit(" ", 1)[0] + " ..."
            return first.replace("|", "\\|")
    return ""


def on_nav(nav, config, files):  # noqa: ANN001, ANN201 - MkDocs hook signature
    """Give each public object one home: the first page in the nav that exports it."""
    _homes.clear()
    for page in nav.pages:
        path = Path(config["docs_dir"]) / page.file.src_uri
        if not page.file.src_uri.endswith(".md") or not path.is_file():
            continue
        for module in MARKER.findall(path.read_text(encoding="utf-8")):
            for name in public_names(module):
                _homes.setdefault(resolve(module, name), page.file.src_uri)
    return nav


def _render(module: str, page_uri: str, level: int) -> str:
    names = public_names(module)
    lines = [f"::: {module}", "    options:", "      members: false",
             "      show_root_heading: false", ""]
    if not names:
        return "\n".join(lines)
    lines += [f"`from {module} import ...`", "", "| name | what it is | defined in |",
              "|---|---|---|"]
    blocks = []
    for name in names:
        path = resolve(module, name)
        lines.append(f"| [`{name}`][{path}] | {_summary(path)} | `{path.rpartition('.')[0]}` |")
        if _homes.get(path, page_uri) == page_uri:
            blocks += [f"::: {path}", "    options:", "      show_root_heading: true",
                       "      show_root_full_path: false", f"      heading_level: {level}",
                       f'      toc_label: "{name}"', ""]
    return "\n".join(lines + [""] + blocks)


def on_page_markdown(markdown, page, config, files):  # noqa: ANN001, ANN201 - hook signature
    """Expand each ``<!-- public-api: MODULE -->`` marker; its objects' headings go one level
    below the last heading above the marker."""
    def expand(m: re.Match) -> str:
        above = re.findall(r"^(#+) ", markdown[: m.start()], re.MULTILINE)
        level = min(len(above[-1]) + 1 if above else 2, 6)
        return _render(m.group(1), page.file.src_uri, level)

    return MARKER.sub(expand, markdown)
