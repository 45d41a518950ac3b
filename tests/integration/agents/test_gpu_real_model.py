"""scripts/gpu_real_model.sh --dry-run: the GPU real-model run's own code path, on CPU.

The script runs on a GPU machine only in sessions that have one; this keeps it from rotting in
between. The dry run builds a tiny model, cuts its weights into parts and joins them back (as
the GGUF travels), runs scripts/real_model.py's job with the transformers sampler (zero-shot,
SFT, GRPO, every evaluation row) and the ours-beside-TRL probe, one step a side.
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
pytest.importorskip("trl")

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "scripts"))
from gpu_real_model import MANIFEST, check_parts, join_parts, make_parts  # noqa: E402

pytestmark = pytest.mark.timeout(900)


def test_parts_are_checked_one_by_one_and_joined(tmp_path: Path) -> None:
    source = tmp_path / "w.gguf"
    source.write_bytes(bytes(range(256)) * 40)  # 10,240 bytes
    manifest = make_parts(source, tmp_path / "parts", part_bytes=4096)
    names = [p["name"] for p in manifest["parts"]]
    assert names == ["w.gguf.part-00", "w.gguf.part-01", "w.gguf.part-02"]
    assert check_parts(tmp_path / "parts", manifest) == []
    (tmp_path / "parts" / names[1]).unlink()  # not arrived yet
    (tmp_path / "parts" / names[2]).write_bytes(b"x" * 100)  # arrived cut short
    (tmp_path / "parts" / names[0]).write_bytes(b"x" * 4096)  # damaged
    assert check_parts(tmp_path / "parts", manifest) == [
        "w.gguf.part-00: sha256 differs from the manifest",
        "w.gguf.part-01: missing",
        "w.gguf.part-02: 100 bytes, expected 2048 (still arriving, or cut short)"]
    with pytest.raises(RuntimeError, match="w.gguf.part-01: missing"):
        join_parts(tmp_path / "parts", manifest, tmp_path / "joined.gguf")
    make_parts(source, tmp_path / "parts", part_bytes=4096)
    assert join_parts(tmp_path / "parts", manifest, tmp_path / "j.gguf").read_bytes() \
        == source.read_bytes()
    # the committed manifest: SmolLM2's GGUF in parts that fit a device call with the wheels
    committed = json.loads(MANIFEST.read_text())
    assert committed["file"] == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert sum(p["size"] for p in committed["parts"]) == committed["size"]
    assert max(p["size"] for p in committed["parts"]) <= 33 * 2**20


def test_the_check_parts_call_names_what_is_missing(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHON=sys.executable)
    proc = subprocess.run([str(REPO / "scripts" / "gpu_real_model.sh"), "--check-parts",
                           "--parts-dir", str(tmp_path)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    status = json.loads(proc.stdout.strip().splitlines()[-1])
    assert status["parts_here"] == []
    assert status["parts_problems"] == [f"{p['name']}: missing" for p in
                                        json.loads(MANIFEST.read_text())["parts"]]


@pytest.mark.long_run  # the whole script's dry run: ~100 s (issue 44)
def test_gpu_real_model_dry_run_passes(tmp_path: Path) -> None:
    results = tmp_path / "gpu_real_model.json"
    env = dict(os.environ, PYTHON=sys.executable)
    proc = subprocess.run(
        [str(REPO / "scripts" / "gpu_real_model.sh"), "--dry-run", "--out",
         str(tmp_path / "work"), "--json", str(results)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=840)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "gpu_real_model: ok" in proc.stdout
    data = json.loads(results.read_text())
    assert data["failures"] == []
    assert data["weights"]["parts"] == 3
    job = data["real_model"]
    stages = [r["stage"] for r in job["rows"]]
    assert stages == [s for s in ("zero-shot", "sft", "sft+grpo") for _ in range(6)]
    assert {(r["subset"], r["mode"] == "greedy") for r in job["rows"]} == {
        (subset, greedy) for subset in ("train", "val_tasks", "val_worlds")
        for greedy in (True, False)}
    for row in job["rows"]:
        lo, hi = row["wilson"]
        assert lo <= row["rate"] <= hi
    assert [g["groups"] for g in job["grpo_groups"]] == [1]
    assert {"select_s", "sft_s", "grpo_s", "eval_sft_grpo_s"} <= set(job["timings"])
    sides = data["trl_comparison"]["sides"]
    assert set(sides) == {"ours", "trl"}
    assert all(len(s["steps"]) == 1 for s in sides.values())
    assert "| trl |" in proc.stdout  # the table the docs take their rows from
