"""One rank of the two-process GRPO tests (launched by torchrun from test_ddp.py).

``MODEL CASES OUT``: for each case of the pickled list, this rank's share of a fixed step (whole
groups: every other group) goes through the trainer's own path (:func:`step_samples`, then
:func:`grpo_update` through the engine that :func:`wrap_for_training` picks), from a fresh copy
of the model; then SFT on a fixed example set; then a whole ``GRPOTrainer.step`` on spotify,
and its next step with no samples on rank 1. Each rank writes what it ended with to ``OUT``.
"""

from __future__ import annotations

import contextlib
import sys


def _fresh(model_dir: str, lora: bool):
    import torch

    from agents.lora import LoRAConfig, apply_lora
    from agents.policies.hf_policy import load_model_and_tokenizer

    model, tok = load_model_and_tokenizer(model_dir, "cpu")
    if lora:
        torch.manual_seed(0)  # the adapters' initialisation, as in the one-process reference
        model = apply_lora(model, LoRAConfig(r=4, alpha=8, dropout=0.0))
    return model, tok


def _params(model) -> dict:
    from agents.lora import causal_lm
    from agents.parallel import full_state_dict

    lm = causal_lm(model)
    return {k: v.detach().clone() for k, v in full_state_dict(
        {n: p for n, p in lm.named_parameters() if p.requires_grad}).items()}


def _sharding(module) -> dict:
    """How FSDP2 spread ``module``: which modules are FSDP units, the decoder layers (read off
    the transformers model, not off the engine's own list), and per parameter this rank's share
    of its elements."""
    from torch.distributed.fsdp import FSDPModule

    local = {}
    for name, param in module.named_parameters():
        to_local = getattr(param, "to_local", None)
        local[name] = ((to_local() if callable(to_local) else param).numel(), param.numel())
    return {"units": sorted(n for n, m in module.named_modules() if isinstance(m, FSDPModule)),
            "layers": [f"model.layers.{k}" for k in range(len(module.model.layers))],
            "numel": local}


def _updates(world, model_dir: str, cases_path: str, out: str) -> None:
    import pickle

    import torch

    from agents.grpo.train import step_samples
    from agents.grpo.update import grpo_update
    from agents.parallel import shard_groups, wrap_for_training

    with open(cases_path, "rb") as handle:
        trajs, temperature, cases = pickle.load(handle)
    groups = {s.group for s in shard_groups([t.spec for t in trajs], world.rank,
                                            world.world_size)}
    for case in cases:
        if case["shard"]:  # whole groups per rank, as the trainer runs them
            mine = [t for t in trajs if t.spec.group in groups]
        else:  # rank 1 left without any
            mine = trajs if world.rank == 0 else []
        model, tok = _fresh(model_dir, case["lora"])
        module = wrap_for_training(model, case["strategy"], world)
        opt = torch.optim.SGD([p for p in module.parameters() if p.requires_grad], lr=1.0)
        built = step_samples(mine, case["grpo"], world)
        stats = grpo_update(module, opt, built.samples, case["grpo"], case["optim"], temperature,
                            tok.pad_token_id, is_distributed=True)
        sharding = _sharding(module) if case["strategy"] == "fsdp" else None
        torch.save({"params": _params(model), "stats": stats, "sharding": sharding,
                    "local_samples": len(built.samples)}, f"{out}/{case['name']}{world.rank}.pt")


def _sft(world, model_dir: str, cases_path: str, out: str) -> None:
    import pickle

    import torch

    from agents.sft import SFTConfig, run_sft

    with open(cases_path.replace("cases", "sft"), "rb") as handle:
        examples = pickle.load(handle)
    model, tok = _fresh(model_dir, False)
    metrics = run_sft(model, examples, SFTConfig(epochs=2, lr=1e-2, batch_size=3,
                                                 micro_batch_tokens=400),
                      tok.pad_token_id, seed=3, world=world)
    torch.save({"params": _params(model), "metrics": metrics}, f"{out}/sft{world.rank}.pt")


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
    with _object_traffic() as traffic:
        metrics = trainer.step()
    torch.save({"params": {k: v.detach() for k, v in model.named_parameters()},
                "metrics": metrics, "wrapped": type(trainer.train_module).__name__,
                "traffic": traffic,
                "specs": [(t.spec.world, t.spec.task_idx, t.spec.seed, t.spec.group)
                          for t in trainer.last_trajectories]}, f"{out}/step{world.rank}.pt")
    _step_without_samples_on_rank_1(world, trainer, out)
    envs.close()


@contextlib.contextmanager
def _object_traffic():
    """Record every object this rank hands to torch.distributed's object collectives during
    the block: ``(collective, pickled bytes, the type names inside)`` per call."""
    import pickle

    import torch.distributed as dist

    calls: list[tuple[str, int, list[str]]] = []
    originals = {name: getattr(dist, name) for name in ("all_gather_object", "gather_object",
                                                         "broadcast_object_list")}

    def names(obj, seen: set[str]) -> set[str]:
        seen.add(type(obj).__name__)
        if isinstance(obj, (list, tuple)):
            for item in obj:
                names(item, seen)
        return seen

    def recording(name):
        def call(*args, **kwargs):
            if name == "all_gather_object":
                sent = args[1]
            else:
                sent = args[0] if args else kwargs["obj"]
            calls.append((name, len(pickle.dumps(sent)), sorted(names(sent, set()))))
            return originals[name](*args, **kwargs)
        return call

    for name in originals:
        setattr(dist, name, recording(name))
    try:
        yield calls
    finally:
        for name, fn in originals.items():
            setattr(dist, name, fn)


def _step_without_samples_on_rank_1(world, trainer, out: str) -> None:
    """The next trainer step with rank 1 left without samples (its groups all dropped):
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

    from agents.parallel import init_distributed

    torch.set_num_threads(1)
    model_dir, cases_path, out_dir = sys.argv[1:4]
    dist_info = init_distributed("cpu", timeout_s=600)
    _updates(dist_info, model_dir, cases_path, out_dir)
    _sft(dist_info, model_dir, cases_path, out_dir)
    _step(dist_info, model_dir, out_dir)
    torch.distributed.destroy_process_group()
