"""``awm train`` under ``torchrun --nproc_per_node 2`` on CPU (gloo, DDP, transformers sampler),
end to end at toy size: every rank records its share of the oracle, trains SFT and GRPO through
torch's DDP and runs its share of each evaluation; rank 0 writes the run folder.

Rank 0's run folder cannot show what the other rank did, so the run goes through
``train_rank_worker.py``, which runs ``scripts/train.py``'s ``main_train`` and has each rank
report the evaluation episodes it ran and a SHA-256 of its full weights after GRPO. The tests
compare the two ranks' digests with each other and with the saved ``model_final`` (replicas
that drifted apart fail), and require the ranks' evaluation episodes to be disjoint halves that
together make each whole evaluation (an evaluation every rank ran whole fails).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

sys.path.insert(0, str(Path(__file__).parent))
from torchrun_support import torchrun_two_ranks  # noqa: E402
WORKER = Path(__file__).with_name("train_rank_worker.py")

TOY = ["--run.torch-threads", "1", "--rollout.worlds", "spotify",
       "--rollout.groups-per-step", "2", "--rollout.group-size", "2",
       "--rollout.max-turns", "2", "--rollout.backend", "hf", "--grpo.steps", "2",
       "--sft.epochs", "1", "--eval.episodes-per-task", "1",
       "--eval.val-episodes-per-task", "1", "--eval.every", "1",
       "--sampling.max-new-tokens", "24", "--run.transcripts", "2",
       "--model.tiny.hidden-size", "64", "--model.tiny.num-heads", "2",
       "--model.tiny.num-kv-heads", "1", "--model.tiny.vocab-size", "1024",
       "--model.tiny.corpus-py-files", "20"]


def _torchrun(args: list[str], timeout: int = 900, script: Path | str = "scripts/train.py"
              ) -> subprocess.CompletedProcess[str]:
    return torchrun_two_ranks(script, *args, timeout=timeout)


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> tuple[Path, list[dict], subprocess.CompletedProcess[str]]:
    """The toy run under torchrun, once: its run folder, each rank's report, the process."""
    root = tmp_path_factory.mktemp("torchrun_train")
    out, reports = root / "run", root / "ranks"
    done = _torchrun([str(reports), "--run.out-dir", str(out), *TOY], script=WORKER)
    assert done.returncode == 0, done.stderr[-4000:]
    ranks = [json.loads((reports / f"rank{r}.json").read_text()) for r in (0, 1)]
    return out, ranks, done


def test_ddp_engine_awm_train_under_torchrun_runs_end_to_end(trained):
    out, _, done = trained
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


def test_catches_fault_ranks_end_training_with_equal_weights(trained):
    """Both ranks' full weights after GRPO are bit-identical, are the saved model_final, and
    moved away from the warm start (a run that never stepped would pass vacuously)."""
    from transformers import AutoModelForCausalLM

    sys.path.insert(0, str(WORKER.parent))
    from train_rank_worker import weights_sha256

    out, ranks, _ = trained
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert sum(r.get("loss/optimizer_steps", 0) for r in rows) >= 1  # GRPO did update
    digests = [r["weights_sha256"] for r in ranks]
    assert digests[0] is not None and digests[0] == digests[1], "the replicas drifted apart"

    def digest(folder: str) -> str:
        return weights_sha256(AutoModelForCausalLM.from_pretrained(out / folder).state_dict())

    assert digest("model_final") == digests[0]
    assert digest("model_sft") != digests[0]


def test_catches_fault_each_rank_evaluates_only_its_share(trained):
    """Every evaluation (3 subsets at steps 0, 1 and 2) ran each episode on exactly one rank,
    half of them on each: an evaluation run whole on every rank fails."""
    out, ranks, _ = trained
    evaluations = [r["evaluations"] for r in ranks]
    assert len(evaluations[0]) == len(evaluations[1]) == 9  # train, val_tasks, val_worlds x 3
    summary = json.loads((out / "summary.json").read_text())
    sizes = [summary["eval_episodes"], summary["held_out"]["val_tasks"]["episodes"],
             summary["held_out"]["val_worlds"]["episodes"]] * 3
    for k, (mine, theirs) in enumerate(zip(*evaluations, strict=True)):
        mine, theirs = {tuple(e) for e in mine}, {tuple(e) for e in theirs}
        assert not mine & theirs, f"evaluation {k}: {len(mine & theirs)} episodes ran twice"
        assert len(mine | theirs) == sizes[k], k
        assert {len(mine), len(theirs)} <= {sizes[k] // 2, (sizes[k] + 1) // 2}, k


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
