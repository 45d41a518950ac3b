"""agents/grpo/distributed.py: whole groups per rank, and a clear error when they do not split."""

from __future__ import annotations

import re

import pytest

from agents.grpo.distributed import (
    DistInfo,
    all_reduce,
    choose_backend,
    init_distributed,
    shard_groups,
)
from agents.grpo.rollout import EpisodeSpec


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
    with pytest.raises(ValueError, match=re.escape("groups_per_step to a multiple")):
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
    monkeypatch.setattr(dist, "init_process_group", lambda backend: seen.update(backend=backend))
    monkeypatch.setattr(dist, "get_rank", lambda: 1)
    monkeypatch.setattr(dist, "get_world_size", lambda: 2)
    monkeypatch.setattr(torch.cuda, "set_device", lambda k: seen.update(gpu=k))
    assert init_distributed("cuda") == DistInfo(1, 2)
    assert seen == {"backend": "cpu:gloo,cuda:nccl", "gpu": 1}
    assert init_distributed("cpu") == DistInfo(1, 2) and seen["backend"] == "gloo"
