"""Every built-in world's sources, checked end to end without the awm_gym runtime.

Worlds are discovered from awm_gym/worlds/sources/*/world.py (select one with ``-k <name>``).
0. The world meets the size floor (tables, seed rows, tools, 10 tasks, >= 3 calls per task).
1. The committed JSONL files are in sync with awm_gym/worlds/sources/spotify/ (assembler --check).
2. The initial DB is built from gen_db + gen_sample exactly as AWM's reset.py does, then the
   module's create_all runs, as AWM's server does at start-up.
3. full_code is served through fastapi.testclient; every reference solution is replayed with
   fastapi_mcp's argument mapping; the code-mode verifier must say "others" on the untouched
   state and "complete" on the solved one.
"""

import importlib.util
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

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BUILTIN_DIR = os.path.join(REPO_ROOT, "awm_gym", "worlds", "builtin")
ASSEMBLER = os.path.join(REPO_ROOT, "scripts", "build_builtin_worlds.py")
COMPLETE = {"result": "complete"}
OTHERS = {"result": "others"}
BODY_METHODS = {"POST", "PUT", "PATCH"}
# The floor for a built-in world (AWM's average world).
MIN_TABLES, MIN_ROWS, MIN_TOOLS, TASKS, MIN_MEAN_CALLS = 15, 100, 30, 10, 3.0


def load_assembler():
    spec = importlib.util.spec_from_file_location("_build_builtin_worlds", ASSEMBLER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ASSEMBLER_MODULE = load_assembler()
SOURCE_WORLDS = sorted(name for name in os.listdir(ASSEMBLER_MODULE.SOURCES_DIR)
                       if os.path.exists(os.path.join(ASSEMBLER_MODULE.SOURCES_DIR, name, "world.py")))


def near_miss_cases():
    """(world, task_idx) for every near-miss solution a world's sources declare."""
    return [(name, task_idx) for name in SOURCE_WORLDS
            for task_idx in sorted(getattr(ASSEMBLER_MODULE.load_world(name), "NEAR_MISSES", {}))]


def load_app(full_code, db_path):
    """Exec the generated module against db_path (read from DATABASE_PATH, as AWM sets it)."""
    previous = os.environ.get("DATABASE_PATH")
    os.environ["DATABASE_PATH"] = f"sqlite:///{db_path}"
    namespace = {"__name__": "awm_env_builtin"}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(full_code, "builtin_app.py", "exec"), namespace)
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


def world_data(name):
    """The AWM rows the assembler makes from sources/<name>/ (the committed files must match)."""
    source = ASSEMBLER_MODULE.load_world(name)
    ASSEMBLER_MODULE.check_world(source)
    rows = ASSEMBLER_MODULE.world_rows(source)
    return {
        "name": name,
        "tasks": rows["gen_tasks.jsonl"][0]["tasks"],
        "tables": rows["gen_db.jsonl"][0]["db_schema"]["tables"],
        "sample": rows["gen_sample.jsonl"][0]["sample_data"]["tables"],
        "spec": rows["gen_spec.jsonl"][0]["api_spec"]["api_groups"],
        "code": rows["gen_envs.jsonl"][0]["full_code"],
        "verifiers": {row["task_idx"]: row for row in rows["gen_verifier.pure_code.jsonl"]},
        "solutions": {row["task_idx"]: row for row in rows["gen_solutions.jsonl"]},
        "wrong_answers": getattr(source, "WRONG_ANSWERS", {}),
        "near_misses": getattr(source, "NEAR_MISSES", {}),
    }


_WORLDS = {}
_DATABASES = {}


def get_world(name):
    if name not in _WORLDS:
        _WORLDS[name] = world_data(name)
    return _WORLDS[name]


@pytest.fixture(scope="module", params=SOURCE_WORLDS)
def world(request):
    return get_world(request.param)


def get_initial_db(world, tmp_path_factory):
    name = world["name"]
    if name not in _DATABASES:
        path = str(tmp_path_factory.mktemp(f"{name}_template") / f"{name}.db")
        total, failed = build_awm_db(path, world["tables"], world["sample"], world["code"])
        _DATABASES[name] = {"path": path, "inserts": total, "failed": failed}
    return _DATABASES[name]


@pytest.fixture(scope="module")
def initial_db(world, tmp_path_factory):
    return get_initial_db(world, tmp_path_factory)


def test_jsonl_in_sync_with_sources():
    result = subprocess.run([sys.executable, ASSEMBLER, "--check"], capture_output=True, text=True, cwd=REPO_ROOT)
    assert result.returncode == 0, result.stderr


def test_full_code_follows_awm_rules(world):
    code = world["code"]
    tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    assert not [t.string for t in tokens if t.type == tokenize.COMMENT]
    names = {t.string for t in tokens if t.type == tokenize.NAME}
    assert not names & {"try", "except", "HTTPException", "JSONResponse", "Annotated", "Union", "text", "execute"}
    assert f'DATABASE_PATH = os.getenv("DATABASE_PATH", "sqlite:///{world["name"]}.db")' in code
    engine_lines = [line for line in code.splitlines() if "create_engine(" in line and not line.startswith("from ")]
    assert len(engine_lines) == 1 and engine_lines[0].count("(") == engine_lines[0].count(")")
    assert code.index("app = FastAPI(") < code.index("@app.")
    assert 'if __name__ == "__main__":' in code and "uvicorn.run(app" in code


def test_world_meets_the_size_floor(world):
    """At least AWM's average world: tables, seed rows, tools, tasks, calls per task."""
    assert len(world["tables"]) >= MIN_TABLES
    assert sum(len(table["insert_statements"]) for table in world["sample"]) >= MIN_ROWS
    assert sum(len(group["endpoints"]) for group in world["spec"]) >= MIN_TOOLS
    assert len(world["tasks"]) == TASKS
    calls = [len(world["solutions"][i]["calls"]) for i in range(TASKS)]
    assert sum(calls) / TASKS >= MIN_MEAN_CALLS, calls


def test_seed_database(world, initial_db):
    assert initial_db["failed"] == 0
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
    assert len(routes) >= MIN_TOOLS
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
        for wrong in world["wrong_answers"].get(task_idx, ["EMPTY RESPONSE FOR TESTING"]):
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


@pytest.mark.parametrize(("world_name", "task_idx"), near_miss_cases())
def test_verifier_rejects_near_misses(world_name, task_idx, tmp_path_factory, tmp_path):
    """Each near-miss (a careless agent's calls, declared as NEAR_MISSES in world.py) is rejected."""
    world = get_world(world_name)
    initial_db = get_initial_db(world, tmp_path_factory)
    verifier = load_verifier(world["verifiers"][task_idx]["verification"]["code"])
    calls = [(tool, arguments) for tool, arguments in world["near_misses"][task_idx]]
    final, _ = replay(world, initial_db["path"], calls, tmp_path)
    initial = str(tmp_path / "initial.db")
    shutil.copyfile(initial_db["path"], initial)
    assert run_verifier(verifier, initial, final, world["solutions"][task_idx]["final_answer"]) == OTHERS
