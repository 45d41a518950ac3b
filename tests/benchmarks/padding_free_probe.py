"""Tokens forwarded and seconds per GRPO update, padded rows against padding-free packing.

    python tests/benchmarks/padding_free_probe.py                    # main job's shapes
    python tests/benchmarks/padding_free_probe.py --repeats 5 --out bench/padding_free.json
    python tests/benchmarks/padding_free_probe.py --work /tmp/pf     # keep, reuse the warm start

Builds the main job's tiny model, warm-starts it by SFT on spotify's oracle rollouts (the main
job's chat format, sampling and SFT settings; every spotify task, no split), collects one
GRPO step of episodes (``--groups`` x ``--group-size``, the main job's 8 x 8) with the
transformers sampler, turns every turn into a sample, then runs ``grpo_update`` on those
samples with ``OptimConfig(padding_free=False)`` and ``True`` in turn, ``--repeats`` times
each (the sides alternating), each from a fresh copy of the warm model. Prints per side:
``perf/forward_tokens`` (positions through the model body, padding included),
``perf/head_tokens`` (positions through the output head), micro-batches, and the median wall
and CPU seconds per update (CPU seconds of this process, less sensitive than wall time to
other jobs on a shared machine).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=8)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--micro-batch-tokens", type=int, default=16384)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--work", type=Path, default=None,
                        help="run folder for the warm start (reused when it holds one)")
    args = parser.parse_args()

    import numpy as np
    import torch

    from agents.config import RunConfig, TrainConfig
    from agents.grpo import metrics as M
    from agents.grpo.batching import build_samples, micro_schedule
    from agents.grpo.config import OptimConfig
    from agents.grpo.rollout import EpisodeSpec, collect_episodes, list_tasks
    from agents.grpo.update import grpo_update
    from agents.pipeline import make_envs, prepare_start_model
    from agents.policies.hf_policy import HFPolicy, load_model_and_tokenizer

    cfg = TrainConfig(run=RunConfig(seed=0))
    n = args.groups * args.group_size
    with tempfile.TemporaryDirectory() as tmp:
        envs = make_envs(cfg.rollout, n)
        try:
            t = time.perf_counter()
            warm = prepare_start_model(cfg, args.work or tmp, envs)
            print(f"warm start {time.perf_counter() - t:.1f} s", flush=True)
            model, tok = load_model_and_tokenizer(warm, "cpu")
            policy = HFPolicy(model, tok, cfg.chat, cfg.sampling)
            policy.set_seed(1)
            tasks = list_tasks(envs)
            specs = [EpisodeSpec(*tasks[g % len(tasks)], 7 + g, g)
                     for g in range(args.groups) for _ in range(args.group_size)]
            trajs = collect_episodes(envs, policy, specs)
        finally:
            envs.close()
        adv = np.where(np.arange(len(trajs)) % 2 == 0, 1.0, -1.0)  # every trajectory trains
        samples = build_samples(trajs, adv, np.ones(len(trajs), bool))
        lengths = [s.length for s in samples]
        print(f"{len(trajs)} episodes, {len(samples)} turn samples, lengths {min(lengths)}-"
              f"{max(lengths)} (mean {statistics.mean(lengths):.0f}, {sum(lengths)} in all), "
              f"sampled tokens {sum(len(s.completion_ids) for s in samples)}", flush=True)
        shared = _shared_prefix_tokens(samples)
        print(f"prefix sharing would save {shared} of {sum(lengths)} real tokens", flush=True)
        sides = ("padded", "padding_free")
        wall: dict[str, list[float]] = {side: [] for side in sides}
        cpu: dict[str, list[float]] = {side: [] for side in sides}
        stats: dict[str, dict[str, float]] = {}
        for _ in range(args.repeats):
            for side in sides:
                optim = OptimConfig(lr=cfg.optim.lr, micro_batch_tokens=args.micro_batch_tokens,
                                    padding_free=side == "padding_free")
                model, tok = load_model_and_tokenizer(warm, "cpu")
                opt = torch.optim.AdamW(model.parameters(), lr=optim.lr)
                t, c = time.perf_counter(), time.process_time()
                stats[side] = grpo_update(model, opt, samples, cfg.grpo, optim,
                                          cfg.sampling.temperature, tok.pad_token_id)
                wall[side].append(time.perf_counter() - t)
                cpu[side].append(time.process_time() - c)
        rows = {}
        for side in sides:
            micros = micro_schedule(samples, args.micro_batch_tokens, False)
            rows[side] = {"forward_tokens": stats[side][M.FORWARD_TOKENS],
                          "head_tokens": stats[side][M.HEAD_TOKENS],
                          "micro_batches": len(micros),
                          "update_s_median": statistics.median(wall[side]),
                          "update_cpu_s_median": statistics.median(cpu[side]),
                          "update_s": wall[side], "update_cpu_s": cpu[side],
                          "policy_loss": stats[side]["loss/policy"]}
            print(side, json.dumps(rows[side]), flush=True)
    result = {"episodes": len(trajs), "samples": len(samples), "real_tokens": sum(lengths),
              "shared_prefix_tokens": shared, "lengths": lengths,
              "sampled_tokens": sum(len(s.completion_ids) for s in samples), **rows}
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2))
    print(json.dumps(result))


def _shared_prefix_tokens(samples: list) -> int:
    """Tokens a prefix-sharing forward would not run again: per trajectory, the prompt prefix
    all its turn samples share (the pinned system prompt and task), counted once less than the
    trajectory has samples."""
    by_traj: dict = {}
    for s in samples:
        by_traj.setdefault(s.trajectory, []).append(s.prompt_ids)
    saved = 0
    for prompts in by_traj.values():
        common = min(len(p) for p in prompts)
        for p in prompts[1:]:
            common = next((k for k in range(common) if p[k] != prompts[0][k]), common)
        saved += common * (len(prompts) - 1)
    return saved


if __name__ == "__main__":
    main()
