"""``awm doctor``: a broken third-party import is reported with its fix.

The broken packages are tiny fakes written to ``tmp_path`` and put first on the children's
PYTHONPATH: a ``torchvision`` that fails as PyPI's CUDA build does beside a CPU torch (with its
dist-info, so it counts as installed), and a package that imports it, as transformers does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from awm_gym import doctor
from awm_gym.cli import main
from awm_gym.doctor import Check, diagnose, report

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def broken_env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "torchvision").mkdir()
    (tmp_path / "torchvision" / "__init__.py").write_text(
        'raise RuntimeError("operator torchvision::nms does not exist")\n')
    info = tmp_path / "torchvision-0.99.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: torchvision\nVersion: 0.99.0\n")
    (tmp_path / "fake_transformers").mkdir()
    (tmp_path / "fake_transformers" / "__init__.py").write_text("import torchvision\n")
    (tmp_path / "fake_missing_dep").mkdir()
    (tmp_path / "fake_missing_dep" / "__init__.py").write_text("import no_such_module_xyz\n")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)])}


def test_a_cuda_build_beside_cpu_torch_is_named_with_the_uninstall(broken_env) -> None:
    checks = [Check("fake_transformers", "train", "import fake_transformers"),
              Check("fake_missing_dep", "trl", "import fake_missing_dep"),
              Check("json", "default", "import json"),
              Check("not_installed_xyz", "ray", "import not_installed_xyz")]
    results = diagnose(checks, env=broken_env)
    assert [r.status for r in results] == ["broken", "broken", "ok", "not installed"]
    cuda, missing = results[0], results[1]
    assert cuda.error == "RuntimeError: operator torchvision::nms does not exist"
    assert cuda.fix.startswith("pip uninstall -y torchvision  (")
    assert missing.error == "ModuleNotFoundError: No module named 'no_such_module_xyz'"
    assert missing.fix.startswith("pip install no_such_module_xyz")
    text = report(results)
    assert "2 broken; to fix, run:\n  pip uninstall -y torchvision" in text


def test_the_command_exits_1_and_prints_the_fix(broken_env, monkeypatch, capsys) -> None:
    monkeypatch.setattr(doctor, "CHECKS", (Check("fake_transformers", "train",
                                                 "import fake_transformers"),))
    monkeypatch.setenv("PYTHONPATH", broken_env["PYTHONPATH"])
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "broken" in out and "pip uninstall -y torchvision" in out


def test_a_healthy_module_passes_and_an_unknown_check_is_one_line(capsys) -> None:
    assert main(["doctor", "--only", "awm_gym.containment"]) in (0, 1)  # the kernel may lack one
    assert "awm_gym.containment" in capsys.readouterr().out
    assert main(["doctor", "--only", "nosuch"]) == 2
    assert capsys.readouterr().err.startswith("awm doctor: error: --only nosuch: not a check")


def test_every_check_names_a_module_and_an_extra() -> None:
    assert {c.module for c in doctor.CHECKS} >= {"transformers", "trl", "vllm", "openenv", "ray",
                                                 "peft", "awm_gym.containment"}
    assert all(c.extra and c.code.startswith(("import ", "from ")) for c in doctor.CHECKS)


def test_our_imports_refuse_early_with_the_fix(broken_env) -> None:
    code = "from awm_gym.doctor import import_names; import_names('fake_transformers', 'X')"
    done = subprocess.run([sys.executable, "-c", code], env=broken_env, capture_output=True,
                          text=True, timeout=120)
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 1 and last.startswith("ImportError: from fake_transformers import X")
    assert "Fix: pip uninstall -y torchvision (" in last
    ok = subprocess.run([sys.executable, "-c", code.replace("fake_transformers", "json")
                         .replace("'X'", "'dumps'")], env=broken_env, capture_output=True)
    assert ok.returncode == 0


# -- the integrations (issue 35, item 4): an optional extra each, a guard, a doctor check -------
BRIDGES = {  # bridge module: (the library it guards, the extra its error names)
    "awm_gym.integrations.inspect_tasks": ("inspect_ai", "inspect"),
    "awm_gym.integrations.skyrl": ("skyrl_gym", "skyrl"),
    "awm_gym.integrations.verifiers": ("verifiers", "verifiers"),
    "awm_gym.integrations.openenv.environment": ("openenv", "openenv"),
    "awm_gym.integrations.openenv.server": ("openenv", "openenv"),
    "awm_gym.integrations.openenv.client": ("openenv", "openenv"),
}
"""The trl bridge imports neither trl nor torch (TRL reads the class), so it has nothing to
guard; its doctor check imports trl beside it."""

_BLOCKED_IMPORT = """
import json, sys
out = {}
for bridge, library in json.loads(sys.argv[1]).items():
    sys.modules[library] = None          # as if the extra were not installed
    try:
        __import__(bridge)
        out[bridge] = None
    except ImportError as e:
        out[bridge] = str(e)
    finally:
        del sys.modules[library]
        for name in [m for m in sys.modules if m.startswith("awm_gym.integrations.")]:
            del sys.modules[name]
print(json.dumps(out))
"""


def test_each_bridge_without_its_library_says_which_extra_to_install() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _BLOCKED_IMPORT,
         json.dumps({bridge: lib for bridge, (lib, _) in BRIDGES.items()})],
        capture_output=True, text=True, timeout=300, cwd=REPO, check=True)
    errors = json.loads(done.stdout)
    for bridge, (library, extra) in BRIDGES.items():
        message = errors[bridge]
        assert message is not None, f"{bridge} imported without {library}"
        assert "\n" not in message and f"pip install 'awm-gym[{extra}]'" in message, message
        assert message.startswith(f"awm_gym.integrations.{bridge.split('.')[2]} needs "), message


def test_the_doctor_checks_every_bridge_and_each_installed_one_imports() -> None:
    bridges = {"trl", "openenv", "inspect_tasks", "skyrl", "verifiers"}
    checked = {b for b in bridges for c in doctor.CHECKS if f"awm_gym.integrations.{b}" in c.code}
    assert checked == bridges
    # the light ones run here (trl and verifiers import torch / transformers: seconds each)
    checks = [c for c in doctor.CHECKS if c.module in ("openenv", "inspect_ai", "skyrl_gym")]
    results = diagnose(checks)
    assert {r.status for r in results} <= {"ok", "not installed"}, report(results)
