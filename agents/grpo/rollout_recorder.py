"""Every GRPO step's trajectories, written to the run folder as a Hugging Face dataset.

With ``RunConfig.record_rollouts`` (on in the main job) ``<run>/rollouts`` gets, after every
step, every episode the step sampled (each dynamic-sampling round's, kept groups and discarded
ones), turn by turn, with exactly what the update trained on::

    >>> import datasets                                                       # doctest: +SKIP
    >>> ds = datasets.load_dataset("out/main/rollouts", split="train")        # doctest: +SKIP
    >>> ds.filter(lambda r: r["trained"])[0]["completion_ids"]                # doctest: +SKIP

``awm rescore out/main/rollouts`` replays its episodes with the verifiers as they are now (the
dataset keeps the training env's world set and replay settings, as ``World.record_dataset``
does).

**Writing.** :class:`~awm_gym.manager.recording.DatasetWriter`, ``World.record_dataset``'s
writer, commits each step as one atomic append (a hidden temporary version moved into place,
the earlier shards hard-linked): an interrupted run leaves every finished step and no part of
the next. Rows reach Parquet every ``rows_per_group`` rows, so memory holds at most one step.
With several ranks each rank builds its own rows and only rank 0 receives them
(:func:`~agents.parallel.gather_objects`, no all-gather) and writes. A resumed run appends
after what is there (the steps between its checkpoint and the interruption then appear twice,
with the same ``step`` and the same rows: ``awm train`` repeats a step exactly); a fresh run
replaces an earlier run's rollouts.

**Rows** (the layout of ``World.record_dataset``): one per turn, plus, when the episode's last
action reached the env, one more holding the env's final observation (``action`` and the token
columns null). A turn whose text never reached the env (cut by ``max_new_tokens``, or no room
left in the context: always the last) has a null ``action``; its text is in ``completion``.
Columns: :data:`COLUMNS`; ``step`` counts as ``metrics.jsonl`` and the checkpoints do (1 is the
first step).

**The loss mask** is derived from the samples the update was given (:func:`turn_advantages`),
not recomputed: a turn is ``trained`` when one of its trajectory's samples is its prompt and
completion ids, ``loss_mask`` is then 1 on each of its ``completion_ids`` (the prompt ids never
enter the loss) and ``sample_advantage`` is that sample's advantage (its trajectory's, or, under
``cut_turn=penalty``, the cut turn's charge).
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from awm_gym import info_keys as K
from awm_gym.manager import DatasetWriter, replay_settings, world_set_dir

from ..parallel import DistInfo, gather_objects
from .rollout import Trajectory

logger = logging.getLogger(__name__)

__all__ = ["ROLLOUTS_DIR", "COLUMNS", "RolloutRecorder", "rollout_features", "step_rows",
           "turn_advantages"]

ROLLOUTS_DIR = "rollouts"
"""The dataset's folder in the run folder."""

COLUMNS: dict[str, str] = {
    "step": "int32", "round": "int32", "group": "int32", "episode_idx": "int64",
    "step_idx": "int32", "episode_len": "int32", "world": "string", "task_idx": "int32",
    "seed": "int64", "policy": "string", "observation": "large_string",
    "action": "large_string", "completion": "large_string", "finish_reason": "string",
    "prompt_ids": "list<int32>", "completion_ids": "list<int32>",
    "sampler_logprobs": "list<float32>", "loss_mask": "list<int8>", "trained": "bool",
    "sample_advantage": "float64", "reward": "float64", "terminated": "bool",
    "truncated": "bool", K.ACTION_KIND: "string", K.TOOL: "string", K.VERIFIER_LABEL: "string",
    K.FORMAT_ERROR: "bool", "episode_reward": "float64", "episode_success": "bool",
    "reward_valid": "bool", "truncation": "string", "kept": "bool", "trainable": "bool",
    "advantage": "float64",
}
"""The columns and their types. Per turn: ``step_idx`` (the turn), ``observation`` (what the
agent saw before it: the task first), ``action`` (the text sent to the env), ``completion`` (the
sampled text), ``finish_reason``, ``prompt_ids`` / ``completion_ids`` (the exact ids the sampler
saw and drew), ``sampler_logprobs`` (its log-probability of each completion id), ``loss_mask``,
``trained``, ``sample_advantage``, ``reward`` (the action's), ``terminated`` / ``truncated`` (the
env ended the episode at this action), and the env's ``action_kind``, ``tool``,
``verifier_label``, ``format_error``. Per episode, on each of its rows: ``step``, ``round`` (the
dynamic-sampling round that drew it), ``group``, ``episode_idx`` (unique in the dataset),
``episode_len`` (its rows), ``world``, ``task_idx``, ``seed``, ``policy``, ``episode_reward``,
``episode_success``, ``reward_valid``, ``truncation`` (null, ``length``, ``max_turns`` or
``context``), ``kept`` (its group was trained on, not discarded by dynamic sampling),
``trainable`` (its turns train: scored, in a group with signal) and ``advantage`` (its
group-normalized advantage; null when its group was discarded)."""

_DESCRIPTION = ("Every GRPO step's episodes of an `awm train` run (agents.grpo.rollout_recorder): "
                "one row per turn with the sampler's token ids, log-probabilities and the loss "
                "mask the update used, plus a last row per episode with the env's final "
                "observation. The recordings' seeds are the run's; each episode's is its `seed`.")


def rollout_features() -> Any:
    """The ``datasets.Features`` of :data:`COLUMNS`."""
    import datasets

    def feature(dtype: str) -> Any:
        if dtype.startswith("list<"):
            return datasets.List(datasets.Value(dtype[5:-1]))
        return datasets.Value(dtype)

    return datasets.Features({name: feature(dtype) for name, dtype in COLUMNS.items()})


def turn_advantages(traj: Trajectory, samples: Sequence[Any]) -> list[float | None]:
    """Per turn of ``traj``, the advantage of the sample the update trained it with (None: the
    turn did not train). ``samples`` are the trajectory's own, in the order
    :func:`~agents.grpo.batching.build_samples` made them (one per trained turn, in turn order).

    Raises:
        RuntimeError: a sample matches no turn (the samples are not this trajectory's).

    Example:
        >>> from agents.grpo.batching import TrainSample
        >>> from agents.grpo.rollout import EpisodeSpec, TurnSample
        >>> from agents.policies.sampling import Generation
        >>> turns = tuple(TurnSample(Generation((1,), (k,), (-0.1,), "stop", "a"), "a", "", 0.0)
        ...               for k in (2, 3))
        >>> traj = Trajectory(EpisodeSpec("w", 0, 0), "t", turns, 0.0, True, False, False, None)
        >>> turn_advantages(traj, [TrainSample((1,), (3,), -0.5, (-0.1,))])
        [None, -0.5]
    """
    out: list[float | None] = [None] * len(traj.turns)
    k = 0
    for sample in samples:
        while k < len(traj.turns) and not _is_sample_of(sample, traj.turns[k].generation):
            k += 1
        if k == len(traj.turns):
            raise RuntimeError("rollout recording: a training sample matches no turn of its "
                               f"trajectory ({traj.spec}); the samples are not this step's.")
        out[k] = float(sample.advantage)
        k += 1
    return out


def _is_sample_of(sample: Any, gen: Any) -> bool:
    return (sample.completion_ids is gen.completion_ids and sample.prompt_ids is gen.prompt_ids) \
        or (sample.completion_ids == gen.completion_ids and sample.prompt_ids == gen.prompt_ids)


def _trajectory_rows(traj: Trajectory, head: dict[str, Any], credit: list[float | None]
                     ) -> list[dict[str, Any]]:
    """The rows of one episode (see the module docstring); ``head`` holds its episode columns."""
    turns = traj.turns
    unsent = traj.truncation in ("length", "context")  # its last turn never reached the env
    sent = len(turns) - 1 if unsent and turns else len(turns)
    rows = []
    observation = traj.task
    for t, (turn, adv) in enumerate(zip(turns, credit, strict=True)):
        gen = turn.generation
        ended = t == sent - 1 and not unsent
        rows.append({
            **head, "step_idx": t, "observation": observation,
            "action": turn.action if t < sent else None, "completion": gen.text,
            "finish_reason": str(gen.finish_reason), "prompt_ids": gen.prompt_ids,
            "completion_ids": gen.completion_ids, "sampler_logprobs": gen.logprobs,
            "loss_mask": [int(adv is not None)] * len(gen.completion_ids),
            "trained": adv is not None, "sample_advantage": adv,
            "reward": turn.reward if t < sent else None,
            "terminated": ended and traj.truncation is None,
            "truncated": ended and traj.truncation == "max_turns",
            **{key: turn.info.get(key) for key in (K.ACTION_KIND, K.TOOL, K.VERIFIER_LABEL,
                                                   K.FORMAT_ERROR)}})
        observation = turn.observation
    if not unsent:
        empty = dict.fromkeys(("action", "completion", "finish_reason", "prompt_ids",
                               "completion_ids", "sampler_logprobs", "loss_mask",
                               "sample_advantage", "reward", K.ACTION_KIND, K.TOOL,
                               K.VERIFIER_LABEL, K.FORMAT_ERROR))
        rows.append({**head, **empty, "step_idx": len(turns), "observation": observation,
                     "trained": False, "terminated": traj.truncation is None,
                     "truncated": traj.truncation == "max_turns"})
    for row in rows:
        row["episode_len"] = len(rows)
    return rows


def step_rows(step: int, trajectories: Sequence[Trajectory], kept: Sequence[bool],
              built: Any, samples: Sequence[Any], groups_per_step: int, policy: str
              ) -> list[list[dict[str, Any]]]:
    """This rank's episodes of one step as rows (one list per episode, ``episode_idx`` unset).

    Args:
        step: the step's number (1 = the first).
        trajectories, kept: every episode the step sampled and whether its group was kept
            (:class:`~agents.grpo.dynamic_sampling.StepRollouts`).
        built: the step's :class:`~agents.grpo.train.StepSamples` (advantages and trainable
            flags of the kept trajectories, in order).
        samples: the samples the update used; their ``trajectory`` indexes the kept ones.
        groups_per_step: the groups of one round (a group id's round is ``id // this``).
        policy: the sampling policy's name.
    """
    by_key: dict[int, list[Any]] = {}
    for sample in samples:
        by_key.setdefault(sample.trajectory, []).append(sample)
    episodes = []
    key = 0
    for traj, is_kept in zip(trajectories, kept, strict=True):
        advantage, trainable, own = None, False, []
        if is_kept:
            advantage, trainable = built.advantages[key], built.trainable[key]
            own = by_key.pop(key, [])
            key += 1
        head = {"step": step, "round": traj.spec.group // max(groups_per_step, 1),
                "group": traj.spec.group, "episode_idx": None, "world": traj.spec.world,
                "task_idx": traj.spec.task_idx, "seed": traj.spec.seed, "policy": policy,
                "episode_reward": traj.reward, "episode_success": traj.success,
                "reward_valid": traj.reward_valid, "truncation": traj.truncation,
                "kept": bool(is_kept), "trainable": bool(trainable), "advantage": advantage}
        episodes.append(_trajectory_rows(traj, head, turn_advantages(traj, own)))
    if by_key:
        raise RuntimeError(f"rollout recording: samples of trajectories {sorted(by_key)} but "
                           f"the step kept {key}; the samples are not this step's.")
    return episodes


class RolloutRecorder:
    """Append each GRPO step's episodes to ``<run>/rollouts`` (see the module docstring).

    Every rank calls :meth:`record` after each step (a collective under data parallel); rank 0
    writes.

    Args:
        path: the dataset folder (``<run>/rollouts``).
        env: the training env's id (kept in ``awm_dataset.json``).
        envs: the training vector env (its world set and replay settings are kept, so
            ``awm rescore`` replays as it ran).
        policy: the sampling policy's name.
        seed: the run's seed.
        world: this rank and the number of ranks.
        is_resumed: append to what is there (a resumed run); False: the first step replaces it.
        rows_per_group: rows buffered before they go to the Parquet file.
    """

    def __init__(self, path: str | os.PathLike, env: str, envs: Any, policy: str, seed: int,
                 world: DistInfo | None = None, is_resumed: bool = False,
                 rows_per_group: int = 256) -> None:
        self.path = Path(path)
        self.world = world or DistInfo()
        self.policy = policy
        self.rows_per_group = rows_per_group
        self._mode = "append" if is_resumed else "overwrite"
        config = getattr(envs, "config", None)
        self._recording: dict[str, Any] = {
            "env": env, "policy": policy, "seed": seed, "episodes": 0, "first_episode": 0,
            "options": None, "world_set": world_set_dir(getattr(envs, "runtime", None)),
            "replay": None if config is None else replay_settings(config),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "source": "awm train",
            "run_id": uuid.uuid4().hex}

    def __repr__(self) -> str:
        return f"RolloutRecorder({str(self.path)!r}, policy={self.policy!r})"

    def record(self, trainer: Any) -> None:
        """Write the step a :class:`~agents.grpo.train.GRPOTrainer` has just run."""
        rollouts = trainer.last_rollouts
        episodes = step_rows(trainer.step_idx, rollouts.trajectories, rollouts.kept,
                             trainer.last_step_samples, trainer.last_samples,
                             trainer.setup.rollout.groups_per_step, self.policy)
        episodes = gather_objects(episodes)  # to rank 0 only (the others get []); 1 rank: as is
        if self.world.is_main and episodes:
            self._write(episodes)

    def _write(self, episodes: list[list[dict[str, Any]]]) -> None:
        with DatasetWriter(self.path, [], mode=self._mode, rows_per_group=self.rows_per_group,
                           row_features=rollout_features(), description=_DESCRIPTION) as writer:
            first = writer.next_episode_idx
            for k, rows in enumerate(episodes):
                for row in rows:
                    row["episode_idx"] = first + k
                writer.write_rows(rows)
            writer.episodes = len(episodes)
            recordings = writer.meta.setdefault("recordings", [])
            mine = recordings[-1] if recordings and \
                recordings[-1].get("run_id") == self._recording["run_id"] else None
            if mine is None:
                mine = {**self._recording, "first_episode": first}
                recordings.append(mine)
            mine["episodes"] = first + len(episodes) - mine["first_episode"]
        self._mode = "append"
