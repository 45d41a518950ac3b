"""One rank of test_fsdp_checkpoint.py (launched by torchrun, gloo on CPU).

``OUT``: a random 2-layer Qwen2 (the same seed on both ranks) goes into a
:class:`GRPOTrainer` under FSDP2, takes one AdamW step on this rank's own token ids and is
checkpointed with ``GRPOTrainer.save``; a second trainer is built from the checkpoint's weights
and ``load_state`` restores its optimizer, as a resumed run does. Each rank writes to
``OUT/rank<r>.pt`` whether its restored optimizer shards equal the ones it saved, whether the
next step then leaves equal parameters, and (rank 0) the full AdamW moments, gathered, for the
test's one-process load.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace


def _model():
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)  # the same initial weights on every rank
    config = Qwen2Config(vocab_size=64, hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                         max_position_embeddings=64, tie_word_embeddings=True)
    return Qwen2ForCausalLM(config)


def _trainer(model, world):
    from agents.grpo.config import GRPOConfig, OptimConfig, RolloutConfig
    from agents.grpo.train import GRPOSetup, GRPOTrainer
    from agents.parallel import ParallelConfig

    rollout = RolloutConfig(groups_per_step=2, group_size=2, max_turns=2)
    envs = SimpleNamespace(num_envs=rollout.episodes_per_step // world.world_size,
                           runtime=SimpleNamespace(tasks=[("spotify", 0)]))
    tokenizer = SimpleNamespace(pad_token_id=0, eos_token_id=0,
                                save_pretrained=lambda path: None)
    setup = GRPOSetup(rollout, GRPOConfig(), OptimConfig(lr=1e-2), 1.0)
    # no rollouts here (a sharded forward is a collective): the policy never samples
    return GRPOTrainer(model, tokenizer, envs, SimpleNamespace(sampling=None), setup,
                       world=world, parallel=ParallelConfig(strategy="fsdp"))


def _optimizer_step(trainer, world, step: int) -> None:
    import torch

    ids = torch.randint(0, 64, (2, 12), generator=torch.Generator().manual_seed(
        100 * step + world.rank))  # each rank its own batch
    loss = trainer.train_module(input_ids=ids).logits.float().pow(2).mean()
    loss.backward()
    trainer.optimizer.step()
    trainer.optimizer.zero_grad()


def _local(tensor):
    to_local = getattr(tensor, "to_local", None)
    return (to_local() if callable(to_local) else tensor).detach().clone()


def _moments(trainer) -> list[dict]:
    """This rank's AdamW state, parameter by parameter: local shards."""
    return [{k: _local(v) for k, v in trainer.optimizer.state[p].items()}
            for group in trainer.optimizer.param_groups for p in group["params"]]


def _full_moments(trainer) -> dict[str, dict]:
    """The AdamW moments of every parameter, gathered whole (a collective)."""
    from agents.parallel import full_state_dict

    return {name: full_state_dict({k: trainer.optimizer.state[p][k]
                                   for k in ("exp_avg", "exp_avg_sq")})
            for name, p in trainer.train_module.named_parameters()}


def main(world, out: str) -> None:
    import torch
    import torch.distributed as dist
    from transformers import AutoModelForCausalLM

    from agents.grpo.checkpoint import latest_checkpoint, read_trainer_state

    first = _trainer(_model(), world)
    _optimizer_step(first, world, 0)
    first.step_idx = 1
    first.save(out)
    full = _full_moments(first)
    dist.barrier()  # rank 0 has written it
    ckpt = latest_checkpoint(out)
    resumed = _trainer(AutoModelForCausalLM.from_pretrained(ckpt), world)
    resumed.load_state(str(ckpt), read_trainer_state(ckpt).step)
    saved, restored = _moments(first), _moments(resumed)
    optimizer_equal = len(saved) == len(restored) and all(
        a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
        for a, b in zip(saved, restored, strict=True))
    _optimizer_step(first, world, 1)
    _optimizer_step(resumed, world, 1)
    params = [(n, _local(p), _local(q)) for (n, p), (_, q) in zip(
        first.train_module.named_parameters(), resumed.train_module.named_parameters(),
        strict=True)]
    torch.save({"optimizer_equal": optimizer_equal,
                "next_step_equal": all(torch.equal(a, b) for _, a, b in params),
                "local_numel": {n: a.numel() for n, a, _ in params},
                "full_moments": full if world.is_main else None},
               f"{out}/rank{world.rank}.pt")


if __name__ == "__main__":
    import torch

    from agents.parallel import init_distributed

    torch.set_num_threads(1)
    dist_info = init_distributed("cpu", timeout_s=600)
    main(dist_info, sys.argv[1])
    torch.distributed.destroy_process_group()
