"""One rank of the two-process dynamic-sampling test (launched by torchrun).

``OUT``: runs one GRPO step's rounds (:func:`collect_step_rollouts`) on this rank's share of
spotify's groups with a :class:`CoinPolicy` seeded per rank, and writes the rounds it took
part in, the groups it kept and the every-rank group records it saw to ``OUT/rank<r>.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> None:
    import gymnasium as gym
    import torch

    import awm_gym  # noqa: F401 - registers the built-in worlds
    from agents.grpo.config import GRPOConfig, RolloutConfig
    from agents.grpo.dynamic_sampling import collect_step_rollouts
    from agents.grpo.rollout import list_tasks
    from agents.grpo.train import step_specs
    from agents.parallel import init_distributed

    sys.path.insert(0, str(Path(__file__).parent))
    from coin_policy import CoinPolicy

    out = Path(sys.argv[1])
    world = init_distributed("cpu", timeout_s=300)
    rollout = RolloutConfig(groups_per_step=4, group_size=2, max_turns=4)
    envs = gym.make_vec("AWM/spotify-v0", num_envs=4, max_episode_steps=4)
    tasks = list_tasks(envs)
    policy = CoinPolicy({k: 0.25 for k in range(10)})
    seen: list[list] = []
    result = collect_step_rollouts(
        envs, policy, lambda r: step_specs(tasks, rollout, 3, 0, r), GRPOConfig(),
        needed=rollout.groups_per_step, max_rounds=6, is_dynamic=True, world=world,
        seed_round=lambda r: policy.set_seed(1000 * world.rank + r),
        on_round=lambda recs: seen.append([[r.group, r.has_signal] for r in recs]))
    kept = sorted({t.spec.group for t, k in zip(result.trajectories, result.kept, strict=True)
                   if k})
    (out / f"rank{world.rank}.json").write_text(json.dumps({
        "rounds": result.rounds, "kept": kept, "seen": seen,
        "groups_kept": result.groups_kept, "groups_sampled": result.groups_sampled}))
    envs.close()
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
