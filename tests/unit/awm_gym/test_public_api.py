"""Each package states its public names in ``__all__``; synth/ and agents/ import only those.

A subpackage's face re-exports what other packages use (``from awm_gym.envs import
WorldRuntime``), so the modules behind it can move without breaking synth/ or agents/. The faces
stay light: heavy modules load on first use (:mod:`awm_gym.lazy_exports`).
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = sorted(
    ".".join(path.parent.relative_to(ROOT).parts)
    for top in ("awm_gym", "agents", "synth") for path in (ROOT / top).rglob("__init__.py")
    if "sources" not in path.parts and "builtin" not in path.parts)


def test_the_packages_are_found() -> None:
    assert {"awm_gym", "awm_gym.envs", "awm_gym.wire", "agents.grpo", "synth"} <= set(PACKAGES)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_states_its_public_names(package: str) -> None:
    module = importlib.import_module(package)
    assert isinstance(getattr(module, "__all__", None), list), f"{package}/__init__.py: add __all__"
    for name in module.__all__:
        getattr(module, name)  # each public name resolves (lazy ones load here)


def _public(module_name: str, name: str) -> bool:
    """Whether ``from module_name import name`` uses a public name of awm_gym."""
    module = importlib.import_module(module_name)
    if name in getattr(module, "__all__", ()):
        return True
    # `from awm_gym import info_keys`: a top-level public module
    return module_name == "awm_gym" and not name.startswith("_") and \
        (ROOT / "awm_gym" / f"{name}.py").is_file()


def _awm_gym_imports() -> list[tuple[str, str, str]]:
    found = []
    for top in ("agents", "synth"):
        for path in sorted((ROOT / top).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and \
                        node.module.split(".")[0] == "awm_gym":
                    found += [(f"{path.relative_to(ROOT)}:{node.lineno}", node.module, a.name)
                              for a in node.names]
    return found


def test_synth_and_agents_import_only_public_names() -> None:
    imports = _awm_gym_imports()
    assert len(imports) > 40
    private = [f"{where}: from {module} import {name}" for where, module, name in imports
               if module.count(".") > 1 or not _public(module, name)]
    assert private == [], ("import these from the package's face (its __init__.py __all__), "
                           "adding them there if needed")


def test_the_faces_load_nothing_heavy() -> None:
    code = ("import sys, awm_gym, awm_gym.envs, awm_gym.tools, awm_gym.manager, awm_gym.scoring, "
            "awm_gym.worlds, awm_gym.remote, awm_gym.server, awm_gym.wire, "
            "awm_gym.integrations.openenv; "
            "print(sorted(m for m in ('sqlalchemy', 'starlette', 'uvicorn', 'openenv', 'mcp', "
            "'awm_gym.envs.runtime', 'awm_gym.tools.host') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
