"""The real-model job (scripts/real_model.py, run by scripts/real_model.sh) end to end on a
tiny model: zero-shot, SFT and SFT + GRPO evaluations of train, val_tasks and val_worlds,
greedy and sampled, through one vLLM engine synced in memory. SmolLM2 itself is the script's default
(about an hour on 2 cores); here the local test model stands in so the plumbing, the table
and the statistics are checked: a long run (``AWM_RUN_SLOW=1``, as CI sets it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("vllm")
pytest.importorskip("peft")

from agents.errors import AgentConfigError  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))  # the job's body
from real_model import STAGES, main, real_model_config  # noqa: E402

from agents.tiny_model import TinyModelConfig, build_tiny_model  # noqa: E402

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return str(build_tiny_model(tmp_path_factory.getbasetemp() / "real_model_tiny",
                                TinyModelConfig.small()))


@pytest.mark.long_run  # the real-model job end to end on a vLLM engine: ~30 s (issue 44)
def test_the_job_reports_every_stage_on_every_subset(model_dir, tmp_path):
    out = tmp_path / "run"
    assert main(["--model.path", model_dir, "--run.out-dir", str(out),
                 "--rollout.worlds", "spotify", "--rollout.max-turns", "2",
                 "--rollout.groups-per-step", "1", "--rollout.group-size", "2",
                 "--sampling.max-new-tokens", "8", "--grpo.steps", "1",
                 "--sft.max-examples-per-episode", "1", "--sft.lr", "1e-2"]) == 0
    report = json.loads((out / "real_model.json").read_text())
    split = report["split"]["sizes"]
    # the train subset: spotify's 8 train tasks cut to those whose oracle episode succeeds
    # within 4 turns (here within the 2-turn limit); the held-out subsets stay whole
    turns = report["oracle_turns"]
    assert len(turns) == 8 and split["train_tasks"] == sum(0 < n <= 2 for n in turns.values())
    assert 1 <= split["train_tasks"] < 8
    assert report["split"]["train"] == {"spotify": sorted(
        int(k.split("/")[1]) for k, n in turns.items() if 0 < n <= 2)}
    expected = {"train": split["train_tasks"], "val_tasks": 2,
                "val_worlds": split["val_world_tasks"]}
    rows = report["rows"]
    sampled = real_model_config([]).eval.val_episodes_per_task
    assert [r["stage"] for r in rows] == [s for s in STAGES for _ in range(6)]
    for row in rows:
        per_task = 1 if row["mode"] == "greedy" else sampled
        assert row["tasks"] == expected[row["subset"]]
        assert row["episodes"] == per_task * row["tasks"]
        lo, hi = row["wilson"]
        assert lo <= row["rate"] <= hi and 0.0 <= row["ok_call_rate"] <= 1.0
    assert {r["subset"] for r in rows if r["mode"] != "greedy"} == set(expected)
    assert report["sft_examples"] >= 1
    # SFT trained the adapter (LoRA's B starts at zero), and both adapters were written
    from safetensors.torch import load_file

    sft = load_file(out / "adapter_sft" / "adapter_model.safetensors")
    assert any(float(t.abs().max()) > 0 for n, t in sft.items() if "lora_B" in n)
    assert (out / "adapter_final" / "adapter_model.safetensors").exists()
    assert [g["groups"] for g in report["grpo_groups"]] == [1]  # one step of one group
    assert 0 <= report["grpo_groups"][0]["mixed"] <= 1
    table = (out / "real_model.md").read_text()
    assert table.count("| sft+grpo |") == 6 and "phases: select" in table
    assert "GRPO groups with mixed outcomes:" in table


def test_options_given_replace_the_jobs_defaults():
    cfg = real_model_config(["--rollout.worlds", "spotify", "gmail", "--rollout-max-turns", "3"])
    assert cfg.rollout.worlds == ("spotify", "gmail")  # replaced, not appended to "none"
    assert cfg.rollout.max_turns == 3  # any spelling of a flag wins
    assert cfg.chat.catalogue.value == "names" and cfg.model.lora.r == 16  # the job's own
    assert real_model_config([]).rollout.worlds is None  # every world by default
    with pytest.raises(AgentConfigError, match="--model.path"):
        main(["--run.out-dir", "/nonexistent/never-written"])
    for wrong, fix in ((["--rollout.backend", "hf"], "--rollout.backend vllm"),
                       (["--model.lora.r", "0"], "--model.lora.r > 0"),
                       (["--split.val-worlds", "0", "--split.val-tasks", "0"], "--split")):
        with pytest.raises(AgentConfigError, match=fix):
            main(["--model.path", "/nonexistent", "--run.out-dir", "/nonexistent/x", *wrong])
