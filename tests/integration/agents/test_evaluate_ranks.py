"""agents/evaluate.py on 1 and 2 ranks (gloo, forked processes): the same episodes, the same
scores, and only rank 0 receives trajectories.

The tiny model (untrained, temperature 1) samples near-uniform tokens, so any change of an
episode's sampling seed changes its tokens: equal completions per episode mean equal seeds.
"""

from __future__ import annotations

import multiprocessing
import pickle
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import gymnasium as gym  # noqa: E402

import awm_gym  # noqa: E402,F401 - registers the worlds
from agents.chat_format import ChatFormatConfig  # noqa: E402
from agents.evaluate import EvalConfig, evaluate_policy  # noqa: E402
from agents.grpo.rollout import Trajectory  # noqa: E402
from agents.parallel import DistInfo  # noqa: E402
from agents.policies.hf_policy import HFPolicy, load_model_and_tokenizer  # noqa: E402
from agents.policies.sampling import SamplingConfig  # noqa: E402

CHAT = ChatFormatConfig(history_turns=1, catalogue="none", max_observation_chars=64)
SAMPLING = SamplingConfig(temperature=1.0, max_new_tokens=6)
EVAL = EvalConfig(episodes_per_task=1, temperature=1.0, seed=500)


def _evaluate(model_dir: str, width: int, world: DistInfo) -> dict:
    torch.set_num_threads(1)
    model, tok = load_model_and_tokenizer(model_dir, "cpu")
    policy = HFPolicy(model, tok, CHAT, SAMPLING)
    envs = gym.make_vec("AWM/spotify-v0", num_envs=width, max_episode_steps=2)
    try:
        result = evaluate_policy(policy, envs, EVAL, world)
    finally:
        envs.close()
    return {"metrics": result.metrics(),
            "episodes": {t.spec: [turn.generation.completion_ids for turn in t.turns]
                         for t in result.trajectories}}


def _trajectories(objects: object) -> int:
    if isinstance(objects, Trajectory):
        return 1
    if isinstance(objects, (list, tuple)):
        return sum(_trajectories(x) for x in objects)
    return 0


def _rank(rank: int, model_dir: str, store: str, out: str) -> None:
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=2)
    received: list[tuple[str, int]] = []  # (collective, trajectories this rank received)
    all_gather, gather = dist.all_gather_object, dist.gather_object

    def counted_all_gather(object_list, obj, group=None):
        all_gather(object_list, obj, group=group)
        received.append(("all_gather_object", _trajectories(object_list)))

    def counted_gather(obj, object_gather_list=None, dst=0, group=None, **kwargs):
        gather(obj, object_gather_list, dst=dst, group=group, **kwargs)
        received.append(("gather_object", _trajectories(object_gather_list)))

    dist.all_gather_object, dist.gather_object = counted_all_gather, counted_gather
    try:
        result = _evaluate(model_dir, 2, DistInfo(rank, 2))
    finally:
        dist.all_gather_object, dist.gather_object = all_gather, gather
        dist.destroy_process_group()
    Path(out).write_bytes(pickle.dumps({**result, "received": received}))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[dict, list[dict]]:
    """The evaluation in one process (4 instances), then on 2 gloo ranks (2 instances each,
    the width eval_width gives a rank's share)."""
    from agents.tiny_model import TinyModelConfig, build_tiny_model

    tmp = tmp_path_factory.mktemp("eval_ranks")
    tiny_model_dir = build_tiny_model(tmp / "model", TinyModelConfig.small())
    fork = multiprocessing.get_context("fork")  # before this process runs a forward pass
    procs = [fork.Process(target=_rank, args=(r, str(tiny_model_dir), str(tmp / "store"),
                                              str(tmp / f"rank{r}.pkl"))) for r in (0, 1)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=600)
    assert [p.exitcode for p in procs] == [0, 0], "a rank failed (see its stderr)"
    ranks = [pickle.loads((tmp / f"rank{r}.pkl").read_bytes()) for r in (0, 1)]
    return _evaluate(str(tiny_model_dir), 4, DistInfo()), ranks


def test_rank_count_seeds_each_episode_samples_the_same_on_1_and_2_ranks(runs):
    one, (rank0, rank1) = runs
    assert len(one["episodes"]) >= 4
    assert rank0["episodes"].keys() == one["episodes"].keys()
    for spec, completions in one["episodes"].items():
        assert rank0["episodes"][spec] == completions, spec
    assert rank0["metrics"] == rank1["metrics"] == one["metrics"]


def test_metric_traffic_only_rank_0_receives_trajectories(runs):
    _, (rank0, rank1) = runs
    episodes = len(rank0["episodes"])
    assert rank1["episodes"] == {}  # rank 1 needs the metrics only
    assert [n for _, n in rank1["received"]] == [0] * len(rank1["received"])
    assert ("all_gather_object", episodes) not in rank0["received"]
    assert ("gather_object", episodes) in rank0["received"]
