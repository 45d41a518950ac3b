"""The built-in spotify world, checked end to end without the awm_gym runtime.

1. The committed JSONL files are in sync with awm_gym/worlds/sources/spotify/ (assembler --check).
2. The initial DB is built from gen_db + gen_sample exactly as AWM's reset.py does, then the
   module's create_all runs, as AWM's server does at start-up.
3. full_code is served through fastapi.testclient; every reference solution is replayed with
   fastapi_mcp's argument mapping; the code-mode verifier must say "others" on the untouched
   state and "complete" on the solved one.
"""

import inspect
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tokenize
import warnings

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILTIN_DIR = os.path.join(REPO_ROOT, "awm_gym", "worlds", "builtin")
ASSEMBLER = os.path.join(REPO_ROOT, "scripts", "build_builtin_worlds.py")
SCENARIO = "spotify"
COMPLETE = {"result": "complete"}
OTHERS = {"result": "others"}
BODY_METHODS = {"POST", "PUT", "PATCH"}
# Plausible but wrong answers for the pure query tasks (their final DB equals the initial DB).
WRONG_ANSWERS = {
    0: ["EMPTY RESPONSE FOR TESTING", "Luna Vale's latest album is 'Glass Horizons' from 2021."],
    2: ["EMPTY RESPONSE FOR TESTING", "Marcus Kane, with 6,730,000 monthly listeners.", "Kiro Nakamura, with 4,820,000 monthly listeners."],
}

# Near-miss solutions that a careless agent could produce; the verifier must reject each one.
NEAR_MISSES = {
    1: [("like_track", {"track_id": 38})],
    3: [("delete_playlist", {"playlist_id": 4}), ("update_playlist", {"playlist_id": 3, "name": "Road Trip Classics"})],
    4: [("update_settings", {"audio_quality": "very_high", "crossfade_seconds": 6}), ("transfer_playback", {"device_id": 3})],
    5: [("follow_podcast", {"podcast_id": 2}), ("save_episode", {"episode_id": 6})],
    6: [("add_to_queue", {"track_id": 6})],
    7: [("remove_track_from_playlist", {"playlist_id": 2, "track_id": 16})],
    8: [("add_to_queue", {"track_id": 16}), ("add_to_queue", {"track_id": 18}), ("add_to_queue", {"track_id": 19})],
    9: [("create_playlist", {"name": "Best of Luna Vale", "is_public": True})] + [("add_track_to_playlist", {"playlist_id": 10, "track_id": t}) for t in range(1, 6)],
}


def read_rows(name):
    with open(os.path.join(BUILTIN_DIR, name), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def scenario_row(name):
    return next(row for row in read_rows(name) if row["scenario"] == SCENARIO)


def load_app(full_code, db_path):
    """Exec the generated module against db_path (read from DATABASE_PATH, as AWM sets it)."""
    previous = os.environ.get("DATABASE_PATH")
    os.environ["DATABASE_PATH"] = f"sqlite:///{db_path}"
    namespace = {"__name__": "awm_env_spotify"}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(full_code, "spotify_app.py", "exec"), namespace)
    finally:
        if previous is None:
            os.environ.pop("DATABASE_PATH", None)
        else:
            os.environ["DATABASE_PATH"] = previous
    return namespace


def build_awm_db(path, tables, sample, full_code):
    """reset.py: DDL + indexes per table in one try (no FK pragma), then INSERTs one by one."""
    conn = sqlite3.connect(path)
    for table in tables:
        try:
            conn.execute(table["ddl"])
            for statement in table.get("indexes", []) + table.get("examples", []):
                conn.execute(statement)
        except sqlite3.Error:
            pass
    conn.commit()
    conn.execute("PRAGMA foreign_keys = ON")
    total = failed = 0
    for table in sample:
        for statement in table["insert_statements"]:
            total += 1
            try:
                conn.execute(statement)
            except sqlite3.Error:
                failed += 1
    conn.commit()
    conn.close()
    namespace = load_app(full_code, path)
    namespace["Base"].metadata.create_all(bind=namespace["engine"])
    namespace["engine"].dispose()
    return total, failed


def operation_map(app):
    operations = {}
    for path, methods in app.openapi()["paths"].items():
        for method, operation in methods.items():
            operations[operation["operationId"]] = (method.upper(), path, operation.get("parameters", []))
    return operations


def call_tool(client, operations, tool, arguments):
    """Map flat MCP arguments to path/query/body the way fastapi_mcp 0.4.0 does."""
    method, path, parameters = operations[tool]
    arguments = dict(arguments)
    for parameter in parameters:
        if parameter["in"] == "path" and parameter["name"] in arguments:
            path = path.replace("{" + parameter["name"] + "}", str(arguments.pop(parameter["name"])))
    query = {p["name"]: arguments.pop(p["name"]) for p in parameters if p["in"] == "query" and p["name"] in arguments}
    body = arguments if arguments else None
    if method in BODY_METHODS:
        return client.request(method, path, params=query, json=body)
    return client.request(method, path, params=query)


def load_verifier(code):
    """verify.py: the entry point is the first line starting with 'def verify_'."""
    line = next(line for line in code.splitlines() if line.startswith("def verify_"))
    name = line[len("def "):line.index("(")]
    namespace = {"sqlite3": sqlite3, "json": json, "__builtins__": __builtins__}
    exec(code, namespace)
    return namespace[name]


def run_verifier(verifier, initial, final, answer):
    os.chmod(initial, 0o444)
    os.chmod(final, 0o444)
    return verifier(initial_db_path=initial, final_db_path=final, final_answer=answer)


@pytest.fixture(scope="module")
def world():
    return {
        "tasks": scenario_row("gen_tasks.jsonl")["tasks"],
        "tables": scenario_row("gen_db.jsonl")["db_schema"]["tables"],
        "sample": scenario_row("gen_sample.jsonl")["sample_data"]["tables"],
        "spec": scenario_row("gen_spec.jsonl")["api_spec"]["api_groups"],
        "code": scenario_row("gen_envs.jsonl")["full_code"],
        "verifiers": {row["task_idx"]: row for row in read_rows("gen_verifier.pure_code.jsonl") if row["scenario"] == SCENARIO},
        "solutions": {row["task_idx"]: row for row in read_rows("gen_solutions.jsonl") if row["scenario"] == SCENARIO},
    }


@pytest.fixture(scope="module")
def initial_db(world, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("spotify_template") / "spotify.db")
    total, failed = build_awm_db(path, world["tables"], world["sample"], world["code"])
    return {"path": path, "inserts": total, "failed": failed}


def test_jsonl_in_sync_with_sources():
    result = subprocess.run([sys.executable, ASSEMBLER, "--check"], capture_output=True, text=True, cwd=REPO_ROOT)
    assert result.returncode == 0, result.stderr


def test_full_code_follows_awm_rules(world):
    code = world["code"]
    tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    assert not [t.string for t in tokens if t.type == tokenize.COMMENT]
    names = {t.string for t in tokens if t.type == tokenize.NAME}
    assert not names & {"try", "except", "HTTPException", "JSONResponse", "Annotated", "Union", "text", "execute"}
    assert 'DATABASE_PATH = os.getenv("DATABASE_PATH", "sqlite:///spotify.db")' in code
    engine_lines = [line for line in code.splitlines() if "create_engine(" in line and not line.startswith("from ")]
    assert len(engine_lines) == 1 and engine_lines[0].count("(") == engine_lines[0].count(")")
    assert code.index("app = FastAPI(") < code.index("@app.")
    assert 'if __name__ == "__main__":' in code and "uvicorn.run(app" in code


def test_seed_database(world, initial_db):
    assert initial_db["failed"] == 0
    assert initial_db["inserts"] >= 120
    assert len(world["tables"]) >= 18
    conn = sqlite3.connect(initial_db["path"])
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    rows = sum(conn.execute(f'SELECT COUNT(*) FROM "{table["name"]}"').fetchone()[0] for table in world["tables"])
    conn.close()
    assert {table["name"] for table in world["tables"]} <= names
    assert rows == initial_db["inserts"]


def test_routes_and_spec(world, initial_db):
    from fastapi.routing import APIRoute

    namespace = load_app(world["code"], initial_db["path"])
    routes = [route for route in namespace["app"].routes if isinstance(route, APIRoute)]
    namespace["engine"].dispose()
    assert len(routes) >= 35
    operation_ids = [route.operation_id for route in routes]
    assert len(set(operation_ids)) == len(operation_ids)
    keys = [(method, route.path) for route in routes for method in route.methods]
    assert len(set(keys)) == len(keys)
    for route in routes:
        assert route.summary and len(route.summary) <= 80 and route.description and "\n" not in route.description
        assert route.tags and route.response_model is not None, route.operation_id
        assert inspect.iscoroutinefunction(route.endpoint), f"{route.operation_id} is not async"
    openapi_ops = operation_map(namespace["app"])
    spec_ops = {}
    for group in world["spec"]:
        for endpoint in group["endpoints"]:
            spec_ops[endpoint["operation_id"]] = endpoint
    assert set(spec_ops) == set(openapi_ops)
    schemas = namespace["app"].openapi()["components"]["schemas"]
    for op, (method, path, parameters) in openapi_ops.items():
        endpoint = spec_ops[op]
        assert (endpoint["method"], endpoint["path"]) == (method, path), op
        names = {p["name"]: p["in"] for p in parameters}
        body = namespace["app"].openapi()["paths"][path][method.lower()].get("requestBody")
        if body:
            reference = body["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
            names.update({name: "body" for name in schemas[reference]["properties"]})
        assert {name: p["param_type"] for name, p in endpoint["request_params"].items()} == names, op


@pytest.mark.parametrize("task_idx", range(10))
def test_task_solution_and_verifier(world, initial_db, task_idx, tmp_path):
    solution = world["solutions"][task_idx]
    verifier = load_verifier(world["verifiers"][task_idx]["verification"]["code"])
    calls = [(call["tool"], call["arguments"]) for call in solution["calls"]]
    final, operations = replay(world, initial_db["path"], calls, tmp_path)
    initial = str(tmp_path / "initial.db")
    shutil.copyfile(initial_db["path"], initial)
    answer = solution["final_answer"]
    read_only = all(operations[tool][0] == "GET" for tool, _ in calls)
    assert run_verifier(verifier, initial, initial, None) == OTHERS
    if read_only:
        for wrong in WRONG_ANSWERS.get(task_idx, ["EMPTY RESPONSE FOR TESTING"]):
            assert run_verifier(verifier, initial, initial, wrong) == OTHERS, wrong
    else:
        assert run_verifier(verifier, initial, initial, answer) == OTHERS
    assert run_verifier(verifier, initial, final, answer) == COMPLETE

def replay(world, source_db, calls, tmp_path):
    """Apply (tool, arguments) calls to a copy of source_db; return its path and the op map."""
    from fastapi.testclient import TestClient

    work = str(tmp_path / "work.db")
    shutil.copyfile(source_db, work)
    namespace = load_app(world["code"], work)
    operations = operation_map(namespace["app"])
    with TestClient(namespace["app"]) as client:
        for tool, arguments in calls:
            response = call_tool(client, operations, tool, arguments)
            assert 200 <= response.status_code < 300, f"{tool}: {response.status_code} {response.text}"
    namespace["engine"].dispose()
    return work, operations


@pytest.mark.parametrize("task_idx", sorted(NEAR_MISSES))
def test_verifier_rejects_near_misses(world, initial_db, task_idx, tmp_path):
    verifier = load_verifier(world["verifiers"][task_idx]["verification"]["code"])
    final, _ = replay(world, initial_db["path"], NEAR_MISSES[task_idx], tmp_path)
    initial = str(tmp_path / "initial.db")
    shutil.copyfile(initial_db["path"], initial)
    assert run_verifier(verifier, initial, final, world["solutions"][task_idx]["final_answer"]) == OTHERS
