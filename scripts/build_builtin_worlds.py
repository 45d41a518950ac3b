"""Assemble the built-in worlds' human-readable sources into AWM JSONL files.

Sources live in awm_gym/worlds/sources/<world>/ (world.py re-exports everything; app.py is the
generated-style FastAPI module). Output goes to awm_gym/worlds/builtin/ as one AWM world set:
gen_scenario, gen_tasks, gen_db, gen_sample, gen_spec, gen_envs, gen_verifier.pure_code and our
gen_solutions extension. The output is deterministic: the same sources give byte-identical files.

    python scripts/build_builtin_worlds.py            # (re)write the JSONL files
    python scripts/build_builtin_worlds.py --check    # exit 1 if a committed file is stale
    python scripts/build_builtin_worlds.py --world amazon --out /tmp/amazon_set   # one world alone

The sources are loaded by file path, so this script does not import the awm_gym package.
"""

import argparse
import importlib.util
import json
import os
import sys
import tempfile

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES_DIR = os.path.join(REPO_ROOT, "awm_gym", "worlds", "sources")
BUILTIN_DIR = os.path.join(REPO_ROOT, "awm_gym", "worlds", "builtin")
WORLDS = ["spotify", "amazon", "gmail", "google_calendar", "expedia", "chase", "github", "doordash"]
VERIFIER_FUNCTION = "verify_task_completion"
FILES = [
    "gen_scenario.jsonl",
    "gen_tasks.jsonl",
    "gen_db.jsonl",
    "gen_sample.jsonl",
    "gen_spec.jsonl",
    "gen_envs.jsonl",
    "gen_verifier.pure_code.jsonl",
    "gen_solutions.jsonl",
]


def load_world(name):
    """Import sources/<name>/world.py as a package module without importing awm_gym."""
    package_dir = os.path.join(SOURCES_DIR, name)
    package_name = f"_awm_builtin_sources_{name}"
    sys.dont_write_bytecode = True
    if package_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(package_name, os.path.join(package_dir, "__init__.py"), submodule_search_locations=[package_dir])
        package = importlib.util.module_from_spec(spec)
        sys.modules[package_name] = package
        spec.loader.exec_module(package)
    return importlib.import_module(f"{package_name}.world")


def check_world(world):
    """Cheap structural checks; the integration test does the behavioural ones."""
    problems = []
    count = len(world.TASKS)
    for label, items in [("SOLUTIONS", world.SOLUTIONS), ("VERIFIERS", world.VERIFIERS), ("VERIFIER_META", world.VERIFIER_META)]:
        if len(items) != count:
            problems.append(f"{label} has {len(items)} entries for {count} tasks")
    for index, code in enumerate(world.VERIFIERS):
        first = next((line for line in code.splitlines() if line.startswith("def verify_")), "")
        if not first.startswith(f"def {VERIFIER_FUNCTION}("):
            problems.append(f"verifier {index}: first 'def verify_' line is not {VERIFIER_FUNCTION}")
    table_names = [table["name"] for table in world.TABLES]
    for table in world.SAMPLE:
        if table["table_name"] not in table_names:
            problems.append(f"sample table {table['table_name']} has no DDL")
    if problems:
        raise SystemExit(f"{world.SCENARIO}: " + "; ".join(problems))


def world_rows(world):
    """Return {file name: [rows]} for one world."""
    scenario = world.SCENARIO
    db_path = f"./outputs/databases/{scenario}.db"
    inserts = sum(len(table["insert_statements"]) for table in world.SAMPLE)
    rows = {
        "gen_scenario.jsonl": [{"name": scenario, "description": world.DESCRIPTION}],
        "gen_tasks.jsonl": [{"scenario": scenario, "tasks": list(world.TASKS)}],
        "gen_db.jsonl": [{"scenario": scenario, "db_schema": {"tables": world.TABLES}, "db_path": db_path}],
        "gen_sample.jsonl": [{"scenario": scenario, "tables_count": len(world.SAMPLE), "inserts_count": inserts, "sample_data": {"tables": world.SAMPLE}}],
        "gen_spec.jsonl": [{"scenario": scenario, "api_spec": {"api_groups": world.SPEC}}],
        "gen_envs.jsonl": [{"scenario": scenario, "db_path": db_path, "full_code": world.FULL_CODE}],
        "gen_verifier.pure_code.jsonl": [],
        "gen_solutions.jsonl": [],
    }
    for index, task in enumerate(world.TASKS):
        meta = world.VERIFIER_META[index]
        code = world.VERIFIERS[index]
        raw = {
            "reasoning": meta["reasoning"],
            "verification_strategy": meta["verification_strategy"],
            "key_checks": meta["key_checks"],
            "python_code": code,
            "function_name": VERIFIER_FUNCTION,
        }
        rows["gen_verifier.pure_code.jsonl"].append({"scenario": scenario, "task_idx": index, "task": task, "verification": {"code": code, "raw_response": json.dumps(raw, ensure_ascii=False)}})
        solution = world.SOLUTIONS[index]
        rows["gen_solutions.jsonl"].append({"scenario": scenario, "task_idx": index, "calls": solution["calls"], "final_answer": solution["final_answer"]})
    return rows


def render(worlds):
    """Return {file name: text} for all worlds, in WORLDS order."""
    combined = {name: [] for name in FILES}
    for world in worlds:
        check_world(world)
        for name, rows in world_rows(world).items():
            combined[name].extend(rows)
    return {name: "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows) for name, rows in combined.items()}


def write_atomic(path, text):
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    handle = tempfile.NamedTemporaryFile("w", encoding="utf-8", newline="", dir=directory, prefix=".tmp_", suffix=".jsonl", delete=False)
    try:
        with handle:
            handle.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(handle.name, 0o666 & ~umask)
        os.replace(handle.name, path)
    except BaseException:
        if os.path.exists(handle.name):
            os.unlink(handle.name)
        raise


def read_text(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if any JSONL file differs from what the sources produce")
    parser.add_argument("--out", default=BUILTIN_DIR, help="output directory (default: awm_gym/worlds/builtin)")
    parser.add_argument("--world", action="append", help="assemble only this source world (repeatable; default: the built-in list)")
    args = parser.parse_args(argv)
    if args.world and os.path.realpath(args.out) == os.path.realpath(BUILTIN_DIR):
        parser.error("--world writes a partial world set; pass --out DIR outside awm_gym/worlds/builtin")
    texts = render([load_world(name) for name in (args.world or WORLDS)])
    if args.check:
        stale = 0
        for name, text in texts.items():
            path = os.path.join(args.out, name)
            current = read_text(path)
            if current != text:
                stale += 1
                reason = "is missing" if current is None else "differs from its sources"
                print(f"stale: {path} {reason}; run python scripts/build_builtin_worlds.py", file=sys.stderr)
        return 1 if stale else 0
    for name, text in texts.items():
        path = os.path.join(args.out, name)
        if read_text(path) != text:
            write_atomic(path, text)
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
