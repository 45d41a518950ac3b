"""Stage ``task``: ``num_tasks`` tasks per world, from its name and description.

Reads ``gen_scenario.jsonl``, writes ``gen_tasks.jsonl`` rows ``{"scenario", "tasks"}``. An
answer is kept when it is a JSON object (or array) with at least ``num_tasks`` distinct,
non-empty, one-line task strings; extra tasks are cut. Anything else goes back to the LLM with
the reason, up to ``max_retry`` times (AWM only regenerates, without feedback).

Example:
    >>> validate_tasks('{"tasks": ["Find my note", "Delete note 2", "Find my note"]}', 2)
    ['Find my note', 'Delete note 2']
"""

from __future__ import annotations

from typing import Any

from .context import RunContext
from .errors import GenerationError
from .parsing import parse_json_answer
from .stage import SCENARIO_FILE, Rows, WorldStage

__all__ = ["run_stage", "validate_tasks", "STAGE", "SPEC"]

STAGE = "task"

_SYSTEM = ("You design realistic requests that users make to an AI assistant which operates a "
           "web application for them through the application's API.")

_PROMPT = """\
Application: {name}
Description: {description}

Write {n} tasks that a user of this application could ask the assistant to carry out through the
application's API.

Rules:
- One sentence each, specific and self-contained: give every name, title, quantity, amount or
  date the assistant needs; never leave a choice to guess.
- Range from a single look-up to several steps that touch several records. At least a third of
  the tasks change data (create, update, delete); others are questions answered from the data.
- The user is already signed in as user 1. No sign-up, login, password or payment-card tasks;
  nothing outside the application (no e-mails sent, no files downloaded, no pages opened).
- Each task must be checkable afterwards from the application's database, or from the answer.
- No two tasks alike.

Reply with a JSON object only: {{"tasks": ["...", "..."]}} holding exactly {n} strings."""


def validate_tasks(answer: str, n: int) -> list[str]:
    """The first ``n`` distinct tasks of an answer.

    Raises:
        GenerationError: unreadable JSON, wrong shape, or fewer than ``n`` usable tasks.
    """
    value: Any = parse_json_answer(answer, dict) if "{" in (answer or "") else \
        parse_json_answer(answer, list)
    if isinstance(value, dict):
        value = value.get("tasks")
        if not isinstance(value, list):
            raise GenerationError('The JSON object has no "tasks" array. Reply with '
                                  '{"tasks": ["...", ...]}.')
    tasks: list[str] = []
    skipped = []
    for i, task in enumerate(value):
        text = " ".join(task.split()) if isinstance(task, str) else ""
        if not text:
            skipped.append(f"item {i} is not a non-empty string")
        elif text not in tasks:
            tasks.append(text)
    if len(tasks) < n:
        detail = f" ({'; '.join(skipped)})" if skipped else ""
        raise GenerationError(f"Only {len(tasks)} distinct task strings were given; exactly {n} "
                              f"are needed{detail}.")
    return tasks[:n]


def _prompt(run: RunContext, rows: Rows) -> tuple[tuple[dict[str, str], ...], str]:
    scenario = rows[SCENARIO_FILE]
    return ({"role": "system", "content": _SYSTEM},
            {"role": "user", "content": _PROMPT.format(
                name=scenario["name"], description=scenario.get("description", ""),
                n=run.config.num_tasks)}), scenario["name"]


SPEC = WorldStage(
    STAGE, (SCENARIO_FILE,), "gen_tasks.jsonl", _prompt,
    validate=lambda run, job, text: validate_tasks(text, run.config.num_tasks),
    row=lambda outcome: {"scenario": outcome.context, "tasks": outcome.value})
"""Generate tasks for every world of ``gen_scenario.jsonl`` that has none yet."""
run_stage = SPEC.run
