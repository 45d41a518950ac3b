"""Tell a stored verifier's mode from its code: code mode (a verdict) or sql mode (evidence).

AWM's pipeline writes ``gen_verifier.jsonl`` in *either* mode (``awm gen verifier --mode code``
and ``--mode sql`` both default to that path); only the published AgentWorldModel-1K splits the
modes into ``gen_verifier.jsonl`` (sql) and ``gen_verifier.pure_code.jsonl`` (code). So the file
name says nothing reliable, and the mode of each row is read from what the code is:

* **code mode**: ``verify_task_completion(initial_db_path, final_db_path, final_answer=None)``
  returning ``{"result": "complete" | "others"}``;
* **sql mode**: ``verify_task(initial_db_path, final_db_path)`` returning evidence for a judge.

The signals, strongest first: the entry function AWM would call (the first ``def verify_``
line), a ``final_answer`` parameter, a returned dict with a ``"result"`` key whose values are
``complete`` / ``others``, and the keys of the stored LLM answer (``verification_strategy`` /
``key_checks`` for code mode, ``success_criteria`` / ``failure_criteria`` for sql mode).

Example:
    >>> detect_verifier_mode("def verify_task_completion(initial_db_path, final_db_path, "
    ...                      "final_answer=None):\\n    return {'result': 'complete'}")
    'code'
    >>> detect_verifier_mode("def verify_task(initial_db_path, final_db_path):\\n    return {}")
    'sql'
    >>> detect_verifier_mode("def check(a, b):\\n    return {}") is None
    True
"""

from __future__ import annotations

import ast
import json

from awm_gym.vocab import VerifierLabel, VerifierMode

__all__ = ["ENTRY_FUNCTIONS", "detect_verifier_mode", "entry_function_name"]

ENTRY_FUNCTIONS: dict[VerifierMode, str] = {VerifierMode.CODE: "verify_task_completion",
                                            VerifierMode.SQL: "verify_task"}
"""Each mode's entry function, as AWM names it."""
_BY_NAME = {name: mode for mode, name in ENTRY_FUNCTIONS.items()}
_CODE_KEYS = ("verification_strategy", "key_checks")
_SQL_KEYS = ("success_criteria", "failure_criteria")
_VERDICTS = frozenset({VerifierLabel.COMPLETE, VerifierLabel.OTHERS})


def entry_function_name(code: str) -> str | None:
    """The function AWM's ``verify.py`` calls: the name on the first line whose stripped text
    starts with ``def verify_`` (None when no line does)."""
    for line in code.split("\n"):
        stripped = line.strip()
        if stripped.startswith("def verify_"):
            return stripped[len("def "):].split("(")[0].strip()
    return None


def detect_verifier_mode(code: str, raw_response: str | None = None) -> VerifierMode | None:
    """``VerifierMode.CODE`` or ``VerifierMode.SQL`` as the verifier's code (and stored LLM
    answer) show it; None when nothing tells them apart."""
    by_name = _BY_NAME.get(entry_function_name(code) or "")
    if by_name is not None:
        return by_name
    from_code = _mode_from_syntax(code)
    if from_code is not None:
        return from_code
    return _mode_from_raw_response(raw_response)


def _mode_from_syntax(code: str) -> VerifierMode | None:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for fn in functions:
        if not fn.name.startswith("verify"):
            continue
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
        if "final_answer" in params:
            return VerifierMode.CODE
        if _returns_verdict(fn):
            return VerifierMode.CODE
        if params[:2] == ["initial_db_path", "final_db_path"] and len(params) == 2:
            return VerifierMode.SQL
    return None


def _returns_verdict(fn: ast.AST) -> bool:
    """Whether some ``return {...}`` in ``fn`` has a ``"result"`` key set to complete/others."""
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Return) and isinstance(node.value, ast.Dict)):
            continue
        for key, value in zip(node.value.keys, node.value.values, strict=True):
            if (isinstance(key, ast.Constant) and key.value == "result"
                    and isinstance(value, ast.Constant) and value.value in _VERDICTS):
                return True
    return False


def _mode_from_raw_response(raw_response: str | None) -> VerifierMode | None:
    if not raw_response:
        return None
    try:
        data = json.loads(raw_response)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    by_name = _BY_NAME.get(str(data.get("function_name", "")))
    if by_name is not None:
        return by_name
    if any(k in data for k in _CODE_KEYS):
        return VerifierMode.CODE
    if any(k in data for k in _SQL_KEYS):
        return VerifierMode.SQL
    return None
