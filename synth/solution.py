"""Stage ``solution``: a reference solution per task, proved by replaying it through the runtime.

Reads worlds with code and verifiers; writes our ``gen_solutions.jsonl`` extension rows
``{"scenario", "task_idx", "calls": [{"tool", "arguments"}], "final_answer"}``. The prompt shows
the world's tools exactly as a model sees them and its initial database. Each candidate is
replayed on a fresh instance of a :class:`awm_gym.envs.runtime.WorldRuntime` as ``<tool_call>``
actions, then every verifier of the task runs on the resulting state in the runtime's verifier
pool:

* code mode: the verifier must say ``complete`` (it said ``others`` on the untouched state in
  the verifier stage);
* sql mode: its evidence and the replayed steps go to the LLM judge (:mod:`awm_gym.scoring.judge`), which
  must say ``complete``, while the judge given the untouched state's evidence and no steps must
  not.

A candidate whose call fails (an error answer, unknown tool, bad arguments) or whose verdict is
wrong goes back to the LLM with the replay transcript and the verdict (and, in code mode, the
verifier's source). This is the gate that keeps a task: a task without a proved solution is left
out of the final world set.

Example:
    >>> parse_solution('{"calls": [{"tool": "get_note", "arguments": {"note_id": 1}}], '
    ...                '"final_answer": "It is Budget review."}', {"get_note"})
    ([{'tool': 'get_note', 'arguments': {'note_id': 1}}], 'It is Budget review.')
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from awm_gym import info_keys as K
from awm_gym.tools import format_tool_call, strip_thinking
from awm_gym.vocab import JudgeLabel, ToolOutcome, VerifierLabel, VerifierMode

from .context import RunContext, StageReport
from .errors import GenerationError
from .parsing import parse_json_answer, require_keys
from .repair import RepairJob, RepairOutcome
from .stage import Stage, run_items
from .store import StageOutput, rows_by_world, task_key
from .world_text import dump_database

__all__ = ["run_stage", "parse_solution", "STAGE", "MAX_CALLS", "SPEC"]

STAGE = "solution"
MAX_CALLS = 25
"""Calls per solution: the replay must fit AWM's 30-turn episodes with room for the answer."""

_SYSTEM = ("You are an expert user of web application APIs. You plan the exact tool calls that "
           "complete a task, as a reference solution that will be replayed and checked.")

_PROMPT = """\
Application: {name}
Task: {task}

Tools (name, what it does, JSON schema of its arguments):
{tools}

The application's database before you start (SQL dump, possibly cut):
{dump}

Plan the tool calls that complete the task, and the final answer to give the user.

Rules:
- The calls run in order on the database above, each once; you see no results while planning,
  so take ids from the dump. A new row gets the next id of its table (current maximum + 1).
- Use only the tools listed, with arguments that match their schemas. Look-up calls (list,
  search, get) are fine; every id you pass must be right for this database.
- At most {max_calls} calls.
- final_answer is what the assistant tells the user at the end; for a question it states the
  answer with the exact names and numbers.

Reply with a JSON object only:
{{"calls": [{{"tool": "<tool name>", "arguments": {{}}}}], "final_answer": "..."}}"""


def parse_solution(answer: str, tools: Collection[str]) -> tuple[list[dict[str, Any]], str]:
    """``(calls, final_answer)`` of an answer, checked for shape and tool names.

    Raises:
        GenerationError: bad JSON or shape, unknown tools, too many calls, or a final answer
            that would be read as a tool call.
    """
    value = parse_json_answer(answer, dict)
    require_keys(value, {"calls": list}, "The solution")
    calls = []
    for k, call in enumerate(value["calls"]):
        if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
            raise GenerationError(f"calls[{k}] must be an object with a \"tool\" name and "
                                  "\"arguments\".")
        arguments = call.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise GenerationError(f"calls[{k}].arguments must be a JSON object.")
        if call["tool"] not in tools:
            raise GenerationError(f"calls[{k}] uses the tool {call['tool']!r}, which does not "
                                  f"exist; the tools are: {', '.join(sorted(tools))}.")
        calls.append({"tool": call["tool"], "arguments": arguments})
    if len(calls) > MAX_CALLS:
        raise GenerationError(f"{len(calls)} calls; use at most {MAX_CALLS}.")
    final = value.get("final_answer")
    final = final if isinstance(final, str) else ""
    if "<tool_call>" in final:
        raise GenerationError("final_answer contains <tool_call>; it must be plain text.")
    return calls, final


@dataclass
class _Replay:
    calls: list[dict[str, Any]]
    final_answer: str
    transcript: list[str] = field(default_factory=list)
    turns: list[Any] = field(default_factory=list)
    call_error: str | None = None
    final_db: bytes = b""
    verdicts: dict[VerifierMode, str] = field(default_factory=dict)  # mode -> problem ("" = proved)


def _tool_lines(tools: list[dict[str, Any]]) -> str:
    lines = []
    for tool in tools:
        summary = (tool.get("description") or "").strip().splitlines()
        schema = tool.get("inputSchema") or {}
        compact = {"properties": {k: {kk: vv for kk, vv in v.items() if kk != "title"}
                                  for k, v in (schema.get("properties") or {}).items()},
                   "required": schema.get("required") or []}
        lines.append(f"- {tool['name']}: {' '.join(summary[:3])}\n  arguments: "
                     f"{json.dumps(compact, ensure_ascii=False)}")
    return "\n".join(lines)


class _Prover:
    """Replays one round's solutions, verifies them in one pool batch, judges in one batch."""

    def __init__(self, run: RunContext, runtimes: dict[str, Any], world_set: Any) -> None:
        self.run, self.runtimes, self.ws = run, runtimes, world_set
        self.tools = {w: frozenset(t["name"] for t in rt.tools(w)) for w, rt in runtimes.items()}
        self.replays: dict[str, _Replay] = {}
        self._noop_evidence: dict[str, Any] = {}

    @staticmethod
    def _key(job: RepairJob, text: str) -> str:
        return job.key + ":" + hashlib.sha256(text.encode()).hexdigest()

    def _replay(self, world: str, idx: int, calls: list[dict[str, Any]], final: str) -> _Replay:
        from awm_gym.vocab import Turn

        replay = _Replay(calls, strip_thinking(final) or "Done.")
        runtime = self.runtimes[world]
        runtime.reset([0], [0], [idx], [world])
        for k, call in enumerate(calls, start=1):
            action = format_tool_call(call["tool"], call["arguments"])
            [out] = runtime.step([0], [action])
            shown = out.observation if len(out.observation) <= 400 else \
                out.observation[:400] + " ..."
            replay.transcript.append(f"call {k}: {call['tool']}"
                                     f"({json.dumps(call['arguments'], ensure_ascii=False)}) -> "
                                     f"{shown}")
            replay.turns.append(Turn(action, out.observation))
            if out.info.get(K.TOOL_OUTCOME) != ToolOutcome.OK:
                replay.call_error = (f"call {k} ({call['tool']}) did not succeed: "
                                     f"{out.info.get(K.ERROR) or out.observation[:400]}")
                break
        replay.final_db = bytes(runtime.database(0).serialize())
        return replay

    def prepare(self, answers: list[tuple[RepairJob, str]]) -> None:
        from awm_gym.scoring import VerifyJob

        fresh: list[tuple[RepairJob, _Replay]] = []
        self.replays = {}  # per round: a judge may answer differently when asked again
        for job, text in answers:
            key = self._key(job, text)
            world, idx, _ = job.context
            try:
                calls, final = parse_solution(text, self.tools[world])
            except GenerationError:
                continue
            replay = self.replays[key] = self._replay(world, idx, calls, final)
            if replay.call_error is None:
                fresh.append((job, replay))
        jobs, owners = [], []
        for job, replay in fresh:
            world, idx, _ = job.context
            template = self.runtimes[world].prepared(world).template
            for mode in self.run.config.verifier_modes:
                v = self._verifier(world, idx, mode)
                jobs.append(VerifyJob(v.code, v.function_name, mode, template, replay.final_db,
                                      replay.final_answer if mode == VerifierMode.CODE else None))
                owners.append((job, replay, mode))
        results = self.run.pool().run(jobs) if jobs else []
        to_judge = []
        for (job, replay, mode), result in zip(owners, results, strict=True):
            if result.label == VerifierLabel.VERIFIER_ERROR:
                replay.verdicts[mode] = (f"the {mode}-mode verifier failed after your calls "
                                         f"({result.error_kind}): {result.error}")
            elif mode == VerifierMode.CODE:
                replay.verdicts[mode] = "" if result.label == VerifierLabel.COMPLETE else \
                    f"the verifier said {result.label!r}, not 'complete', after your calls"
            else:
                to_judge.append((job, replay, result.output))
        self._judge(to_judge)

    def _verifier(self, world: str, idx: int, mode: VerifierMode) -> Any:
        wdef = self.ws[world]
        return (wdef.code_verifiers if mode == VerifierMode.CODE else wdef.sql_verifiers)[idx]

    def _judge(self, items: list[tuple[RepairJob, _Replay, Any]]) -> None:
        from awm_gym.scoring import JudgeRequest, criteria_from_raw_response

        if not items:
            return
        requests, noop_for = [], []
        for job, replay, evidence in items:
            world, idx, task = job.context
            criteria = criteria_from_raw_response(
                self._verifier(world, idx, VerifierMode.SQL).raw_response)
            requests.append(JudgeRequest(task, tuple(replay.turns), replay.final_answer,
                                         evidence, criteria))
            noop_for.append(JudgeRequest(task, (), "", self._noop(world, idx), criteria))
        verdicts = self.run.judge().judge(requests + noop_for)
        solved, noop = verdicts[:len(items)], verdicts[len(items):]
        sql = VerifierMode.SQL
        for (job, replay, _), after, before in zip(items, solved, noop, strict=True):
            if before.label == JudgeLabel.COMPLETE:
                replay.verdicts[sql] = ("the judge says 'complete' for the untouched database "
                                        "and no steps, so this task cannot be proved: the "
                                        "evidence cannot tell doing nothing from doing it")
            elif after.label != JudgeLabel.COMPLETE:
                detail = f" ({after.error_kind}: {after.error})" if after.error_kind else \
                    f": {after.reasoning}"
                replay.verdicts[sql] = (f"the judge said {after.label!r}, not 'complete', for "
                                        f"your calls and the verifier's evidence{detail}")
            else:
                replay.verdicts[sql] = ""

    def _noop(self, world: str, idx: int) -> Any:
        from awm_gym.scoring import VerifyJob

        key = task_key(world, idx)
        if key not in self._noop_evidence:
            v = self._verifier(world, idx, VerifierMode.SQL)
            template = self.runtimes[world].prepared(world).template
            [result] = self.run.pool().run([VerifyJob(v.code, v.function_name, VerifierMode.SQL,
                                                      template, template)])
            self._noop_evidence[key] = result.output
        return self._noop_evidence[key]

    def validate(self, job: RepairJob, text: str) -> dict[str, Any]:
        world, idx, _ = job.context
        calls, final = parse_solution(text, self.tools[world])
        key = self._key(job, text)
        if key not in self.replays:
            self.prepare([(job, text)])
        replay = self.replays[key]
        steps = "\n".join(replay.transcript) or "(no calls)"
        if replay.call_error is not None:
            raise GenerationError(f"Replaying your calls: {replay.call_error}\nTranscript:\n"
                                  f"{steps}")
        problems = [p for p in replay.verdicts.values() if p]
        if problems:
            extra = ""
            if replay.verdicts.get(VerifierMode.CODE):
                extra = ("\nThe task's checker (it must say complete):\n"
                         + self._verifier(world, idx, VerifierMode.CODE).code)
            raise GenerationError("Replaying your calls succeeded, but " + "; ".join(problems)
                                  + f".\nTranscript:\n{steps}\nFinal answer: "
                                  f"{replay.final_answer!r}{extra}")
        return {"calls": calls, "final_answer": final}


def _world_jobs(run: RunContext, runtime: Any, wdef: Any, out: StageOutput) -> list[RepairJob]:
    jobs = []
    tools = _tool_lines(runtime.tools(wdef.name))
    dump = dump_database(runtime.prepared(wdef.name).template, run.config.max_dump_chars)
    for idx, task in enumerate(wdef.tasks):
        key = task_key(wdef.name, idx)
        slots = {VerifierMode.CODE: wdef.code_verifiers, VerifierMode.SQL: wdef.sql_verifiers}
        if out.has(key) or any(slots[m][idx] is None or not slots[m][idx].code
                               for m in run.config.verifier_modes):
            continue
        jobs.append(RepairJob(key, (
            {"role": "system", "content": _SYSTEM},
            {"role": "user", "content": _PROMPT.format(
                name=wdef.display_name, task=task, tools=tools, dump=dump,
                max_calls=MAX_CALLS)}), (wdef.name, idx, task)))
    return jobs


def run_stage(run: RunContext) -> StageReport:
    """Generate and prove a reference solution for every verified task of every world."""
    from awm_gym.envs import EnvConfig, WorldRuntime
    from awm_gym.errors import AWMGymError
    from awm_gym.worlds import load_world_set

    cfg = run.config
    tasks = rows_by_world(run.path("gen_tasks.jsonl"))
    with_code = [w for w in rows_by_world(run.path("gen_envs.jsonl")) if run.wants(w) and w in tasks]
    out = StageOutput(run.path("gen_solutions.jsonl"),
                      [task_key(w, i) for w in with_code for i in range(len(tasks[w]["tasks"]))])
    ws = load_world_set(cfg.output_dir, worlds=with_code) if with_code else None
    config = EnvConfig(cache_dir=run.path(".cache"), tool_timeout_s=cfg.tool_timeout_s,
                       max_episode_steps=MAX_CALLS + 5, verifier_timeout_s=cfg.verifier_timeout_s)
    runtimes, jobs = {}, []
    for w in with_code:
        if ws is None or w not in ws:
            continue
        try:
            runtimes[w] = WorldRuntime(ws, [w], 1, config, verifier_pool=run.pool())
        except AWMGymError as e:
            run.failures.record(STAGE, w, f"world does not load: {e}", attempts=0)
            continue
        jobs += _world_jobs(run, runtimes[w], ws[w], out)
    total = sum(len(tasks[w]["tasks"]) for w in with_code)
    try:
        prover = _Prover(run, runtimes, ws)
        return run_items(run, STAGE, jobs, prover.validate, _row, out, total - len(jobs),
                         prepare=prover.prepare)
    finally:
        for runtime in runtimes.values():
            runtime.close()


def _row(outcome: RepairOutcome) -> dict[str, Any]:
    w, idx, _ = outcome.context
    return {"scenario": w, "task_idx": idx, **outcome.value}


SPEC = Stage(STAGE, ("gen_tasks.jsonl", "gen_envs.jsonl"), ("gen_solutions.jsonl",), run_stage)
