"""agents.parallel.py: whole groups per rank, and a clear error when they do not split."""

from __future__ import annotations

import re

import pytest

from agents.grpo.rollout import EpisodeSpec
from agents.parallel import (
    DistInfo,
    all_reduce,
    choose_backend,
    init_distributed,
    shard_groups,
)


def test_shards_hold_whole_groups_and_cover_the_step():
    specs = [EpisodeSpec("w", g % 3, 10 + g, g) for g in range(4) for _ in range(3)]
    shards = [shard_groups(specs, r, 2) for r in range(2)]
    groups = [{s.group for s in shard} for shard in shards]
    assert groups == [{0, 2}, {1, 3}]
    assert sorted(shards[0] + shards[1], key=specs.index) == specs
    assert all(len([s for s in shard if s.group == g]) == 3
               for shard, gs in zip(shards, groups, strict=True) for g in gs)


def test_groups_that_do_not_split_evenly_name_the_fix():
    specs = [EpisodeSpec("w", 0, 1, g) for g in range(3) for _ in range(2)]
    fix = "groups_per_step (--rollout.groups-per-step) to a multiple"
    with pytest.raises(ValueError, match=re.escape(fix)):
        shard_groups(specs, 0, 2)


def test_one_process_is_the_identity():
    assert DistInfo().is_main and not DistInfo().is_distributed
    assert all_reduce([1.0, 2.0]) == [1.0, 2.0]


def test_the_backend_reduces_cpu_scalars_and_cuda_gradients():
    assert choose_backend("cpu") == "gloo"
    # NCCL registers only CUDA: the CPU counts and diagnostics need gloo beside it
    assert choose_backend("cuda") == choose_backend("cuda:3") == "cpu:gloo,cuda:nccl"
    with pytest.raises(ValueError, match="'mps'"):
        choose_backend("mps")


def test_init_distributed_on_gpus_asks_for_gloo_and_nccl(monkeypatch):
    torch = pytest.importorskip("torch")
    import torch.distributed as dist

    seen = {}
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.setattr(dist, "is_initialized", lambda: False)
    monkeypatch.setattr(dist, "init_process_group",
                        lambda backend, **kw: seen.update(backend=backend))
    monkeypatch.setattr(dist, "get_rank", lambda: 1)
    monkeypatch.setattr(dist, "get_world_size", lambda: 2)
    monkeypatch.setattr(torch.cuda, "set_device", lambda k: seen.update(gpu=k))
    assert init_distributed("cuda") == DistInfo(1, 2)
    assert seen == {"backend": "cpu:gloo,cuda:nccl", "gpu": 1}
    assert init_distributed("cpu") == DistInfo(1, 2) and seen["backend"] == "gloo"


def test_pg_timeout_reaches_the_process_group(monkeypatch):
    """The process group gets the run's timeout (torch's default, 10 min on NCCL, is shorter
    than a real warm start), and the option's default covers one."""
    pytest.importorskip("torch")
    import datetime

    import torch.distributed as dist

    from agents.parallel import ParallelConfig
    from agents.parallel.config import MIN_WARM_START_TIMEOUT_S

    seen = {}
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setattr(dist, "is_initialized", lambda: False)
    monkeypatch.setattr(dist, "init_process_group", lambda backend, **kw: seen.update(kw))
    monkeypatch.setattr(dist, "get_rank", lambda: 0)
    monkeypatch.setattr(dist, "get_world_size", lambda: 2)
    init_distributed("cpu", timeout_s=5400)
    assert seen["timeout"] == datetime.timedelta(seconds=5400)
    assert ParallelConfig().timeout_s >= MIN_WARM_START_TIMEOUT_S


def test_pg_timeout_too_short_for_the_warm_start_is_refused():
    from agents.errors import AgentConfigError
    from agents.parallel import ParallelConfig, check_parallel

    short = ParallelConfig(timeout_s=60)
    with pytest.raises(AgentConfigError, match=r"--parallel.timeout-s 600"):
        check_parallel(short, world_size=2, groups_per_step=4, device="cpu", sampler="hf",
                       lora=False, warm_start=True)
    check_parallel(short, world_size=2, groups_per_step=4, device="cpu", sampler="hf",
                   lora=False, warm_start=False)  # no warm start: nothing waits that long
    with pytest.raises(AgentConfigError, match="timeout_s"):
        ParallelConfig(timeout_s=0)


@pytest.mark.parametrize(("kwargs", "names"), [
    ({"groups_per_step": 3}, "--rollout.groups-per-step"),
    ({"sampler": "vllm"}, "--rollout.backend hf"),
    ({"strategy": "fsdp", "lora": True, "sampler": "vllm", "device": "cuda"},
     "--parallel.strategy ddp"),
    ({"strategy": "fsdp", "sampler": "hf", "device": "cuda"}, "--rollout.backend vllm"),
])
def test_bad_parallel_runs_are_refused_naming_the_option(kwargs, names):
    from agents.errors import AgentConfigError
    from agents.parallel import ParallelConfig, check_parallel

    args = {"world_size": 2, "groups_per_step": 4, "device": "cpu", "sampler": "hf",
            "lora": False, "warm_start": False}
    strategy = kwargs.pop("strategy", "ddp")
    args.update(kwargs)
    with pytest.raises(AgentConfigError, match=re.escape(names)):
        check_parallel(ParallelConfig(strategy=strategy), **args)
    args["world_size"] = 1  # one process: nothing to refuse
    check_parallel(ParallelConfig(strategy=strategy), **args)


def test_rank_device_each_rank_builds_its_own_engine_on_its_own_gpu():
    """Under torchrun every rank's engine uses vLLM's external launcher, which places it on
    cuda:LOCAL_RANK (the 'uni' executor put every rank's engine on GPU 0), with its own seed."""
    from agents.policies.vllm_policy import engine_placement

    assert engine_placement(3, {}) == {"seed": 3, "distributed_executor_backend": "uni"}
    ranks = [engine_placement(3, {"WORLD_SIZE": "4", "RANK": str(r), "LOCAL_RANK": str(r % 2)})
             for r in range(4)]
    assert {p["distributed_executor_backend"] for p in ranks} == {"external_launcher"}
    assert [p["seed"] for p in ranks] == [3, 4, 5, 6]


def test_rank_device_the_engine_is_built_with_the_placement(monkeypatch):
    """VLLMBackend hands the placement to vLLM's LLM (a recording stand-in for the engine)."""
    import sys
    import types

    from agents.policies.sampling import SamplingConfig
    from agents.policies.vllm_policy import VLLMBackend

    seen = {}

    class FakeLLM:
        def __init__(self, **kwargs):
            seen.update(kwargs)
            self.llm_engine = types.SimpleNamespace(
                model_config=types.SimpleNamespace(dtype="torch.float32"))

    monkeypatch.setitem(sys.modules, "vllm", types.SimpleNamespace(LLM=FakeLLM))
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("LOCAL_RANK", "1")
    VLLMBackend("no-such-model", SamplingConfig())
    assert seen["distributed_executor_backend"] == "external_launcher"
    assert seen["seed"] == 1


def test_workers_per_rank_a_fixed_cuda_index_under_torchrun_is_refused():
    """``--run.device cuda:1`` on 2 ranks would put both ranks on GPU 1; each rank takes
    cuda:LOCAL_RANK, so the error names the field and the fix."""
    from agents.errors import AgentConfigError
    from agents.parallel import ParallelConfig, check_parallel

    args = {"world_size": 2, "groups_per_step": 4, "sampler": "vllm", "lora": False,
            "warm_start": False}
    with pytest.raises(AgentConfigError, match=re.escape("run.device='cuda:1' with 2 ranks")) \
            as e:
        check_parallel(ParallelConfig(), device="cuda:1", **args)
    assert "--run.device cuda" in str(e.value) and "CUDA_VISIBLE_DEVICES" in str(e.value)
    check_parallel(ParallelConfig(), device="cuda", **args)  # each rank's own GPU
    check_parallel(ParallelConfig(), device="cuda:1", **{**args, "world_size": 1})


def test_workers_per_rank_auto_workers_share_the_node_between_local_ranks(monkeypatch):
    """8 ranks on a 16-core node: each rank's "auto" env counts 2 cores, not 16, and the
    trainer's envs are told how many ranks share the node (torchrun's LOCAL_WORLD_SIZE)."""
    from awm_gym.envs.vector_env import cores_per_process, shard_count

    from agents.config import TrainConfig
    from agents.parallel.process_group import local_world_size
    from agents.stages.data import make_envs

    alone = shard_count("auto", 1024, contained=False, cores=cores_per_process(1, cores=16))
    shared = shard_count("auto", 1024, contained=False, cores=cores_per_process(8, cores=16))
    assert (alone, shared) == (16, 2)
    assert shard_count("auto", 256, contained=True, cores=cores_per_process(8, cores=16)) == 2
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "8")
    assert local_world_size() == 8
    envs = make_envs(TrainConfig().rollout, 2, local_ranks=local_world_size())
    try:
        assert envs.config.sharding.local_processes == 8
    finally:
        envs.close()
