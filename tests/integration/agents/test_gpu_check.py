"""scripts/gpu_check.sh --dry-run: the GPU readiness check's own code path, on CPU.

The script runs on a GPU machine only in sessions that have one; this keeps it from rotting in
between. The dry run shrinks the shapes and runs in float32, but goes through the same
functions: the process group with the chosen backend, the merged LoRA sync tensors (whole and
streamed), ``awm train``'s warm start + GRPO step per shape, with the step's time split
logged, and the vLLM sleep-mode step (reported as skipped: it needs CUDA).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.long_run  # the whole script's dry run: ~40 s (issue 44)
def test_gpu_check_dry_run_passes(tmp_path: Path) -> None:
    results = tmp_path / "gpu_check.json"
    env = dict(os.environ, PYTHON=sys.executable)
    proc = subprocess.run(
        [str(REPO / "scripts" / "gpu_check.sh"), "--dry-run", "--out", str(tmp_path / "work"),
         "--shapes", "tiny,smollm2-135m", "--groups", "2", "--max-turns", "2",
         "--json", str(results)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "gpu_check: ok" in proc.stdout
    data = json.loads(results.read_text())
    assert data["process_group"]["backend"] == "gloo"
    assert data["process_group"]["cpu_float64"] == [1.0, 2.0]
    sync = data["merged_sync"]
    assert sync["unexpected"] == [] and sync["missing"] == []
    assert sync["max_abs_logit_diff"] < 1e-4
    stream = sync["stream"]  # the streamed sync: the same tensors, one merged weight at a time
    assert stream["equal"] and 0 < stream["max_alive_mb"] <= stream["largest_mb"]
    assert data["vllm_sleep"]["skipped"] == "vLLM has no sleep mode on CPU"
    rows = {r["shape"]: r for r in data["grpo"]}
    assert set(rows) == {"tiny", "smollm2-135m"}
    assert rows["smollm2-135m"]["lora_r"] == 8
    for row in rows.values():
        assert row["steps"] == 1
        assert row["step_s"] > 0 and row["generate_s"] > 0 and row["env_s"] > 0
    engines = data["engines"]  # DDP and FSDP2 through the trainer's update, one rank
    assert set(engines) == {"ddp", "fsdp"}
    assert all(row["max_abs_param_diff"] < 1e-5 for row in engines.values())
    assert data["failures"] == []
    # the markdown table the docs take their rows from
    assert "| model | dtype | first step s |" in proc.stdout
