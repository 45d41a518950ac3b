"""agents/grpo/checkpoint.py: the optimizer state comes back on the device of this rank; the
trainer checkpoints every 10 steps by default, and after the last."""

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


def test_periodic_checkpoint_the_default_saves_every_10_steps_and_the_last(tmp_path):
    """``RunConfig().checkpoint_every`` is 10: the main job's 20 steps are checkpointed after
    steps 10 and 20 (once each), 25 steps after 10, 20 and 25, and a run resumed at its last
    step writes its final checkpoint once."""
    from agents.config import RunConfig
    from agents.grpo.train import GRPOSetup, GRPOTrainer
    from agents.parallel import DistInfo

    class _Sink:
        def log(self, metrics, step):
            pass

    def saves(steps: int, start: int = 0) -> list[int]:
        trainer = GRPOTrainer.__new__(GRPOTrainer)  # the loop alone: steps and saves recorded
        trainer.setup = GRPOSetup(None, None, None, 1.0,
                                  checkpoint_every=RunConfig().checkpoint_every)
        trainer.world, trainer.step_idx, saved = DistInfo(), start, []

        def step():
            trainer.step_idx += 1
            return {}

        trainer.step = step
        trainer.save = lambda run_dir: saved.append(trainer.step_idx)
        trainer.write_pass_rates = lambda run_dir: None
        trainer.train(steps, _Sink(), str(tmp_path))
        return saved

    assert RunConfig().checkpoint_every == 10
    assert saves(20) == [10, 20]
    assert saves(25) == [10, 20, 25]
    assert saves(20, start=20) == [20]
