"""Turn pytest-benchmark JSON files (one per run) into the markdown tables of docs/benchmarks/index.md.

Each benchmark's time per round is the median over the runs of its per-run median (the best
run's median is shown beside it: on a shared machine it is the least disturbed); with
``extra_info["calls"]`` it becomes microseconds per call and calls per second. Extra info
(ratios, memory, phases) is reported as the median over the runs.

    /work/venv/bin/python tests/benchmarks/summarize.py run1.json run2.json run3.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict

GROUP_ORDER = ("ready", "step-read", "step-write", "step-list_tools", "dispatch", "verify",
               "fresh-process")
ROLES = (  # (name fragment, label), first match wins
    ("host_call_vs_endpoint", "ours: `ToolHost.call`, one instance"),
    ("num_workers_2", "ours: `envs.step` with `num_workers=2` (2 shard processes)"),
    ("_vector_", "ours: `envs.step` (AWMVectorEnv)"),
    ("_host_call_1024", "our dispatch alone: `ToolHost.call` per instance"),
    ("_endpoint_direct", "floor: endpoint function called directly"),
    ("_raw_sqlite", "floor: the same SQL through raw sqlite3"),
    ("_mcp_asgi", "AWM's path: fastapi_mcp → ASGI app"),
    ("_parse_action", "floor: `parse_action` only"),
    ("make_vec_and_first_reset_1024[default]", "ours: `make_vec` + first `reset`, default "
     "`num_workers` (auto)"),
    ("make_vec_and_first_reset", "ours: `make_vec` + first `reset`"),
    ("reset_all_mask", "ours: `reset` (all-true mask)"),
    ("floor_connect_deserialize", "floor: `connect(':memory:')` + `deserialize`"),
    ("floor_deserialize_existing", "floor: `deserialize` on open connections"),
    ("verify_pool", "ours: `VerifierPool.run` (2 workers)"),
    ("with_final_file_per_job", "floor: in-process, final DB file written per job"),
    ("verify_in_process", "floor: verifier called in-process"),
    ("fresh_process", "fresh interpreter: import → 1,024 reset (warm cache)"),
)


def label(name: str) -> str:
    return next((text for fragment, text in ROLES if fragment in name), name)


def _median(values: list) -> object:
    numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if len(numbers) == len(values) and numbers:
        return statistics.median(numbers)
    return values[-1]


def collect(paths: list[str]) -> tuple[dict[str, dict], dict]:
    runs: dict[str, dict] = defaultdict(lambda: {"medians": [], "extra": defaultdict(list)})
    machine = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        machine = data.get("machine_info", machine)
        for bench in data["benchmarks"]:
            entry = runs[bench["name"]]
            entry["group"] = bench.get("group") or ""
            entry["medians"].append(bench["stats"]["median"])
            for key, value in bench.get("extra_info", {}).items():
                entry["extra"][key].append(value)
    return runs, machine


def render(runs: dict[str, dict], n_runs: int) -> str:
    groups: dict[str, list[str]] = defaultdict(list)
    for name, entry in runs.items():
        groups[entry["group"]].append(name)
    lines = []
    order = {g: i for i, g in enumerate(GROUP_ORDER)}
    for group in sorted(groups, key=lambda g: (order.get(g, len(order)), g)):
        names = groups[group]
        raw = next((n for n in names if "_raw_sqlite" in n), None)
        raw_us = None
        if raw is not None:
            r = runs[raw]
            raw_us = statistics.median(r["medians"]) / _median(r["extra"]["calls"]) * 1e6
        lines += [f"### {group}", "",
                  "| what | calls/round | ms/round | µs/call | best run µs/call | calls/s "
                  "| × raw SQL | runs |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for name in sorted(names, key=lambda n: -statistics.median(runs[n]["medians"])
                           / _median(runs[n]["extra"].get("calls", [1]))):
            entry = runs[name]
            calls = int(_median(entry["extra"].get("calls", [1])))
            seconds = statistics.median(entry["medians"])
            per_call = seconds / calls * 1e6
            best = min(entry["medians"]) / calls * 1e6
            ratio = f"{per_call / raw_us:.1f}" if raw_us else ""
            lines.append(f"| {label(name)} (`{name}`) | {calls} | {seconds * 1e3:,.1f} | "
                         f"{per_call:,.1f} | {best:,.1f} | {calls / seconds:,.0f} | {ratio} | "
                         f"{len(entry['medians'])}/{n_runs} |")
        extras = [(name, key, _median(values)) for name in names
                  for key, values in runs[name]["extra"].items()
                  if key not in ("calls", "sql", "arguments")]
        if extras:
            lines.append("")
            for name, key, value in extras:
                lines.append(f"- `{name}` {key}: {value}")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json_files", nargs="+")
    opts = parser.parse_args()
    runs, machine = collect(opts.json_files)
    cpu = machine.get("cpu", {})
    print(f"<!-- {len(opts.json_files)} runs; {machine.get('python_implementation', '')} "
          f"{machine.get('python_version', '')}; {cpu.get('brand_raw', '')}, "
          f"{cpu.get('count', '')} cores -->\n")
    print(render(runs, len(opts.json_files)))
    sqls = {name: entry["extra"]["sql"][-1] for name, entry in runs.items()
            if entry["extra"].get("sql")}
    for name, statements in sqls.items():
        print(f"SQL replayed by `{name}`:\n")
        print("```sql")
        print(";\n".join(s.strip() for s in statements) + ";")
        print("```\n")


if __name__ == "__main__":
    main()
