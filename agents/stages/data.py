"""Stage 1, the data: the run's split, its vector envs (training and one per evaluated subset),
and the oracle's recorded rollouts.

Example:
    >>> from agents.config import TrainConfig
    >>> make_envs(TrainConfig().rollout, 2)   # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from awm_gym.boundary import closing_on_error
from awm_gym.envs import get_world_set
from awm_gym.worlds import Split, Subset, load_split, split_worlds

from ..config import SplitConfig
from ..evaluate import EvalConfig
from ..grpo.config import RolloutConfig

__all__ = ["make_envs", "make_split", "make_eval_envs", "record_oracle", "world_set_path",
           "eval_width"]


def make_envs(rollout: RolloutConfig, num_envs: int, split: Split | None = None,
              subset: Subset | None = None, worlds: Sequence[str] | None = None,
              local_ranks: int = 1) -> Any:
    """A vector env with ``num_envs`` instances: of the rollout's worlds, or of ``subset`` of
    ``split`` (``worlds`` replaces ``rollout.worlds`` when given). ``local_ranks``: the ranks
    on this node (:attr:`~agents.parallel.DistInfo.local_world_size`), which share its cores
    when the env's ``num_workers`` is "auto" (the env's ``local_processes``).

    Example:
        >>> envs = make_envs(TrainConfig().rollout, 2)   # doctest: +SKIP
    """
    import gymnasium as gym

    import awm_gym  # noqa: F401 - registers the built-in worlds

    kwargs: dict[str, Any] = {"max_episode_steps": rollout.max_turns, **rollout.env_kwargs}
    if worlds is not None:
        kwargs["worlds"] = list(worlds)
    if split is not None:
        kwargs.update(split=split, subset=subset)
    if local_ranks > 1:
        kwargs["local_processes"] = local_ranks
    return gym.make_vec(rollout.env_id, num_envs=num_envs, **kwargs)


def make_split(split: SplitConfig, rollout: RolloutConfig) -> Split | None:
    """The run's split (``split``: its file, or one made from its fractions and seed),
    checked against the rollout's world set; None when the run has no split.

    Example:
        >>> from agents.config import TrainConfig
        >>> cfg = TrainConfig()
        >>> make_split(cfg.split, cfg.rollout).sizes   # doctest: +SKIP

    Raises:
        SplitError: the file is malformed or was made for a world set with other content.
    """
    if not split.is_enabled:
        return None
    world_set = get_world_set(world_set_path(rollout))
    if split.path is not None:
        return load_split(split.path, world_set)
    return split_worlds(world_set, split.val_worlds, split.val_tasks, split.seed,
                        exclude=rollout.exclude)


def world_set_path(rollout: RolloutConfig) -> str | None:
    """The rollout's world set directory: ``rollout.world_set``, else the env id's own (None:
    the built-in worlds)."""
    import gymnasium as gym

    path = rollout.world_set
    if path is None:
        path = gym.spec(rollout.env_id).kwargs.get("world_set")
    return None if path is None else str(path)


def make_eval_envs(rollout: RolloutConfig, evaluation: EvalConfig, train_envs: Any,
                   split: Split | None, ranks: int = 1, local_ranks: int = 1) -> dict[str, Any]:
    """One evaluation env per evaluated subset: ``train`` (every training task), and with a
    split ``val_tasks`` (held-out tasks of the training worlds) and ``val_worlds`` (every
    task of the held-out worlds); a subset with no task here is left out. Each is sized for
    one rank's share of the episodes (``ranks``: the number of processes; ``local_ranks``:
    those on this node, see :func:`make_envs`)."""
    from ..grpo.rollout import list_tasks

    tasks = len(list_tasks(train_envs))
    out = {"train": make_envs(rollout, eval_width(evaluation.episodes_per_task * tasks, ranks),
                              split, Subset.TRAIN if split is not None else None,
                              local_ranks=local_ranks)}
    if split is None:
        return out
    per_task = evaluation.val_episodes_per_task or evaluation.episodes_per_task
    held = {Subset.VAL_TASKS: [w for w in train_envs.runtime.worlds if w in split.val_tasks],
            Subset.VAL_WORLDS: list(split.val_worlds)}
    def close_all() -> None:
        for envs in out.values():
            envs.close()

    with closing_on_error(close_all):
        for subset, worlds in held.items():
            if worlds:
                n = sum(len(split.tasks(subset)[w]) for w in worlds)
                out[subset.value] = make_envs(rollout, eval_width(per_task * n, ranks), split,
                                              subset, worlds, local_ranks)
    return out


def eval_width(episodes: int, ranks: int = 1, most: int = 64) -> int:
    """Instances for one rank's share of ``episodes`` evaluation episodes: at most ``most``,
    chunks of equal size.

    Example:
        >>> eval_width(80), eval_width(40), eval_width(130), eval_width(130, ranks=2)
        (40, 40, 44, 33)
    """
    episodes = -(-episodes // ranks)
    chunks = -(-episodes // most)
    return -(-episodes // chunks)


def record_oracle(rollout: RolloutConfig, tasks: list[tuple[str, int]], out: Path, *,
                  episodes_per_task: int, seed: int, name: str = "oracle") -> Path:
    """Record ``episodes_per_task`` oracle episodes of every task (World.record_dataset) into
    ``out/datasets/<name>``; returns the dataset's folder.

    Example:
        >>> from agents.config import TrainConfig
        >>> cfg = TrainConfig()
        >>> record_oracle(cfg.rollout, [("w", 0)], Path("out"),            # doctest: +SKIP
        ...               episodes_per_task=cfg.sft.oracle_episodes_per_task, seed=cfg.run.seed)
    """
    from awm_gym import World

    from ..policies.oracle import OraclePolicy

    worlds = [w for w, _ in tasks for _ in range(episodes_per_task)]
    task_idx = [t for _, t in tasks for _ in range(episodes_per_task)]
    world = World(rollout.env_id, num_envs=min(32, len(worlds)), seed=seed,
                  max_episode_steps=rollout.max_turns, verbose=0, **rollout.env_kwargs)
    try:
        world.set_policy(OraclePolicy())
        return world.record_dataset(name, episodes=len(worlds), seed=seed,
                                    cache_dir=out / "datasets",
                                    options={"world": worlds, "task_idx": task_idx},
                                    mode="overwrite")
    finally:
        world.close()
