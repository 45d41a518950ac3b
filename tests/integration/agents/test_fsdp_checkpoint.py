"""An FSDP2 run's checkpoint on two real processes (torchrun, gloo on CPU): every rank writes
its own shard of the optimizer state (nothing is gathered whole on rank 0), and a resumed run
restores each rank's shard exactly; the same checkpoint loads in one process too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

sys.path.insert(0, str(Path(__file__).parent))
from torchrun_support import torchrun_two_ranks  # noqa: E402
WORKER = Path(__file__).with_name("fsdp_checkpoint_worker.py")


@pytest.fixture(scope="module")
def fsdp_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fsdp_ckpt")
    done = torchrun_two_ranks(WORKER, str(out))
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def test_periodic_checkpoint_fsdp_optimizer_state_is_saved_per_rank_and_restored(fsdp_run):
    from torch.distributed.checkpoint import FileSystemReader
    from transformers import AutoModelForCausalLM

    from agents.grpo.checkpoint import latest_checkpoint, load_optimizer_state

    ckpt = latest_checkpoint(fsdp_run)
    assert ckpt is not None and not (ckpt / "optimizer.pt").exists(), \
        "the whole optimizer state was gathered into one file"
    folder = ckpt / "optimizer"
    assert sorted(p.name for p in folder.glob("*.distcp")) == ["__0_0.distcp", "__1_0.distcp"]
    # every 2-D moment is stored as two row halves, each in the file of the rank that holds it
    meta = FileSystemReader(str(folder)).read_metadata()
    files: dict[str, set[str]] = {}
    for index, info in meta.storage_data.items():
        files.setdefault(index.fqn, set()).add(info.relative_path)
    moments = [k for k, v in meta.state_dict_metadata.items()
               if k.endswith(".exp_avg") and len(getattr(v, "size", ())) == 2]
    assert moments
    for key in moments:
        chunks = meta.state_dict_metadata[key].chunks
        rows = meta.state_dict_metadata[key].size[0]
        assert sorted(c.offsets[0] for c in chunks) == [0, rows // 2], key
        assert files[key] == {"__0_0.distcp", "__1_0.distcp"}, key
    ranks = [torch.load(fsdp_run / f"rank{r}.pt", weights_only=False) for r in (0, 1)]
    for rank in ranks:
        assert rank["optimizer_equal"]  # each rank got back exactly the shard it saved
        assert rank["next_step_equal"]  # and the next step is the one it would have taken
    # one process reads the two ranks' shards as one state (torch reshards it)
    model = AutoModelForCausalLM.from_pretrained(ckpt)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    load_optimizer_state(ckpt, optimizer, model)
    full = ranks[0]["full_moments"]
    for name, param in model.named_parameters():
        for key in ("exp_avg", "exp_avg_sq"):
            torch.testing.assert_close(optimizer.state[param][key], full[name][key],
                                       atol=0, rtol=0)
