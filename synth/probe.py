"""Start a candidate world in a child process and call every tool once: the env stage's gate.

Generated code is untrusted: its import may hang, exit the process or crash the interpreter, so a
candidate first runs in ``python -m synth.probe`` (:func:`probe_world` starts it and kills it
after ``timeout_s``). The child loads the candidate's world set with the runtime's own loader,
builds its template and executes its code with the runtime (:class:`awm_gym.envs.runtime.WorldRuntime`),
lists its tools as a model sees them, then calls each tool once on a fresh instance, with
arguments taken from the spec's examples (else the schema's examples and defaults, else a value
of the right type). It writes a JSON report; :func:`probe_problems` turns it into the errors fed
back to the LLM.

A tool *responds* when it answers within the tool timeout without an exception that no input
explains. AWM-style code cannot raise ``HTTPException``, so a missing row surfaces as a 500 from a
``None`` dereference: such 500s, 4xx answers and integrity errors are data, not bugs. A hang, a
``NameError``, an SQL error about a missing table or column, a response that fails its own
``response_model`` and the like are bugs.

Example:
    >>> smoke_arguments({"properties": {"note_id": {"type": "integer"}, "q": {"type": "string",
    ...                  "default": "x"}, "limit": {"type": "integer"}}, "required": ["note_id"]},
    ...                 {"note_id": 3})
    {'note_id': 3, 'q': 'x'}
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from awm_gym.vocab import ToolOutcome

__all__ = ["ProbeReport", "probe_world", "probe_problems", "smoke_arguments", "is_code_bug"]

_BUG_EXCEPTIONS = frozenset({
    "NameError", "UnboundLocalError", "ImportError", "ModuleNotFoundError", "SyntaxError",
    "TypeError", "AttributeError", "KeyError", "IndexError", "OperationalError",
    "ProgrammingError", "ArgumentError", "InvalidRequestError", "CompileError",
    "NoForeignKeysError", "ResponseValidationError", "ValidationError", "PydanticUserError",
    "PydanticSchemaGenerationError", "NotImplementedError", "RecursionError", "StatementError",
    "UnmappedInstanceError", "DetachedInstanceError",
})
_DEFECTS_REJECTED = ("duplicate_route", "shadowed_route", "duplicate_operation_id")
_TYPE_DEFAULTS = {"integer": 1, "number": 1.0, "string": "test", "boolean": False, "array": [],
                  "object": {}}


def is_code_bug(outcome: ToolOutcome | str, detail: str | None) -> bool:
    """Whether a tool result shows a defect of the code rather than of the input.

    Example:
        >>> is_code_bug("crash", "NameError: name 'Nte' is not defined (generated code line 9)")
        True
        >>> is_code_bug("crash", "AttributeError: 'NoneType' object has no attribute 'title'")
        False
    """
    if outcome == ToolOutcome.TIMEOUT:
        return True
    if outcome != ToolOutcome.CRASH or not detail:
        return False
    name = detail.split(":", 1)[0].strip().rsplit(".", 1)[-1]
    return name in _BUG_EXCEPTIONS and "NoneType" not in detail


def _value(schema: Mapping[str, Any]) -> Any:
    for key in ("example", "default"):
        if key in schema:
            return schema[key]
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    for option in schema.get("anyOf") or ():
        if isinstance(option, Mapping) and option.get("type") not in (None, "null"):
            return _value(option)
    return _TYPE_DEFAULTS.get(schema.get("type"), "test")


def smoke_arguments(input_schema: Mapping[str, Any], examples: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments for one smoke call: required properties plus those with a default or example.

    ``examples`` (from the spec's ``request_params``) win over the schema.
    """
    props = input_schema.get("properties") or {}
    required = set(input_schema.get("required") or ())
    args = {}
    for name, schema in props.items():
        if name in examples and examples[name] is not None:
            args[name] = examples[name]
        elif name in required or (isinstance(schema, Mapping)
                                   and ("default" in schema or "example" in schema)):
            args[name] = _value(schema if isinstance(schema, Mapping) else {})
    return args


@dataclass(frozen=True)
class ProbeReport:
    """What the child process found (``crashed`` / ``timed_out`` when it never reported)."""

    load_error: str | None = None
    problems: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    defects: tuple[tuple[str, str], ...] = ()
    calls: tuple[Mapping[str, Any], ...] = ()
    inserts_failed: int = 0
    crashed: str | None = None
    timed_out: bool = False


def probe_problems(report: ProbeReport, expected_tools: list[str], timeout_s: float) -> list[str]:
    """The errors a report shows, written for the correction prompt ([] means the world is kept)."""
    if report.timed_out:
        return [f"The module did not finish loading and answering one call per tool within "
                f"{timeout_s:g} s: something blocks (an endless loop, a server started at import,"
                " a call that waits forever)."]
    if report.crashed:
        return [f"The process running the module died: {report.crashed}"]
    if report.load_error:
        return [f"The module could not be loaded: {report.load_error}"]
    out = list(report.problems)
    if not report.tools:
        out.append("The app has no routes, so the agent would get no tools.")
    missing = [op for op in expected_tools if op not in report.tools]
    if missing:
        out.append(f"The spec's operation_id(s) {missing} are not routes of the app (each "
                   "endpoint needs a route with exactly that operation_id).")
    for kind, text in report.defects:
        if kind in _DEFECTS_REJECTED:
            out.append(f"Route defect: {text}")
    for call in report.calls:
        if is_code_bug(call["outcome"], call.get("detail")):
            what = ("did not return within the tool timeout"
                    if call["outcome"] == ToolOutcome.TIMEOUT
                    else f"raised {call.get('detail')}")
            out.append(f"Tool {call['tool']} called with {json.dumps(call['arguments'])} {what}.")
    return out


def probe_world(world_set_dir: str, world: str, *, examples: Mapping[str, Mapping[str, Any]],
                tool_timeout_s: float, timeout_s: float) -> ProbeReport:
    """Run the probe on ``world`` of the world set in ``world_set_dir`` in a child process."""
    with tempfile.TemporaryDirectory(prefix="synth-probe-") as tmp:
        request = os.path.join(tmp, "request.json")
        result = os.path.join(tmp, "report.json")
        with open(request, "w", encoding="utf-8") as f:
            json.dump({"dir": world_set_dir, "world": world, "examples": examples,
                       "tool_timeout_s": tool_timeout_s, "cache_dir": os.path.join(tmp, "cache"),
                       "report": result}, f)
        return asyncio.run(_run_child(request, result, timeout_s))


async def _run_child(request: str, result: str, timeout_s: float) -> ProbeReport:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "synth.probe", request, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        start_new_session=True)
    try:
        _, stderr = await asyncio.wait_for(proc.communicate(), timeout_s)
    except (asyncio.TimeoutError, TimeoutError):
        proc.kill()
        await proc.wait()
        return ProbeReport(timed_out=True)
    if not os.path.exists(result):
        tail = stderr.decode("utf-8", "replace").strip().splitlines()[-8:]
        return ProbeReport(crashed=f"exit code {proc.returncode}; last output: "
                                   + " | ".join(tail))
    with open(result, encoding="utf-8") as f:
        data = json.load(f)
    return ProbeReport(data.get("load_error"), tuple(data.get("problems", ())),
                       tuple(data.get("tools", ())),
                       tuple(tuple(d) for d in data.get("defects", ())),
                       tuple(data.get("calls", ())), data.get("inserts_failed", 0))


def _load_error_text(error: BaseException) -> str:
    import traceback

    text = str(error)
    cause = error.__cause__
    if cause is not None and cause.__traceback__ is not None:
        frames = [f for f in traceback.extract_tb(cause.__traceback__)
                  if f.filename.startswith("<awm world")]
        if frames:
            text += f" (generated code line {frames[-1].lineno})"
    return text


def _child(request_path: str) -> None:
    """The child process: load, list, call, report."""
    with open(request_path, encoding="utf-8") as f:
        req = json.load(f)
    sys.stdout = sys.stderr  # generated code may print; keep stdout quiet
    from awm_gym import info_keys as K
    from awm_gym.envs import EnvConfig, WorldRuntime
    from awm_gym.errors import AWMGymError
    from awm_gym.tools import format_tool_call
    from awm_gym.worlds import load_world_set

    report: dict[str, Any] = {}
    world = req["world"]
    ws = load_world_set(req["dir"], worlds=[world])
    report["problems"] = [str(p) for p in ws.problems_for(world)]
    runtime = None
    try:
        runtime = WorldRuntime(ws, [world], 1, EnvConfig(
            tool_timeout_s=req["tool_timeout_s"], cache_dir=req["cache_dir"]))
    except (AWMGymError, KeyError) as e:
        report["load_error"] = _load_error_text(e)
    if runtime is not None:
        prepared = runtime.prepared(world)
        report["inserts_failed"] = prepared.report.inserts_failed
        report["defects"] = [(d.kind, str(d)) for d in prepared.host.defects]
        tools = runtime.tools(world)
        report["tools"] = [t["name"] for t in tools]
        calls = []
        for tool in tools:
            args = smoke_arguments(tool.get("inputSchema") or {},
                                   req["examples"].get(tool["name"], {}))
            runtime.reset([0], [0], [0], [world])
            [out] = runtime.step([0], [format_tool_call(tool["name"], args)])
            calls.append({"tool": tool["name"], "arguments": args,
                          "outcome": out.info.get(K.TOOL_OUTCOME, out.info.get(K.ACTION_KIND)),
                          "status": out.info.get(K.TOOL_STATUS), "detail": out.info.get(K.ERROR),
                          "observation": out.observation[:300]})
        report["calls"] = calls
        runtime.close()
    tmp = req["report"] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(report, f, default=str)
    os.replace(tmp, req["report"])


if __name__ == "__main__":
    _child(sys.argv[1])
