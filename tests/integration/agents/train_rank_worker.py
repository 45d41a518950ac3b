"""``scripts/train.py`` under torchrun, with each rank's own report (test_torchrun_train.py).

``REPORTS ARGS...``: runs ``awm train ARGS`` as ``scripts/train.py`` does and writes
``REPORTS/rank<r>.json`` with what only this rank knows, which rank 0's run folder cannot show:
the evaluation episodes this rank ran (per evaluation, by world, task and seed) and a SHA-256
of its model's full weights when GRPO ended (:func:`weights_sha256`).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any


def weights_sha256(state: dict[str, Any]) -> str:
    """A digest of a state dict: every tensor's name, dtype, shape and bytes, by name."""
    import torch

    digest = hashlib.sha256()
    for name in sorted(state):
        tensor = state[name].detach().cpu().contiguous()
        digest.update(f"{name}:{tensor.dtype}:{tuple(tensor.shape)}".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def main(reports: str, argv: list[str]) -> int:
    import agents.evaluate as evaluate_module
    import agents.pipeline as pipeline
    import agents.stages.evaluation as evaluation_stage
    from agents.cli import main_train
    from agents.lora import causal_lm
    from agents.parallel import full_state_dict

    report: dict[str, Any] = {"evaluations": [], "weights_sha256": None}
    evaluate_policy, collect, finish = (evaluation_stage.evaluate_policy,
                                        evaluate_module.collect_episodes, pipeline.finish)

    def counted_evaluate(*args: Any, **kwargs: Any) -> Any:
        report["evaluations"].append([])
        return evaluate_policy(*args, **kwargs)

    def counted_collect(envs: Any, policy: Any, specs: Any, *args: Any, **kwargs: Any) -> Any:
        report["evaluations"][-1].extend([s.world, s.task_idx, s.seed] for s in specs)
        return collect(envs, policy, specs, *args, **kwargs)

    def hashed_finish(cfg: Any, out: Any, trainer: Any, *args: Any, **kwargs: Any) -> Any:
        # every rank gathers (a collective under FSDP); under DDP each holds a replica
        state = full_state_dict(causal_lm(trainer.model).state_dict())
        report["weights_sha256"] = weights_sha256(state)
        return finish(cfg, out, trainer, *args, **kwargs)

    evaluation_stage.evaluate_policy = counted_evaluate
    evaluate_module.collect_episodes = counted_collect
    pipeline.finish = hashed_finish
    code = main_train(argv)
    for k, episodes in enumerate(report["evaluations"]):  # padding repeats a chunk's last
        report["evaluations"][k] = sorted(set(map(tuple, episodes)))
    Path(reports).mkdir(parents=True, exist_ok=True)
    (Path(reports) / f"rank{os.environ['RANK']}.json").write_text(json.dumps(report))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
