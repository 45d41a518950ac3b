"""Memory under FSDP2 with two real processes (torchrun, gloo on CPU), issue 41 rows 3, 4, 7.

* fsdp_accumulation: a micro-batch before the optimizer step's last one leaves sharded
  gradients (each rank half of every parameter's), not an unsharded float32 gradient per
  parameter on every rank (what ``set_requires_gradient_sync(False)`` kept).
* stream_sync: the sampler's weight sync of a sharded model gathers one parameter at a time:
  the engine is never handed more than one full tensor beyond the model, and gets every
  tensor exactly.
* frozen_bf16: in a bfloat16 run, FSDP2 computes with bfloat16 gathers of float32 shards and
  reduces float32 gradients (``MixedPrecisionPolicy(bf16, fp32)``).

The worker (parallel_memory_worker.py) runs all three once; each test reads its check.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

sys.path.insert(0, str(Path(__file__).parent))
from torchrun_support import torchrun_two_ranks  # noqa: E402
WORKER = Path(__file__).with_name("parallel_memory_worker.py")


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("parallel_memory")
    done = torchrun_two_ranks(WORKER, str(out))
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def _ranks(out: Path, check: str) -> list[dict]:
    ranks = [torch.load(out / f"{check}{r}.pt", weights_only=False) for r in (0, 1)]
    for rank in ranks:
        assert "error" not in rank, rank.get("error")
    return ranks


def test_fsdp_accumulation_a_micro_batch_leaves_sharded_gradients(two_ranks):
    for rank in _ranks(two_ranks, "fsdp_accumulation"):
        for name, g in rank["grads"].items():
            assert g["is_dtensor"], f"{name}: no sharded gradient after the micro-batch"
            assert g["grad_local_numel"] == g["shard_numel"] <= math.ceil(g["numel"] / 2), name


def test_stream_sync_a_sharded_model_is_synced_one_full_tensor_at_a_time(two_ranks):
    for rank in _ranks(two_ranks, "stream_sync"):
        assert rank["max_alive_bytes"] <= rank["largest_bytes"] < rank["model_bytes"] / 4
        assert set(rank["received"]) == set(rank["reference"])
        for name, tensor in rank["reference"].items():
            assert torch.equal(rank["received"][name], tensor), name


def test_frozen_bf16_fsdp_computes_in_bf16_over_fp32_shards(two_ranks):
    for rank in _ranks(two_ranks, "frozen_bf16"):
        assert rank["compute_dtype"] == "torch.bfloat16"
        assert rank["shard_dtypes"] == ["torch.float32"]  # the optimizer's master weights
        assert rank["grad_dtypes"] == ["torch.float32"]  # reduced in float32
