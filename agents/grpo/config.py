"""GRPO's configuration: one frozen dataclass per part (rollouts, the loss, the optimizer).

Defaults are the offline default (the tiny local model on the built-in worlds); docs/training.md
gives the values for real models. The CLI (``awm train``) is generated from these fields and
their docstrings.

Example:
    >>> GRPOConfig(clip_low=0.2, clip_high=0.28).advantage
    <AdvantageMode.GROUP: 'group'>
    >>> RolloutConfig(groups_per_step=4, group_size=8).episodes_per_step
    32
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from awm_gym.envs import coerce_workers
from awm_gym.vocab import coerce_enum

from ..errors import AgentConfigError
from .advantages import AdvantageMode
from .curriculum import TaskSampling

__all__ = ["BackendKind", "CutTurnMode", "LossNorm", "RolloutConfig", "GRPOConfig", "OptimConfig"]


class BackendKind(str, enum.Enum):
    """Which engine samples rollouts."""

    AUTO = "auto"
    """vLLM when it is installed, else transformers."""
    HF = "hf"
    """transformers ``generate`` on the trainer's own model (no weight sync needed)."""
    VLLM = "vllm"
    """vLLM's offline engine, weights reloaded after every step."""

    @classmethod
    def coerce(cls, value: str | BackendKind) -> BackendKind:
        return coerce_enum(cls, value, field="RolloutConfig.backend", error=AgentConfigError)


class CutTurnMode(str, enum.Enum):
    """What a turn cut by ``max_new_tokens`` does to its trajectory's credit.

    The rollout never sends a cut turn to the env (it would be scored as a malformed action and
    its -1.0 copied to every earlier turn); it stops the instance. Then:
    """

    MASK = "mask"
    """The trajectory leaves the loss and its group's statistics (DAPO's overlong filtering,
    per trajectory)."""
    PENALTY = "penalty"
    """The cut is charged to the cut turn's own sample only: the trajectory keeps its env
    reward (0.0) in its group's statistics, its earlier turns get that advantage as usual, and
    the cut turn gets ``min(A, 0) + GRPOConfig.cut_turn_reward`` (``A`` its trajectory's
    advantage, 0 in a group without variance), so it is pushed down even when its group has no
    signal, and no other trajectory gains from it."""

    @classmethod
    def coerce(cls, value: str | CutTurnMode) -> CutTurnMode:
        return coerce_enum(cls, value, field="GRPOConfig.cut_turn", error=AgentConfigError)


class LossNorm(str, enum.Enum):
    """How a mini-batch's per-token losses are summed into the loss (``GRPOConfig.loss_norm``).

    ``l_k`` is the loss of sampled token ``k``; sums run over the mini-batch (all ranks).
    """

    TOKEN_MEAN = "token_mean"
    """``sum_k l_k / (sampled tokens)``: every token weighs the same, so a trajectory weighs by
    its tokens (a 9-turn failure outweighs a 2-turn success ~4x). DAPO's token-level loss."""
    SEQ_MEAN_TOKEN_MEAN = "seq_mean_token_mean"
    """``mean over trajectories of (sum of its l_k / its sampled tokens)``: every trajectory
    weighs the same, its tokens across all its turn samples sharing its weight (the GRPO
    paper's per-sequence mean, a trajectory being the sequence)."""
    CONSTANT = "constant"
    """``sum_k l_k / GRPOConfig.loss_norm_constant``: no length normalisation at all
    (Dr. GRPO, with ``mean`` advantages)."""

    @classmethod
    def coerce(cls, value: str | LossNorm) -> LossNorm:
        return coerce_enum(cls, value, field="GRPOConfig.loss_norm", error=AgentConfigError)


@dataclass(frozen=True)
class RolloutConfig:
    """Which episodes a GRPO step collects and how."""

    env_id: str = "AWM/mix-v0"
    """Gymnasium id of the worlds to train on (``AWM/mix-v0``: every world of the set)."""
    worlds: tuple[str, ...] | None = None
    """Restrict training to these worlds (None: all the env id offers)."""
    world_set: str | None = None
    """A world set directory (None: the built-in worlds)."""
    groups_per_step: int = 8
    """Tasks per GRPO step; each is run ``group_size`` times from the same task and seed."""
    group_size: int = 8
    """Rollouts per group; advantages are normalized within the group."""
    max_turns: int = 10
    """Turns before an episode is truncated (the env's ``max_episode_steps``)."""
    backend: BackendKind = BackendKind.AUTO
    """Sampling engine: auto | hf | vllm."""
    hf_batch_size: int = 64
    """Most prompts per transformers ``generate`` call."""
    num_workers: int | str = "auto"
    """Shards the rollout env's instances run in (the env's ``num_workers``): "auto" (one per
    core once each gets 64 instances; the main job's 64 run in this process), 0 (this
    process) or k >= 1."""
    env_backend: str = "local"
    """Where those shards run: local (processes here) | ray (Ray actors in the cluster at
    ``ray_address``; the env's ``backend``, see docs/runtime.md, 'Ray')."""
    ray_address: str | None = None
    """The Ray cluster for ``env_backend=ray`` (None: the connected one, else a new local one)."""
    exclude: str | None = None
    """An exclusion file (``awm check PATH --write-exclusions FILE``): its tasks are never
    trained on, recorded or evaluated (the env's ``exclude``; a split made from fractions
    leaves them out too)."""
    dynamic_sampling: bool = False
    """Refill the step with groups that carry signal (DAPO's dynamic sampling): run up to
    max_sampling_rounds rounds of groups_per_step groups and keep the groups whose rewards
    differ until the step has groups_per_step of them (docs/training.md, "Every step on
    signal"). Off: one round, and groups whose rewards are all equal are dropped."""
    max_sampling_rounds: int = 4
    """With dynamic_sampling, rollout rounds a step may run at most, the first included (when
    they are spent the step trains on the groups it has; rollout/groups_short counts the rest)."""
    task_sampling: TaskSampling = TaskSampling.UNIFORM
    """How a step draws its tasks: uniform (a fresh shuffle of all tasks) | pass_rate (weight
    max(pass_rate_floor, 4 p (1 - p)) by each task's recent pass rate p: tasks in the learnable
    band first, tasks always or never solved drawn less, none starved)."""
    pass_rate_ema: float = 0.5
    """Weight of a task's newest group in its pass rate (an exponential moving average)."""
    pass_rate_floor: float = 0.05
    """Smallest draw weight of a task under task_sampling pass_rate (a task at p = 0.5 weighs 1):
    > 0, so a task never or always solved is still drawn now and then and measured again."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "backend", BackendKind.coerce(self.backend))
        object.__setattr__(self, "task_sampling", TaskSampling.coerce(self.task_sampling))
        if self.max_sampling_rounds < 1:
            raise AgentConfigError(f"RolloutConfig.max_sampling_rounds="
                                   f"{self.max_sampling_rounds}: use >= 1 (the first round "
                                   "counts).")
        if not 0 < self.pass_rate_ema <= 1:
            raise AgentConfigError(f"RolloutConfig.pass_rate_ema={self.pass_rate_ema}: use a "
                                   "weight in (0, 1].")
        if not 0 < self.pass_rate_floor <= 1:
            raise AgentConfigError(f"RolloutConfig.pass_rate_floor={self.pass_rate_floor}: use "
                                   "a weight in (0, 1] (0 would starve tasks never solved).")
        if self.env_backend not in ("local", "ray"):
            raise AgentConfigError(f"RolloutConfig.env_backend={self.env_backend!r}: choose one "
                                   "of 'local', 'ray'.")
        try:
            object.__setattr__(self, "num_workers",
                               coerce_workers(self.num_workers, "RolloutConfig.num_workers"))
        except ValueError as e:
            raise AgentConfigError(str(e)) from None
        if self.env_backend == "ray" and self.num_workers in ("auto", 0):
            raise AgentConfigError("RolloutConfig.env_backend='ray' with num_workers="
                                   f"{self.num_workers!r}: each shard is a Ray actor; set "
                                   "num_workers >= 1.")
        if self.worlds is not None:
            object.__setattr__(self, "worlds", tuple(self.worlds))
        if self.group_size < 2:
            raise AgentConfigError(f"RolloutConfig.group_size={self.group_size}: GRPO needs at "
                                   "least 2 rollouts per group to form an advantage; set "
                                   "group_size >= 2.")
        if self.groups_per_step < 1:
            raise AgentConfigError(f"RolloutConfig.groups_per_step={self.groups_per_step}: "
                                   "use >= 1.")
        if self.max_turns < 1:
            raise AgentConfigError(f"RolloutConfig.max_turns={self.max_turns}: use >= 1.")

    @property
    def env_kwargs(self) -> dict[str, object]:
        """The vector env's keyword arguments for worlds and shards (``gym.make_vec(...)``)."""
        kwargs: dict[str, object] = {}
        if self.worlds is not None:
            kwargs["worlds"] = list(self.worlds)
        if self.world_set is not None:
            kwargs["world_set"] = self.world_set
        kwargs.update(num_workers=self.num_workers, backend=self.env_backend)
        if self.ray_address is not None:
            kwargs["ray_address"] = self.ray_address
        if self.exclude is not None:
            kwargs["exclude"] = self.exclude
        return kwargs

    @property
    def episodes_per_step(self) -> int:
        """Instances of the vector env: ``groups_per_step * group_size``."""
        return self.groups_per_step * self.group_size


@dataclass(frozen=True)
class GRPOConfig:
    """The objective: advantages, clipping, KL, masking."""

    steps: int = 20
    """GRPO steps (collect, then update)."""
    advantage: AdvantageMode = AdvantageMode.GROUP
    """Reward normalization: group (mean/std in the group) | mean (mean only; Dr. GRPO with
    loss_norm constant, its default) | batch (group mean, batch std)."""
    loss_norm: LossNorm | None = None
    """How token losses sum into the loss: token_mean | seq_mean_token_mean (each trajectory
    weighs the same) | constant (divide by loss_norm_constant: Dr. GRPO). None: constant with
    advantage mean (Dr. GRPO), token_mean otherwise."""
    loss_norm_constant: float | None = None
    """The divisor of loss_norm constant, in tokens (None: GRPOTrainer sets Dr. GRPO's
    "episodes x longest episode": the mini-batch's episodes x max_turns x max_new_tokens)."""
    adv_eps: float = 1e-4
    """Added to the standard deviation before dividing."""
    clip_low: float = 0.2
    """The ratio may fall to ``1 - clip_low`` before the surrogate is clipped."""
    clip_high: float = 0.28
    """The ratio may rise to ``1 + clip_high`` before the surrogate is clipped (clip-higher)."""
    kl_coef: float = 0.0
    """Weight of the k3 KL to the frozen starting model (0: off, no reference model kept)."""
    cut_turn: CutTurnMode = CutTurnMode.MASK
    """A turn cut by max_new_tokens stops its episode; then: mask (the whole trajectory leaves
    the loss and its group's statistics) | penalty (the cut turn's own sample is charged
    cut_turn_reward; the trajectory's earlier turns train on its unpenalised reward)."""
    cut_turn_reward: float = -1.0
    """With cut_turn penalty, the cut turn's advantage is min(A, 0) + this (A: its
    trajectory's advantage, 0 when its group has no variance); use <= 0."""
    tis_cap: float | None = 2.0
    """Truncated importance sampling: weight each token's policy-gradient term by
    min(pi_trainer / pi_sampler, tis_cap), the ratio of the trainer's log-probability before
    the update to the sampler's (none: off). On by default because the sampler's numerics are
    never exactly the trainer's (bf16 kernels against bf16 autocast: up to ~1e-3 in a token's
    log-probability; a precision mismatch: up to 10%), and uncorrected that bias is silent.
    2 is verl's and prime-rl's cap: it bounds the variance of a rare token the sampler
    undersold and leaves the usual ratios (0.9-1.1) alone. With a float32 sampler (the main
    job) the ratio is 1 within 3e-5: the weight moves the update that little, the cap never
    binds."""

    @property
    def effective_loss_norm(self) -> LossNorm:
        """``loss_norm``, its None resolved: constant with ``mean`` advantages, else token_mean.

        Example:
            >>> GRPOConfig().effective_loss_norm, GRPOConfig(advantage="mean").effective_loss_norm
            (<LossNorm.TOKEN_MEAN: 'token_mean'>, <LossNorm.CONSTANT: 'constant'>)
        """
        if self.loss_norm is not None:
            return self.loss_norm
        return LossNorm.CONSTANT if self.advantage is AdvantageMode.MEAN else LossNorm.TOKEN_MEAN

    def __post_init__(self) -> None:
        object.__setattr__(self, "advantage", AdvantageMode.coerce(self.advantage))
        object.__setattr__(self, "cut_turn", CutTurnMode.coerce(self.cut_turn))
        if self.loss_norm is not None:
            object.__setattr__(self, "loss_norm", LossNorm.coerce(self.loss_norm))
        if self.loss_norm_constant is not None and self.loss_norm_constant <= 0:
            raise AgentConfigError(f"GRPOConfig.loss_norm_constant={self.loss_norm_constant}: "
                                   "use a number of tokens > 0, or None for Dr. GRPO's "
                                   "episodes x max_turns x max_new_tokens.")
        if self.cut_turn_reward > 0:
            raise AgentConfigError(f"GRPOConfig.cut_turn_reward={self.cut_turn_reward}: it is "
                                   "a penalty on the cut turn's advantage; use <= 0 (-1.0 is "
                                   "the default).")
        if self.tis_cap is not None and self.tis_cap <= 0:
            raise AgentConfigError(f"GRPOConfig.tis_cap={self.tis_cap}: use a cap > 0 (2, the "
                                   "default, is verl's and prime-rl's) or None to turn the "
                                   "correction off.")
        if self.steps < 0:
            raise AgentConfigError(f"GRPOConfig.steps={self.steps}: use >= 0.")
        if not 0 <= self.clip_low < 1 or self.clip_high < 0:
            raise AgentConfigError(f"GRPOConfig.clip_low={self.clip_low}, clip_high="
                                   f"{self.clip_high}: use 0 <= clip_low < 1 and clip_high >= 0.")
        if self.kl_coef < 0:
            raise AgentConfigError(f"GRPOConfig.kl_coef={self.kl_coef}: use >= 0 (0 turns the "
                                   "KL term off).")


@dataclass(frozen=True)
class OptimConfig:
    """AdamW and the update schedule."""

    lr: float = 2e-4
    """Peak learning rate (the tiny model; full fine-tuning of a real model uses ~1e-6)."""
    warmup_steps: int = 0
    """GRPO steps of linear warm-up; constant afterwards."""
    weight_decay: float = 0.0
    """AdamW weight decay."""
    beta1: float = 0.9
    """AdamW beta1."""
    beta2: float = 0.99
    """AdamW beta2."""
    max_grad_norm: float = 1.0
    """Clip the global gradient norm to this before each optimizer step."""
    optimizer_steps_per_step: int = 1
    """Optimizer steps per GRPO step, whatever the number of turns (the trajectories are split
    in this many mini-batches, each trajectory whole in one; the first mini-batch's policy
    ratio is exactly 1, so with 1 the clip never binds)."""
    micro_batch_tokens: int = 16384
    """Token budget of one forward/backward (rows x longest row); gradients accumulate."""
    padding_free: bool = True
    """Pack each micro-batch's samples several to a row (position ids restarting per sample, a
    block-diagonal causal mask; verl's use_remove_padding; one row under flash attention) and
    run the output head at sampled tokens only, instead of right-padded rows with the head
    from the earliest sampled token on: the same loss and gradient (to 1e-6 in float32), never
    more forwarded tokens, a third of the head's positions on the main job's step
    (docs/training.md, "Several GPUs"). A model whose attention mask does not come from
    transformers' masking_utils runs padded rows, with a warning. false: padded rows."""

    def __post_init__(self) -> None:
        if self.lr <= 0:
            raise AgentConfigError(f"OptimConfig.lr={self.lr}: use > 0.")
        if self.optimizer_steps_per_step < 1:
            raise AgentConfigError(f"OptimConfig.optimizer_steps_per_step="
                                   f"{self.optimizer_steps_per_step}: use >= 1.")
        if self.micro_batch_tokens < 1:
            raise AgentConfigError(f"OptimConfig.micro_batch_tokens={self.micro_batch_tokens}: "
                                   "use >= 1.")

    def lr_at(self, step: int) -> float:
        """Learning rate during GRPO step ``step`` (0-based)."""
        if self.warmup_steps <= 0:
            return self.lr
        return self.lr * min(1.0, (step + 1) / self.warmup_steps)
