"""BFCL's multi-turn base category against an OpenAI-compatible endpoint (runs in BFCL's venv).

``scripts/ood_eval.py`` runs this with the Python of the virtualenv that holds ``bfcl-eval``
(it imports only ``bfcl_eval`` and the standard library, never ``awm_gym`` or ``agents``).

BFCL only runs models named in its ``MODEL_CONFIG_MAPPING``, so this registers one more,
:data:`MODEL`, in prompt mode: BFCL's own system prompt lists the functions and asks for
``[func(arg=value)]``; the chat messages go to ``OPENAI_BASE_URL`` (our vLLM server, which applies
the model's chat template) through BFCL's ``OpenAICompletionsHandler``, each reply capped at
``--max-tokens`` (that handler sets no cap: a small model that never stops would run to the
context length). The first ``--limit`` entries (``multi_turn_base_0`` ...) are generated with
``bfcl generate --run-ids`` and scored by ``bfcl evaluate --partial-eval``: an entry counts when
the simulated APIs' end state and the calls' results match the ground truth's at every turn.

Prints one JSON line last: ``{"entries", "correct", "replies", "call_replies", "errors", "ids",
"generate_s", "evaluate_s"}`` where ``call_replies`` counts the model's replies that decoded
into at least one function call (BFCL ran them on its simulated APIs).

Example:
    >>> # BFCL_PROJECT_ROOT=out/ood_eval/x OPENAI_BASE_URL=http://127.0.0.1:8000/v1 \\
    >>> #   out/ood_eval/venv/bin/python scripts/ood_eval_bfcl.py --served-name awm --limit 2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from types import SimpleNamespace

CATEGORY = "multi_turn_base"
MODEL = "awm-local"
"""BFCL registry name of the served model (no ``_``: BFCL turns ``_`` back into ``/``)."""


def _register(served_name: str, max_tokens: int) -> None:
    """Add :data:`MODEL` to BFCL's model table: prompt mode over OpenAI chat completions."""
    from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING, ModelConfig
    from bfcl_eval.model_handler.api_inference.openai_completion import (
        OpenAICompletionsHandler,
    )

    class LocalPromptHandler(OpenAICompletionsHandler):
        """BFCL's OpenAI handler with a reply cap and without OpenAI-only fields."""

        def generate_with_backoff(self, **kwargs):  # no retry: a local server does not throttle
            kwargs.pop("store", None)
            kwargs.setdefault("max_tokens", max_tokens)
            start = time.time()
            response = self.client.chat.completions.create(**kwargs)
            return response, time.time() - start

    MODEL_CONFIG_MAPPING[MODEL] = ModelConfig(
        model_name=served_name, display_name=f"{served_name} (awm-gym, prompt)",
        url="local", org="awm-gym", license="n/a", model_handler=LocalPromptHandler,
        input_price=None, output_price=None, is_fc_model=False, underscore_to_dot=False)


def _first_ids(limit: int | None) -> list[str]:
    """The category's first ``limit`` entry ids in BFCL's order (all when None)."""
    from bfcl_eval.utils import load_dataset_entry, sort_key

    entries = sorted(load_dataset_entry(CATEGORY), key=sort_key)
    return [e["id"] for e in entries[:limit] if limit is None or limit > 0]


def _read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _reply_counts(result_file: Path) -> tuple[int, int, int]:
    """(model replies, replies decoded into a call, entries that raised) from the result file."""
    replies = calls = errors = 0
    for entry in _read_jsonl(result_file):
        if isinstance(entry.get("result"), str):  # BFCL stores the exception text instead
            errors += 1
        for turn in entry.get("inference_log", []):
            steps = turn.values() if isinstance(turn, dict) else []
            for step in steps:
                if not isinstance(step, list):
                    continue
                replies += sum(1 for m in step if m.get("role") == "assistant")
                calls += any(m.get("role") == "tool" for m in step)  # decoded, so it ran
    return replies, calls, errors


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--served-name", required=True, help="the model name the server answers to")
    p.add_argument("--limit", type=int, default=None, help="first N entries (default: all 200)")
    p.add_argument("--max-tokens", type=int, default=512, help="cap on each reply's tokens")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--resume", action="store_true",
                   help="keep the entries an earlier (interrupted) run generated; run the rest")
    p.add_argument("--score-only", action="store_true",
                   help="generate nothing: score the entries among the first --limit that an "
                        "earlier (interrupted) run generated")
    p.add_argument("--check", action="store_true",
                   help="check the pieces (imports, registration, data, ids) without a server")
    args = p.parse_args(argv)
    root = Path(os.environ.get("BFCL_PROJECT_ROOT", "."))
    if "BFCL_PROJECT_ROOT" not in os.environ:
        sys.exit("ood_eval_bfcl: set BFCL_PROJECT_ROOT (BFCL writes result/ and score/ there)")
    os.environ.setdefault("OPENAI_API_KEY", "local")  # vLLM takes any key; the SDK wants one
    _register(args.served_name, args.max_tokens)
    ids = _first_ids(args.limit)
    if args.check:
        from bfcl_eval.eval_checker.eval_runner import get_handler
        from bfcl_eval.utils import load_ground_truth_entry

        get_handler(MODEL)
        assert len(load_ground_truth_entry(CATEGORY)) >= len(ids)
        print(json.dumps({"check": "ok", "ids": ids}))
        return 0
    if not (args.score_only or os.environ.get("OPENAI_BASE_URL")):
        sys.exit("ood_eval_bfcl: set OPENAI_BASE_URL to the server's /v1 URL")
    (root / "test_case_ids_to_generate.json").write_text(json.dumps({CATEGORY: ids}))
    keep_results = args.resume or args.score_only
    for kept in ("score",) if keep_results else ("result", "score"):
        shutil.rmtree(root / kept / MODEL, ignore_errors=True)  # BFCL appends to old files

    from bfcl_eval._llm_response_generation import main as generation_main
    from bfcl_eval.eval_checker.eval_runner import main as evaluation_main

    start = time.time()
    if not args.score_only:
        generation_main(SimpleNamespace(
            model=[MODEL], test_category=[CATEGORY], temperature=args.temperature,
            include_input_log=False, exclude_state_log=True, num_gpus=1, num_threads=1,
            gpu_memory_utilization=0.9, backend="vllm", skip_server_setup=True,
            local_model_path=None, result_dir=None, allow_overwrite=False, run_ids=True,
            enable_lora=False, max_lora_rank=None, lora_modules=None))
    generate_s = time.time() - start
    result_file = next((root / "result" / MODEL).rglob(f"*_{CATEGORY}_result.json"), None)
    if result_file is None:
        sys.exit(f"ood_eval_bfcl: no {CATEGORY} results under {root / 'result' / MODEL}")
    wanted = set(ids)  # a resumed run may hold entries of an earlier, longer --limit
    kept_entries = [e for e in _read_jsonl(result_file) if e["id"] in wanted]
    result_file.write_text("".join(json.dumps(e) + "\n" for e in kept_entries))
    ids = [i for i in ids if i in {e["id"] for e in kept_entries}]  # those scored
    if not ids:
        sys.exit(f"ood_eval_bfcl: none of the first {args.limit} entries was generated yet")
    start = time.time()
    try:
        evaluation_main([MODEL], [CATEGORY], None, None, partial_eval=True)
    except Exception as exc:  # the leaderboard CSV is a side product; the score file is ours
        print(f"ood_eval_bfcl: bfcl evaluate after scoring: {exc!r}", file=sys.stderr)
    evaluate_s = time.time() - start
    score_file = next((root / "score" / MODEL).rglob(f"*_{CATEGORY}_score.json"))
    header = _read_jsonl(score_file)[0]
    replies, calls, errors = _reply_counts(result_file)
    print(json.dumps({"entries": header["total_count"], "correct": header["correct_count"],
                      "replies": replies, "call_replies": calls, "errors": errors, "ids": ids,
                      "generate_s": round(generate_s, 1), "evaluate_s": round(evaluate_s, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
