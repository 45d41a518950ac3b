"""Stage 3, GRPO: the sampler (vLLM or transformers), the model prepared for training (LoRA,
checkpointing), the trainer, and its steps with the evaluations in between.

Example:
    >>> model, policy = sampling_policy(cfg, model, tok, "out", BackendKind.HF)  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from awm_gym.boundary import closing_on_error

from ..chat_format import ChatFormatConfig
from ..config import ModelConfig, TrainConfig, config_to_dict
from ..grpo.config import BackendKind, RolloutConfig
from ..parallel import DistInfo
from ..policies.hf_policy import load_model_and_tokenizer
from ..policies.sampling import SamplingConfig
from ..policies.vllm_policy import VLLMEngineConfig

logger = logging.getLogger(__name__)

__all__ = ["backend_kind", "sampling_policy", "run_grpo"]


def backend_kind(rollout: RolloutConfig, world: DistInfo | None = None) -> BackendKind:
    """The sampler the run uses: ``auto`` is vLLM when it is installed, except for several
    ranks on a CPU host (transformers then; an explicit ``vllm`` is refused there by
    :func:`agents.parallel.check_parallel`)."""
    from ..policies.hf_policy import resolve_device
    from ..policies.vllm_policy import vllm_available

    kind = rollout.backend
    if kind is BackendKind.AUTO:
        several_on_cpu = (world is not None and world.is_distributed
                          and resolve_device("auto") == "cpu")
        kind = BackendKind.VLLM if vllm_available() and not several_on_cpu else BackendKind.HF
        if kind is BackendKind.HF:
            logger.warning("%s: sampling with transformers instead",
                           "several ranks on CPU" if several_on_cpu else "vLLM is not installed")
    return kind


def prepare_for_training(model: Any, model_cfg: ModelConfig) -> Any:
    """Gradient checkpointing and LoRA adapters, as the model config asks (float32 adapters,
    whatever the base's dtype: :func:`agents.lora.apply_lora`)."""
    from ..lora import apply_lora, enable_gradient_checkpointing, is_peft_model

    if model_cfg.gradient_checkpointing:
        enable_gradient_checkpointing(model)
    if model_cfg.lora.is_enabled and not is_peft_model(model):  # resumed: it has its adapter
        model = apply_lora(model, model_cfg.lora)
    return model


def rollout_policy(kind: BackendKind, model: Any, tokenizer: Any, start_path: str,
                    model_cfg: ModelConfig, chat: ChatFormatConfig, sampling: SamplingConfig,
                    vllm: VLLMEngineConfig, hf_batch_size: int) -> Any:
    """The policy GRPO samples with: vLLM serving ``start_path``, or transformers on ``model``
    (``hf_batch_size`` prompts a batch), in ``model_cfg.dtype``."""
    if kind is BackendKind.VLLM:
        from ..policies.vllm_policy import VLLMPolicy
        from ..precision import check_sampler_dtype

        train = VLLMPolicy(start_path, chat, sampling, vllm, dtype=model_cfg.dtype)
        with closing_on_error(train.close):  # vLLM reports the precision it really runs in
            check_sampler_dtype(model_cfg.dtype, train.backend.dtype,
                                model_cfg.allow_dtype_mismatch, "the vLLM engine")
        return train
    from ..policies.hf_policy import HFPolicy

    return HFPolicy(model, tokenizer, chat, sampling, batch_size=hf_batch_size,
                    dtype=model_cfg.dtype)


def make_trainer(cfg: TrainConfig, world: Any, checkpoint: Path | None, model: Any,
                  tokenizer: Any, train_envs: Any, policy: Any, sft_model: str) -> Any:
    """The GRPO trainer (with the frozen ``sft_model`` as reference when ``grpo.kl_coef > 0``,
    loaded in the run's precision: it only runs forward passes, in that precision), its state
    restored from ``checkpoint`` when resuming."""
    from ..grpo.checkpoint import read_trainer_state
    from ..grpo.train import GRPOSetup, GRPOTrainer

    ref_model = None
    if cfg.grpo.kl_coef > 0:
        ref_model, _ = load_model_and_tokenizer(sft_model, cfg.run.device,
                                                cfg.model.dtype.value)
        ref_model.requires_grad_(False)
    setup = GRPOSetup(cfg.rollout, cfg.grpo, cfg.optim, cfg.sampling.temperature,
                      cfg.run.seed, cfg.run.checkpoint_every, cfg.model.dtype)
    trainer = GRPOTrainer(model, tokenizer, train_envs, policy, setup, ref_model,
                          config_to_dict(cfg), world=world, parallel=cfg.parallel)
    if checkpoint is not None:
        trainer.load_state(str(checkpoint), read_trainer_state(checkpoint).step)
    return trainer


def sampling_policy(cfg: TrainConfig, model: Any, tokenizer: Any, start_path: str,
                    kind: BackendKind) -> tuple[Any, Any]:
    """The model prepared for training (:func:`prepare_for_training`) and the policy that
    samples GRPO's rollouts from it (:func:`rollout_policy`). A model resumed with its LoRA
    adapter: vLLM starts from ``start_path`` (the base) and is sent the adapter merged in
    before the first rollout."""
    from ..lora import is_peft_model

    has_adapter = is_peft_model(model)
    model = prepare_for_training(model, cfg.model)
    policy = rollout_policy(kind, model, tokenizer, start_path, cfg.model, cfg.chat,
                            cfg.sampling, cfg.vllm, cfg.rollout.hf_batch_size)
    load_weights = getattr(policy.backend, "load_weights", None)
    if has_adapter and callable(load_weights):
        load_weights(model)
    return model, policy


def run_grpo(cfg: TrainConfig, out: Path, world: DistInfo, checkpoint: Path | None, model: Any,
             tokenizer: Any, train_envs: Any, policy: Any, sft_model: str, sink: Any,
             every_eval: Callable[[int], None], timings: dict[str, float]) -> Any:
    """Build the trainer and run GRPO to ``grpo.steps``, calling ``every_eval(step)`` every
    ``eval.every`` steps (not after the last: the final evaluation follows) and, with
    ``run.record_rollouts``, writing each step's episodes to ``<out>/rollouts``
    (:mod:`agents.grpo.rollout_recorder`); returns the trainer."""
    trainer = make_trainer(cfg, world, checkpoint, model, tokenizer, train_envs, policy,
                           sft_model)
    recorder = None
    if cfg.run.record_rollouts:
        from ..grpo.rollout_recorder import ROLLOUTS_DIR, RolloutRecorder

        recorder = RolloutRecorder(out / ROLLOUTS_DIR, cfg.rollout.env_id, train_envs,
                                   policy.name, cfg.run.seed, world,
                                   is_resumed=checkpoint is not None)

    def on_step(step: int, _: dict[str, float]) -> None:
        if recorder is not None:
            recorder.record(trainer)
        if cfg.eval.every and step % cfg.eval.every == 0 and step < cfg.grpo.steps:
            every_eval(step)

    t = time.perf_counter()
    trainer.train(cfg.grpo.steps, sink, str(out), on_step=on_step)
    timings["grpo_s"] = time.perf_counter() - t
    return trainer
