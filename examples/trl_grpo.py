"""Train a model on an AWM world with TRL's ``GRPOTrainer`` (its ``environment_factory``).

    pip install 'awm-gym[trl]'
    python examples/trl_grpo.py                       # the tiny local model, CPU, a few steps
    python examples/trl_grpo.py --model Qwen/Qwen3-0.6B --max-steps 100 --tools all

The world's tools become methods of an environment class (awm_gym.integrations.trl), TRL runs the
tool-calling loop, and each rollout's final answer is scored by the task's verifier
(``awm_reward``). Without ``--model`` the tiny model of ``agents.tiny_model`` is built locally
(nothing is downloaded); its own chat template renders raw actions, so it gets TRL's copy of the
Qwen2.5 template, which renders tools and tool calls and which TRL knows how to parse. A short
supervised warm start on the tasks' reference solutions makes the tiny model call tools at all,
so GRPO has rewards that differ within a group.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # environment_factory is "experimental"


@dataclass(frozen=True)
class ExampleConfig:
    """What to train, on which tasks, and for how long."""

    model: str | None = None
    """A Hugging Face model name or folder; None builds the tiny local model in output_dir."""
    output_dir: str = "runs/trl_grpo"
    """Where the tiny model and TRL's outputs go."""
    env_id: str = "AWM/spotify-v0"
    """The world (a registered Gymnasium id)."""
    tasks: tuple[int, ...] = (2,)
    """Task indices to train on."""
    tools: tuple[str, ...] | None = ("list_followed_artists",)
    """Tools offered to the model (None: all of the world's; every schema goes into the prompt)."""
    warm_start_steps: int = 40
    """Supervised steps on the tasks' reference solutions before GRPO (0: none)."""
    max_steps: int = 2
    """GRPO steps."""
    num_generations: int = 4
    """Rollouts per task (the GRPO group)."""
    max_completion_length: int = 1500
    """Tokens per rollout, tool results included."""
    learning_rate: float = 1e-3
    """GRPO learning rate (the tiny model needs a large one)."""
    temperature: float = 0.7
    """Sampling temperature of the rollouts."""
    seed: int = 0
    """Seed of TRL's sampling and of the dataset rows."""


def load_model(cfg: ExampleConfig) -> tuple[Any, Any]:
    """The model and tokenizer; the tiny model gets a tool-calling chat template."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = cfg.model
    if path is None:
        from trl.chat_template_utils import qwen2_5_chat_template

        from agents.tiny_model import TinyModelConfig, build_tiny_model

        path = str(build_tiny_model(Path(cfg.output_dir) / "tiny_model", TinyModelConfig.small()))
        tokenizer = AutoTokenizer.from_pretrained(path)
        tokenizer.chat_template = qwen2_5_chat_template
    else:
        tokenizer = AutoTokenizer.from_pretrained(path)
    return AutoModelForCausalLM.from_pretrained(path), tokenizer


def warm_start(model: Any, tokenizer: Any, Env: Any, cfg: ExampleConfig) -> list[float]:
    """Supervised steps on the reference solutions, rendered as TRL renders rollouts; the loss
    covers only the assistant's tokens (TRL's training template marks them), not the tool
    schemas or the tool results."""
    import torch
    from trl.chat_template_utils import get_training_chat_template

    from awm_gym.integrations.trl import reference_conversation, tool_methods

    template = get_training_chat_template(tokenizer)  # None: the model's own marks them already
    tools = tool_methods(Env())
    batches = []
    for k in cfg.tasks:
        enc = tokenizer.apply_chat_template(
            reference_conversation(Env, k), tools=tools, chat_template=template,
            return_dict=True, return_assistant_tokens_mask=True)
        ids = torch.tensor([enc["input_ids"]])
        labels = ids.masked_fill(torch.tensor([enc["assistant_masks"]]) == 0, -100)
        batches.append((ids, labels))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    model.train()
    losses = []
    for step in range(cfg.warm_start_steps):
        ids, labels = batches[step % len(batches)]
        loss = model(input_ids=ids, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    return losses


def main(cfg: ExampleConfig) -> dict[str, Any]:
    """Warm-start, then GRPO; returns TRL's log history and the time each phase took."""
    from trl import GRPOConfig, GRPOTrainer

    from awm_gym.integrations.trl import awm_reward, make_environment, task_dataset

    model, tokenizer = load_model(cfg)
    Env = make_environment(cfg.env_id, tool_names=cfg.tools, max_episode_steps=4)
    try:
        start = time.perf_counter()
        sft_losses = warm_start(model, tokenizer, Env, cfg) if cfg.warm_start_steps else []
        sft_s = time.perf_counter() - start
        args = GRPOConfig(output_dir=cfg.output_dir, max_steps=cfg.max_steps,
                          per_device_train_batch_size=cfg.num_generations,
                          num_generations=cfg.num_generations,
                          max_completion_length=cfg.max_completion_length,
                          max_tool_calling_iterations=3, temperature=cfg.temperature,
                          learning_rate=cfg.learning_rate, logging_steps=1, report_to="none",
                          save_strategy="no", use_cpu=cfg.model is None, seed=cfg.seed)
        trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=args,
                              reward_funcs=[awm_reward], environment_factory=Env,
                              train_dataset=task_dataset(Env, cfg.tasks, seeds=range(8)))
        start = time.perf_counter()
        trainer.train()
        grpo_s = time.perf_counter() - start
    finally:
        Env.host.close()
    return {"sft_losses": sft_losses, "sft_s": sft_s, "grpo_s": grpo_s,
            "log_history": trainer.state.log_history, "model": model}


def _parse() -> ExampleConfig:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for f in fields(ExampleConfig):
        parser.add_argument("--" + f.name.replace("_", "-"), default=None,
                            nargs="+" if f.name in ("tasks", "tools") else None)
    given = {k: v for k, v in vars(parser.parse_args()).items() if v is not None}
    if "tasks" in given:
        given["tasks"] = tuple(int(t) for t in given["tasks"])
    if "tools" in given:
        given["tools"] = None if given["tools"] == ["all"] else tuple(given["tools"])
    for name in ("warm_start_steps", "max_steps", "num_generations", "max_completion_length",
                 "seed"):
        if name in given:
            given[name] = int(given[name])
    for name in ("learning_rate", "temperature"):
        if name in given:
            given[name] = float(given[name])
    return ExampleConfig(**given)


if __name__ == "__main__":
    result = main(_parse())
    for row in result["log_history"]:
        if "reward" not in row:
            continue
        print({k: row[k] for k in ("step", "reward", "reward_std", "tools/call_frequency",
                                    "awm/success") if k in row})
    print(f"warm start {result['sft_s']:.0f} s, GRPO {result['grpo_s']:.0f} s")
