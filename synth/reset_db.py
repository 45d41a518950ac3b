"""Build each world's SQLite file from ``gen_db`` + ``gen_sample`` (AWM's ``awm env reset_db``).

Only ``gen_db.jsonl`` and ``gen_sample.jsonl`` are needed. The build is the runtime's
(:func:`awm_gym.worlds.template_db.build_template_db`): AWM's exact two passes, failing INSERTs counted and skipped, on the frozen clock. The generated code is not run
(a server started on the file runs its ``create_all`` then, as AWM's does). Files are written
atomically, one per world, as ``<out_dir>/<world>.db``.

Example:
    >>> import tempfile
    >>> from awm_gym.envs.registration import BUILTIN_WORLDS_DIR
    >>> builds = reset_databases(BUILTIN_WORLDS_DIR, tempfile.mkdtemp())
    >>> builds[0].world, len(builds)
    ('spotify', 8)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import SynthConfigError

__all__ = ["DatabaseBuild", "reset_databases"]


@dataclass(frozen=True, slots=True)
class DatabaseBuild:
    """One world's database file and how its build went."""

    world: str
    path: str
    inserts_ok: int
    inserts_failed: int
    tables_failed: int


def reset_databases(world_set_dir: str, out_dir: str, worlds: Sequence[str] = ()
                    ) -> list[DatabaseBuild]:
    """Write ``<out_dir>/<world>.db`` for every world (or ``worlds``) of ``gen_db.jsonl``.

    Only ``gen_db.jsonl`` and ``gen_sample.jsonl`` are read, as AWM's command does.
    """
    from awm_gym.atomic_io import write_bytes_atomic
    from awm_gym.worlds import FrozenClock, build_template_db, normalize_scenario_name

    from .store import rows_by_world
    from .world_text import samples_from_data, tables_from_schema

    if not os.path.isfile(os.path.join(world_set_dir, "gen_db.jsonl")):
        raise SynthConfigError(f"{world_set_dir} has no gen_db.jsonl: give the --output-dir of "
                               "a synthesis run (`awm gen db` writes the file).")
    wanted = {normalize_scenario_name(w) for w in worlds}
    schemas = rows_by_world(os.path.join(world_set_dir, "gen_db.jsonl"))
    samples = rows_by_world(os.path.join(world_set_dir, "gen_sample.jsonl"))
    os.makedirs(out_dir, exist_ok=True)
    out = []
    for world, row in schemas.items():
        if wanted and world not in wanted:
            continue
        data = samples.get(world, {}).get("sample_data") or {"tables": []}
        conn, report = build_template_db(tables_from_schema(row["db_schema"]),
                                         samples_from_data(data), FrozenClock())
        try:
            content = conn.serialize()
        finally:
            conn.close()
        path = os.path.join(out_dir, f"{world}.db")
        write_bytes_atomic(path, content)
        out.append(DatabaseBuild(world, path, report.inserts_total - report.inserts_failed,
                                 report.inserts_failed, report.tables_failed))
    return out
