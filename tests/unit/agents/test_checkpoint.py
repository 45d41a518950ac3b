"""agents/grpo/checkpoint.py: the optimizer state comes back on the device of this rank."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from agents.grpo.checkpoint import OPTIMIZER_FILE, load_optimizer_state  # noqa: E402


def _stepped_adamw() -> tuple[torch.nn.Module, torch.optim.Optimizer]:
    torch.manual_seed(0)
    net = torch.nn.Linear(3, 2)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-2)
    net(torch.ones(1, 3)).sum().backward()
    opt.step()
    return net, opt


def test_resume_device_optimizer_state_written_on_a_gpu_loads_on_this_ranks_device(
        tmp_path, monkeypatch):
    """Rank 0 writes its AdamW state from a GPU (location tag ``cuda:N``); every rank must read
    it onto its own device. Without a ``map_location`` torch.load puts each tensor back on the
    device that wrote it (here a GPU this host does not have: the load fails; on an 8-GPU node,
    every rank's copy lands on GPU 0)."""
    _, saved = _stepped_adamw()
    with monkeypatch.context() as m:  # write the file as a rank on cuda:7 would
        m.setattr(torch.serialization, "location_tag", lambda storage: "cuda:7")
        torch.save(saved.state_dict(), tmp_path / OPTIMIZER_FILE)
    net = torch.nn.Linear(3, 2)
    fresh = torch.optim.AdamW(net.parameters(), lr=1e-2)

    load_optimizer_state(tmp_path, fresh)

    want, got = saved.state_dict()["state"], fresh.state_dict()["state"]
    assert set(got) == set(want) == {0, 1}
    for k in want:
        for name in ("exp_avg", "exp_avg_sq"):
            assert got[k][name].device == next(net.parameters()).device
            torch.testing.assert_close(got[k][name], want[k][name], rtol=0, atol=0)
