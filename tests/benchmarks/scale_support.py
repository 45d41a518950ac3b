"""Build a large world set from the built-in worlds, for the scale benchmark.

The public AWM set has 1,000 worlds; this makes one of the same size by copying the built-in
worlds (eight of them) under new names: every row's ``scenario`` (``name`` in
gen_scenario.jsonl) becomes ``<world>_<copy>``, everything else is kept byte for byte. Each copy
is a world of its own to index, parse, register and run, but copies of one built-in world have
the same content hash, so they share one template, catalogue and executed module (the set the
issue measured). ``distinct=True`` appends a comment naming the copy to its ``full_code``, so
that every copy has its own content hash, template, catalogue and module, as 1,000 distinct
worlds would (a cold start then builds every one of them).

    python tests/benchmarks/scale_support.py /tmp/awm-1k 1000 [--distinct]
"""

from __future__ import annotations

import json
import os
import sys

from awm_gym.envs.registration import BUILTIN_WORLDS_DIR

__all__ = ["build_scale_world_set"]


def build_scale_world_set(dest: str, num_worlds: int = 1000, *, distinct: bool = False
                          ) -> list[str]:
    """Write ``num_worlds`` renamed copies of the built-in worlds into ``dest``; returns their
    names (copy ``k`` of built-in world ``w`` is ``f"{w}_{k:04d}"``, worlds taken round-robin).
    ``distinct``: give each copy code of its own (so its own content hash)."""
    files = sorted(f for f in os.listdir(BUILTIN_WORLDS_DIR) if f.endswith(".jsonl"))
    rows: dict[str, dict[str, list[dict]]] = {}
    builtin: list[str] = []
    for file in files:
        key = "name" if file == "gen_scenario.jsonl" else "scenario"
        with open(os.path.join(BUILTIN_WORLDS_DIR, file), encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    row = json.loads(line)
                    rows.setdefault(file, {}).setdefault(row[key], []).append(row)
                    if file == "gen_tasks.jsonl":
                        builtin.append(row[key])
    names = [f"{builtin[i % len(builtin)]}_{i // len(builtin):04d}" for i in range(num_worlds)]
    os.makedirs(dest, exist_ok=True)
    for file in files:
        key = "name" if file == "gen_scenario.jsonl" else "scenario"
        with open(os.path.join(dest, file), "w", encoding="utf-8") as out:
            for i, name in enumerate(names):
                for row in rows[file].get(builtin[i % len(builtin)], ()):
                    copy = {**row, key: name}
                    if distinct and file == "gen_envs.jsonl":
                        copy["full_code"] = row["full_code"] + f"\n# awm-gym scale copy {name}\n"
                    out.write(json.dumps(copy, ensure_ascii=False) + "\n")
    return names


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--distinct"]
    build_scale_world_set(args[0], int(args[1]) if len(args) > 1 else 1000,
                          distinct="--distinct" in sys.argv)
