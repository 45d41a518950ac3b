"""The GRPO loop for multi-turn tool use on AWM worlds, with a sliding-window history.

What one step does, exactly as implemented:

1. **Tasks.** ``groups_per_step`` (world, task) pairs are drawn from a generator seeded with
   ``(seed, step)`` (a fresh shuffle of all tasks, cycled; with ``task_sampling=pass_rate``,
   weighted by each task's recent pass rate, :mod:`agents.grpo.curriculum`); each gets an
   episode seed. Every group runs ``group_size`` instances of the same task and seed, from the
   same database state. With ``dynamic_sampling`` the step draws further rounds until it holds
   ``groups_per_step`` groups with signal, or ``max_sampling_rounds`` are spent
   (:mod:`agents.grpo.dynamic_sampling`).
2. **Rollouts.** All ``groups_per_step * group_size`` instances run one episode each on one vector
   env (:func:`~agents.grpo.rollout.collect_episodes`); every turn is sampled at temperature
   ``T`` from a prompt rendered with the pinned prefix + last ``w`` turns (w=3 by default), and
   its exact prompt ids, sampled ids and log-probabilities are kept. The reward is the env's
   (verifier ``complete`` 1.0, otherwise 0.0; malformed action -1.0 and the episode ends; step
   limit 0.0).
3. **Advantages.** One per trajectory, normalized within its group over trajectories (``group``:
   ``(r - mean) / (std + 1e-4)``; ``mean`` and ``batch`` as options), copied to every turn of
   the trajectory. Zero-variance groups and unscored episodes are dropped and counted.
4. **Samples.** One per turn: prompt ids + sampled ids, loss on the sampled ids only. A turn cut
   by ``max_new_tokens`` is never sent to the env: it stops its episode. By default
   (``cut_turn=mask``) the whole trajectory is masked (left out of the loss and its group's
   statistics); with ``penalty`` the trajectory keeps its env reward (0.0) in its group and
   only the cut turn's own sample is charged: ``min(A, 0) + cut_turn_reward``. No penalty
   reaches earlier turns or other trajectories. A trajectory stopped by a context overflow
   (the next prompt no longer fits the model) is unscored in both modes, none of its turns
   trains: the overflow usually comes from long tool results, not from the policy
   (``rollout/context_overflow_rate``).
5. **Update.** ``optimizer_steps_per_step`` AdamW steps (1 by default) whatever the number of
   turns; token-level PPO-clip with ``clip_low`` 0.2 / ``clip_high`` 0.28, the token losses
   summed per ``loss_norm`` (token mean over the mini-batch by default; each trajectory
   weighing the same, or a constant divisor, as options), optional k3 KL to the frozen
   starting model (off by default); dropout off; gradient accumulation over micro-batches by
   token budget; gradient norm clipped to 1.0. With one optimizer step the ratio is exactly 1,
   so the clip never binds (plain policy gradient); it matters with several.
6. **Sync.** The vLLM engine (when it samples) gets every tensor, ``lm_head`` included, in
   memory (a LoRA adapter merged in), whenever the optimizer stepped, also on a rank that had
   no samples of its own (its weights moved with the others' gradients).

Data parallel (``torchrun``, :mod:`agents.parallel`): each rank runs whole groups of the step
on its own share of the instances; ``advantage=batch`` divides by the standard deviation of
every rank's rewards; the model trains through torch's DDP (or FSDP2) and the reduced gradient
equals the one-process gradient of the whole batch.
7. **Log and checkpoint.** Metrics go to the sinks; checkpoints every ``checkpoint_every``
   steps and at the end hold weights (LoRA: the adapter), optimizer (under FSDP: each rank's
   shard) and step; all randomness derives from ``(seed, step)``, so a resumed run repeats
   the next step exactly.

Departures from the GRPO paper: multi-turn episodes split into per-turn samples (each
conditioned on the window, as sampled), token-mean over the batch instead of per-sequence means
by default (``loss_norm=seq_mean_token_mean`` gives the per-trajectory mean), clip-higher, KL
off by default.

Example:
    >>> trainer = GRPOTrainer(model, tokenizer, envs, policy, setup)   # doctest: +SKIP
    >>> trainer.train(steps=10, sink=sink)                            # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..chat_format import pad_token_id
from ..errors import AgentConfigError
from ..parallel import (
    DistInfo,
    ParallelConfig,
    all_gather_objects,
    all_reduce,
    shard_groups,
    wrap_for_training,
)
from ..precision import DType
from . import metrics as M
from .advantages import AdvantageMode, compute_advantages
from .batching import build_samples, trajectory_credit
from .checkpoint import load_optimizer_state, save_training_checkpoint
from .config import CutTurnMode, GRPOConfig, LossNorm, OptimConfig, RolloutConfig
from .curriculum import (
    PASS_RATE_FILE,
    PassRates,
    TaskSampling,
    load_pass_rates,
    weighted_order,
    write_pass_rate_report,
)
from .dynamic_sampling import GroupRecord, StepRollouts, collect_step_rollouts
from .rollout import EpisodeSpec, RolloutTimings, Trajectory, list_tasks
from .update import grpo_update

logger = logging.getLogger(__name__)

__all__ = ["GRPOSetup", "GRPOTrainer", "step_specs"]


@dataclass(frozen=True)
class GRPOSetup:
    """The parts of the run config the trainer needs."""

    rollout: RolloutConfig
    grpo: GRPOConfig
    optim: OptimConfig
    temperature: float
    """Sampling temperature (the loss's log-probabilities use it too)."""
    seed: int = 0
    """Run seed: tasks, episode seeds and sampling seeds of step s derive from (seed, s)."""
    checkpoint_every: int = 0
    """Save a checkpoint every this many steps and at the last (0: only at the last)."""
    dtype: DType = DType.FLOAT32
    """The run's precision (bfloat16: the trainer's forward passes run under autocast)."""


def _with_loss_norm_constant(setup: GRPOSetup, sampling: Any) -> GRPOSetup:
    """``setup`` with Dr. GRPO's divisor filled in when ``loss_norm`` is constant and none was
    given: the mini-batch's episodes x ``max_turns`` x ``max_new_tokens`` (its most tokens)."""
    grpo = setup.grpo
    if grpo.effective_loss_norm is not LossNorm.CONSTANT or grpo.loss_norm_constant is not None:
        return setup
    if sampling is None:
        raise AgentConfigError("GRPOConfig.loss_norm constant: set GRPOConfig.loss_norm_constant "
                               "(this policy reports no max_new_tokens to derive it from).")
    episodes = setup.rollout.episodes_per_step / setup.optim.optimizer_steps_per_step
    constant = episodes * setup.rollout.max_turns * sampling.max_new_tokens
    return replace(setup, grpo=replace(grpo, loss_norm_constant=float(constant)))


def step_specs(tasks: list[tuple[str, int]], rollout: RolloutConfig, seed: int, step: int,
               round_idx: int = 0, weights: Sequence[float] | None = None) -> list[EpisodeSpec]:
    """The episodes of GRPO step ``step``'s round ``round_idx``: ``groups_per_step`` groups of
    ``group_size``, group ids ``round_idx * groups_per_step + g`` (unique within the step).

    Args:
        tasks: the training tasks.
        rollout: groups per step and group size.
        seed, step, round_idx: what the draw derives from (round 0 is the step's first draw,
            the only one without dynamic sampling).
        weights: per task, its draw weight (``task_sampling=pass_rate``); None: a uniform
            shuffle of the tasks, cycled.

    Example:
        >>> specs = step_specs([("w", 0), ("w", 1)], RolloutConfig(groups_per_step=3,
        ...                    group_size=2), seed=0, step=0)
        >>> [s.group for s in specs], len({s.task_idx for s in specs[:4]})
        ([0, 0, 1, 1, 2, 2], 2)
        >>> [s.group for s in step_specs([("w", 0)], RolloutConfig(groups_per_step=2,
        ...                              group_size=2), seed=0, step=0, round_idx=1)]
        [2, 2, 3, 3]
    """
    rng = random.Random(seed * 1_000_003 + step) if round_idx == 0 \
        else random.Random(f"{seed}:{step}:{round_idx}")
    order: list[tuple[str, int]] = []
    if weights is not None:
        order = weighted_order(tasks, weights, rollout.groups_per_step, rng)
    while len(order) < rollout.groups_per_step:
        chunk = list(tasks)
        rng.shuffle(chunk)
        order.extend(chunk)
    specs = []
    first = round_idx * rollout.groups_per_step
    for g in range(rollout.groups_per_step):
        world, task = order[g]
        episode_seed = rng.randrange(2**31)
        specs.extend(EpisodeSpec(world, task, episode_seed, first + g)
                     for _ in range(rollout.group_size))
    return specs


@dataclass(frozen=True)
class StepSamples:
    """What a step's trajectories train: the samples, and the counts its metrics report."""

    samples: list[Any]
    zero_std_groups: int
    groups: int
    masked: int
    """Trajectories stopped by a cut turn and left out of the loss (``cut_turn=mask``)."""
    advantages: tuple[float, ...] = ()
    """Per trajectory given to :func:`step_samples`, its advantage (0 where it does not train)."""
    trainable: tuple[bool, ...] = ()
    """Per trajectory, whether its turns train (scored, in a group with signal)."""


def step_samples(trajs: list[Trajectory], grpo: GRPOConfig, world: DistInfo | None = None
                 ) -> StepSamples:
    """This rank's training samples from its trajectories (whole groups): rewards, advantages
    (``batch``'s standard deviation over every rank's rewards), one sample per turn.

    Example:
        >>> step_samples([], GRPOConfig()).samples
        []
    """
    rewards, scored = trajectory_credit(trajs, grpo.cut_turn)
    batch_rewards = None
    if world is not None and world.is_distributed and grpo.advantage is AdvantageMode.BATCH:
        batch_rewards = all_gather_objects([r for r, ok in zip(rewards, scored, strict=True)
                                            if ok])
    adv = compute_advantages(rewards, [t.spec.group for t in trajs], scored, grpo.advantage,
                             grpo.adv_eps, batch_rewards)
    penalty = grpo.cut_turn_reward if grpo.cut_turn is CutTurnMode.PENALTY else None
    samples = build_samples(trajs, adv.values, adv.trainable, penalty)
    masked = sum(t.is_cut and not ok for t, ok in zip(trajs, scored, strict=True))
    return StepSamples(samples, adv.zero_std_groups, adv.groups, masked,
                       tuple(float(a) for a in adv.values), tuple(bool(t) for t in adv.trainable))


class GRPOTrainer:
    """Collect groups, compute advantages, update, sync, log: one :meth:`step` at a time.

    Args:
        model: the policy's weights (trained in place).
        tokenizer: its tokenizer (padding id, checkpoints).
        envs: a vector env with ``rollout.episodes_per_step`` instances.
        policy: a ChatPolicy that samples (an HFPolicy sharing ``model``, or a VLLMPolicy).
        setup: configs and seeds.
        ref_model: frozen reference for the KL term (needed when ``kl_coef > 0``).
        config_record: the resolved run config, saved in checkpoints.
        world: this process's rank and the number of processes (data parallel); ``envs`` then
            has this rank's share of the instances.
        parallel: how the model is spread over ranks (DDP by default; ignored in one
            process): the trainer runs forward and backward through
            :func:`agents.parallel.wrap_for_training`'s module, while ``model`` itself samples
            (transformers), syncs the vLLM engine and is saved.
    """

    def __init__(self, model: Any, tokenizer: Any, envs: Any, policy: Any, setup: GRPOSetup,
                 ref_model: Any = None, config_record: dict[str, Any] | None = None,
                 world: DistInfo | None = None, parallel: ParallelConfig | None = None) -> None:
        import torch

        self.world = world or DistInfo()
        local = setup.rollout.episodes_per_step // self.world.world_size
        if envs.num_envs != local:
            raise ValueError(f"the vector env has {envs.num_envs} instances; GRPO needs "
                             f"groups_per_step * group_size / processes = {local}.")
        if setup.grpo.kl_coef > 0 and ref_model is None:
            raise ValueError("GRPOConfig.kl_coef > 0 needs a frozen ref_model.")
        sampling = getattr(policy, "sampling", None)
        if sampling is not None and sampling.top_p < 1:
            raise AgentConfigError(
                f"SamplingConfig.top_p={sampling.top_p} in GRPO: the loss's log-probabilities "
                "are of the full softmax(logits / T), not of the nucleus the tokens were drawn "
                "from, so every step would be off-policy. Sample GRPO rollouts with top_p=1.0 "
                "(evaluation may use any top_p).")
        setup = _with_loss_norm_constant(setup, sampling)
        self.model, self.tokenizer, self.envs, self.policy = model, tokenizer, envs, policy
        self.setup = setup
        self.ref_model = ref_model
        self.config_record = config_record or {}
        device = next(model.parameters()).device.type
        self.train_module = wrap_for_training(model, (parallel or ParallelConfig()).strategy,
                                              self.world, device, dtype=setup.dtype)
        o = setup.optim  # built after wrapping: FSDP2 replaces the parameters by shards
        self.optimizer = torch.optim.AdamW(
            [p for p in self.train_module.parameters() if p.requires_grad], lr=o.lr,
            betas=(o.beta1, o.beta2), weight_decay=o.weight_decay)
        self.tasks = list_tasks(envs)
        self.pad_id = pad_token_id(tokenizer)
        self.step_idx = 0
        self.pass_rates = PassRates(ema=setup.rollout.pass_rate_ema)
        self.last_trajectories: list[Trajectory] = []
        """Every episode the last step sampled on this rank (all its rounds)."""
        self.last_rollouts = StepRollouts()
        """The last step's rollouts: which groups it kept, its rounds and counts."""
        self.last_samples: list[Any] = []
        """The training samples the last step's update used (this rank's)."""
        self.last_step_samples = StepSamples([], 0, 0, 0)
        """The last step's samples with its kept trajectories' advantages (this rank's)."""

    def load_state(self, checkpoint_dir: str, step: int) -> None:
        """Restore the optimizer, the tasks' pass rates and the step counter (the model was
        loaded from the same folder)."""
        load_optimizer_state(checkpoint_dir, self.optimizer, self.train_module)
        self.pass_rates = load_pass_rates(checkpoint_dir, self.setup.rollout.pass_rate_ema)
        self.step_idx = step

    def _draw(self, round_idx: int) -> list[EpisodeSpec]:
        """Round ``round_idx`` of this step's episodes, by the run's task sampling."""
        r = self.setup.rollout
        weights = None
        if r.task_sampling is TaskSampling.PASS_RATE:
            weights = [self.pass_rates.weight(t, r.pass_rate_floor) for t in self.tasks]
        return step_specs(self.tasks, r, self.setup.seed, self.step_idx, round_idx, weights)

    def _seed_round(self, round_idx: int) -> None:
        s, w = self.setup, self.world
        self.policy.set_seed(s.seed * 1_000_003 + self.step_idx + 7919 * w.rank
                             + 1_046_527 * round_idx)

    def _collect(self, timings: RolloutTimings) -> StepRollouts:
        """This step's rollouts, round by round (one round without dynamic sampling); the
        tasks' pass rates follow every round's groups."""
        r = self.setup.rollout
        step = self.step_idx

        def record(records: list[GroupRecord]) -> None:
            self.pass_rates.update((rec.outcome for rec in records), step)

        return collect_step_rollouts(self.envs, self.policy, self._draw, self.setup.grpo,
                                     needed=r.groups_per_step, max_rounds=r.max_sampling_rounds,
                                     is_dynamic=r.dynamic_sampling, world=self.world,
                                     seed_round=self._seed_round, on_round=record,
                                     timings=timings)

    def step(self) -> dict[str, float]:
        """Run GRPO step ``self.step_idx``; returns its metrics."""
        s = self.setup
        t0 = time.perf_counter()
        w = self.world
        timings = RolloutTimings()
        rollouts = self._collect(timings)
        self.last_rollouts = rollouts
        self.last_trajectories = rollouts.trajectories
        built = step_samples(rollouts.kept_trajectories, s.grpo, w)
        self.last_samples = built.samples
        self.last_step_samples = built
        t1 = time.perf_counter()
        lr = s.optim.lr_at(self.step_idx)
        # a vLLM engine in sleep mode frees its GPU memory (KV cache) for the update
        released = getattr(self.policy.backend, "released", contextlib.nullcontext)
        with released():
            stats = grpo_update(self.train_module, self.optimizer, built.samples, s.grpo,
                                s.optim, s.temperature, self.pad_id, lr=lr,
                                ref_model=self.ref_model, dtype=s.dtype,
                                is_distributed=w.is_distributed)
        t2 = time.perf_counter()
        sync_s = 0.0
        load_weights = getattr(self.policy.backend, "load_weights", None)
        if stats["loss/optimizer_steps"] > 0 and callable(load_weights):
            # the weights moved: on every rank that stepped, its own samples or none
            sync_s = load_weights(self.model)
        self.step_idx += 1
        totals = M.rollout_totals(rollouts.trajectories)
        masked = float(built.masked)
        if w.is_distributed:  # scalars only: every rank's episodes summed, no trajectories moved
            *totals, masked = all_reduce([*totals, masked])
        out = M.metrics_from_totals(totals)
        out.update(stats)
        out.update(self._sampling_metrics(rollouts))
        out.update({M.FRAC_ZERO_STD: rollouts.zero_std_groups / max(rollouts.groups_sampled, 1),
                    M.MASKED_EPISODES: float(masked),
                    M.LR: lr, M.ENV_TIME_S: timings.env_s, M.GENERATE_TIME_S: timings.generate_s,
                    M.TRAIN_TIME_S: t2 - t1, M.SYNC_TIME_S: sync_s,
                    M.ENV_STEPS_PER_S: timings.env_steps / max(timings.env_s, 1e-9),
                    M.GEN_TOKENS_PER_S: timings.generated_tokens / max(timings.generate_s, 1e-9),
                    M.STEP_TIME_S: time.perf_counter() - t0})
        return out

    def _sampling_metrics(self, rollouts: StepRollouts) -> dict[str, float]:
        """Rounds, groups kept and discarded, their rollout time, and the pass rates (the
        summary, and each task drawn this step)."""
        r = self.setup.rollout
        short = max(r.groups_per_step - rollouts.groups_kept, 0) if r.dynamic_sampling else 0
        out = {M.ROUNDS: float(rollouts.rounds),
               M.EPISODES_SAMPLED: float(rollouts.groups_sampled * r.group_size),
               M.GROUPS_KEPT: float(rollouts.groups_kept),
               M.GROUPS_DISCARDED: float(rollouts.groups_discarded),
               M.GROUPS_WITH_SIGNAL: float(rollouts.groups_with_signal),
               M.GROUPS_SHORT: float(short),
               M.DISCARDED_TIME_FRAC: rollouts.discarded_s / max(rollouts.rollout_s, 1e-9)}
        out.update(self.pass_rates.summary(self.tasks, r.pass_rate_floor))
        for world, task in dict.fromkeys(o.task for o in rollouts.outcomes):
            rate = self.pass_rates.rate((world, task))
            if rate is not None:
                out[f"{M.PASS_RATE_PREFIX}{world}/{task}"] = rate
        return out

    def save(self, run_dir: str) -> str | None:
        """Checkpoint the current state under ``run_dir``; returns the folder (None off rank 0).

        Every rank calls it: under FSDP the full weights are gathered for rank 0 and every
        rank writes its shard of the optimizer state (collectives); rank 0 writes the rest
        (the tasks' pass rates beside them). With LoRA the weights are the adapter's.
        """
        path = save_training_checkpoint(run_dir, self.step_idx, self.model, self.train_module,
                                        self.tokenizer, self.optimizer, self.config_record,
                                        self.world,
                                        extra_files={PASS_RATE_FILE: self.pass_rates.to_json()})
        return None if path is None else str(path)

    def write_pass_rates(self, run_dir: str) -> None:
        """Write the tasks' pass-rate table and plot into ``run_dir`` (rank 0 only)."""
        if self.world.is_main:
            write_pass_rate_report(self.pass_rates, self.tasks, run_dir)

    def train(self, steps: int, sink: Any, run_dir: str | None = None,
              on_step: Callable[[int, dict[str, float]], None] | None = None) -> None:
        """Run until ``steps`` GRPO steps are done in total (resumed runs continue the count).

        Args:
            steps: the total number of steps.
            sink: a :class:`~agents.grpo.metrics.MetricsSink`.
            run_dir: where checkpoints go (None: no checkpoints).
            on_step: called with ``(completed_steps, metrics)`` after each step.
        """
        every = self.setup.checkpoint_every
        main = self.world.is_main  # one rank logs and writes checkpoints
        saved = None  # the step of the last checkpoint written here
        while self.step_idx < steps:
            metrics = self.step()
            if main:
                sink.log(metrics, self.step_idx)
            if on_step is not None:
                on_step(self.step_idx, metrics)
            if run_dir is not None and ((every and self.step_idx % every == 0)
                                        or self.step_idx == steps):
                self.save(run_dir)
                saved = self.step_idx
        if run_dir is not None and steps > 0:
            if saved != self.step_idx:  # a resumed run with nothing left to do
                self.save(run_dir)
            self.write_pass_rates(run_dir)
