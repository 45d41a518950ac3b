"""One rank of the two-process GRPO tests (launched by torchrun from test_agents_ddp.py).

``MODEL SAMPLES OUT``: (1) this rank's share of a fixed batch through ``grpo_update`` (once per
loss normalisation), then
(2) one whole ``GRPOTrainer.step`` on spotify, rollouts split by group, from a fresh copy of
the model, then (3) its next step with no samples on rank 1. Each rank writes its parameters
and what it ran to ``OUT/update<r>_<norm>.pt``, ``OUT/step<r>.pt`` and ``OUT/nosamples<r>.pt``.
"""

from __future__ import annotations

import sys


def _update(world, model_dir: str, samples_path: str, out: str) -> None:
    import pickle

    import torch

    from agents.grpo.config import GRPOConfig, OptimConfig
    from agents.grpo.update import grpo_update
    from agents.policies.hf_policy import load_model_and_tokenizer

    with open(samples_path, "rb") as handle:
        samples, temperature, norms = pickle.load(handle)
    # whole trajectories per rank, as the trainer's whole groups give
    mine = [s for s in samples if s.trajectory % world.world_size == world.rank]
    for norm in norms:
        model, tok = load_model_and_tokenizer(model_dir, "cpu")
        opt = torch.optim.SGD(model.parameters(), lr=1.0)
        stats = grpo_update(model, opt, mine, GRPOConfig(loss_norm=norm, loss_norm_constant=500.0),
                            OptimConfig(), temperature, tok.pad_token_id, is_distributed=True)
        torch.save({"params": {k: v.detach() for k, v in model.named_parameters()},
                    "stats": stats, "local_samples": len(mine)},
                   f"{out}/update{world.rank}_{norm}.pt")


def _step(world, model_dir: str, out: str) -> None:
    import gymnasium as gym
    import torch

    import awm_gym  # noqa: F401 - registers the built-in worlds
    from agents.chat_format import ChatFormatConfig
    from agents.grpo.config import GRPOConfig, OptimConfig, RolloutConfig
    from agents.grpo.train import GRPOSetup, GRPOTrainer
    from agents.policies.hf_policy import HFPolicy, load_model_and_tokenizer
    from agents.policies.sampling import SamplingConfig

    rollout = RolloutConfig(groups_per_step=4, group_size=2, max_turns=4)
    envs = gym.make_vec("AWM/spotify-v0", num_envs=rollout.episodes_per_step // world.world_size,
                        max_episode_steps=4)
    model, tok = load_model_and_tokenizer(model_dir, "cpu")
    chat = ChatFormatConfig(history_turns=2, catalogue="none", max_observation_chars=120)
    policy = HFPolicy(model, tok, chat, SamplingConfig(temperature=0.7, max_new_tokens=48))
    # seed 2 and a penalty for cut turns: groups with a reward spread on both ranks (probed)
    setup = GRPOSetup(rollout, GRPOConfig(cut_turn="penalty", cut_turn_reward=-0.5),
                      OptimConfig(lr=1e-3), 0.7, seed=2)
    trainer = GRPOTrainer(model, tok, envs, policy, setup, world=world)
    metrics = trainer.step()
    torch.save({"params": {k: v.detach() for k, v in model.named_parameters()},
                "metrics": metrics,
                "specs": [(t.spec.world, t.spec.task_idx, t.spec.seed, t.spec.group)
                          for t in trainer.last_trajectories]}, f"{out}/step{world.rank}.pt")
    _step_without_samples_on_rank_1(world, trainer, out)
    envs.close()


def _step_without_samples_on_rank_1(world, trainer, out: str) -> None:
    """(3) The next trainer step with rank 1 left without samples (its groups all dropped):
    both ranks must still step and sync their sampler (a recording stand-in for vLLM's)."""
    import torch

    from agents.grpo import train

    synced: list[int] = []
    local: list[int] = []
    build = train.build_samples

    def build_on_this_rank(*args, **kwargs):
        samples = build(*args, **kwargs) if world.rank == 0 else []
        local.append(len(samples))
        return samples

    train.build_samples = build_on_this_rank
    trainer.policy.backend.load_weights = lambda model: synced.append(1) or 0.0
    try:
        metrics = trainer.step()
    finally:
        train.build_samples = build
        del trainer.policy.backend.load_weights
    torch.save({"params": {k: v.detach() for k, v in trainer.model.named_parameters()},
                "metrics": metrics, "local_samples": local[0], "syncs": len(synced)},
               f"{out}/nosamples{world.rank}.pt")


if __name__ == "__main__":
    import torch

    from agents.grpo.distributed import init_distributed

    torch.set_num_threads(1)
    model_dir, samples_path, out_dir = sys.argv[1:4]
    dist_info = init_distributed("cpu")
    _update(dist_info, model_dir, samples_path, out_dir)
    _step(dist_info, model_dir, out_dir)
