"""Build a large world set from the built-in worlds, for the scale benchmark.

The public AWM set has 1,000 worlds; this makes one of the same size by copying the built-in
worlds (eight of them) under new names: every row's ``scenario`` (``name`` in
gen_scenario.jsonl) becomes ``<world>_<copy>``, everything else is kept byte for byte, so each
copy has its own index entry, and a comment naming the copy is appended to its ``full_code``,
so each copy has its own content hash: its own template, catalogue and module, as 1,000
distinct worlds would.

    python tests/benchmarks/scale_support.py /tmp/awm-1k 1000
"""

from __future__ import annotations

import json
import os
import sys

from awm_gym.envs.registration import BUILTIN_WORLDS_DIR

__all__ = ["build_scale_world_set"]


def build_scale_world_set(dest: str, num_worlds: int = 1000) -> list[str]:
    """Write ``num_worlds`` renamed copies of the built-in worlds into ``dest``; returns their
    names (copy ``k`` of built-in world ``w`` is ``f"{w}_{k:04d}"``, worlds taken round-robin)."""
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
                    if file == "gen_envs.jsonl":
                        copy["full_code"] = row["full_code"] + f"\n# awm-gym scale copy {name}\n"
                    out.write(json.dumps(copy, ensure_ascii=False) + "\n")
    return names


if __name__ == "__main__":
    build_scale_world_set(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1000)
