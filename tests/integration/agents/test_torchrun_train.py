"""``awm train`` under ``torchrun --nproc_per_node 2`` on CPU (gloo, DDP, transformers sampler),
end to end at toy size: every rank records its share of the oracle, trains SFT and GRPO through
torch's DDP and runs its share of each evaluation; rank 0 writes the run folder. The two ranks'
final weights are the same (rank 0 saves them; the test compares the checkpoint with what rank 1
reports through its own run folder), and the whole evaluation is in the summary.
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

REPO = Path(__file__).resolve().parents[3]

TOY = ["--run.torch-threads", "1", "--rollout.worlds", "spotify",
       "--rollout.groups-per-step", "2", "--rollout.group-size", "2",
       "--rollout.max-turns", "2", "--rollout.backend", "hf", "--grpo.steps", "2",
       "--sft.epochs", "1", "--eval.episodes-per-task", "1",
       "--eval.val-episodes-per-task", "1", "--eval.every", "1",
       "--sampling.max-new-tokens", "24", "--run.transcripts", "2",
       "--model.tiny.hidden-size", "64", "--model.tiny.num-heads", "2",
       "--model.tiny.num-kv-heads", "1", "--model.tiny.vocab-size", "1024",
       "--model.tiny.corpus-py-files", "20"]


def _torchrun(args: list[str], timeout: int = 900) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node",
           "2", "scripts/train.py", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO,
                          env=env)


def test_ddp_engine_awm_train_under_torchrun_runs_end_to_end(tmp_path):
    out = tmp_path / "run"
    done = _torchrun(["--run.out-dir", str(out), *TOY])
    assert done.returncode == 0, done.stderr[-4000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["eval_episodes"] == 8 and summary["grpo_steps"] == 2  # the whole eval
    assert summary["held_out"]["val_worlds"]["episodes"] == 20
    # every rank recorded its share of the oracle; SFT trained on both shares
    assert (out / "datasets" / "oracle-rank0").exists() and (out / "datasets" / "oracle-rank1"
                                                             ).exists()
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows if "rollout/reward_mean" in r] == [1, 2]
    assert [r["step"] for r in rows if "eval/success_rate" in r] == [0, 1, 2]
    sft = [r for r in rows if "sft/loss" in r]
    assert len(sft) == 1 and sft[0]["sft/loss"] > 0
    for name in ("reward.png", "model_final/config.json", "checkpoints/latest",
                 "transcripts/index.html"):
        assert (out / name).exists(), name
    assert "step 2/2" in done.stderr


@pytest.mark.parametrize(("flags", "names"), [
    (["--rollout.groups-per-step", "3"], "--rollout.groups-per-step"),
    (["--rollout.backend", "vllm"], "--rollout.backend hf"),
    (["--parallel.timeout-s", "30"], "--parallel.timeout-s 600"),
])
def test_bad_parallel_runs_are_refused_before_any_work(tmp_path, flags, names):
    out = tmp_path / "run"
    done = _torchrun(["--run.out-dir", str(out), *TOY, *flags], timeout=300)
    assert done.returncode != 0
    assert names in done.stderr
    assert not (out / "model_init").exists()  # refused before building anything
