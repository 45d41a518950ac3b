"""Outputs a team shares get the umask's ordinary modes (0644 files, 0755 folders under umask 022).

The atomic writer's temporary files (``mkstemp``: 0600) and folders (``mkdtemp``: 0700) must not
leak their private modes into datasets, transcripts, the template cache, synthesis outputs or
model folders. A child process sets the umask and writes each kind of output for real (a fresh
process, so the template cache is written rather than reused from this one's memory); this
process then reads every mode back.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
TINY = REPO / "tests" / "fixtures" / "worlds" / "tiny"

_WRITE_OUTPUTS = textwrap.dedent("""
    import os, sys
    from pathlib import Path

    os.umask(int(sys.argv[2], 8))
    out = Path(sys.argv[1])
    os.environ["AWM_GYM_CACHE"] = str(out / "templates")

    from agents.policies.oracle import OraclePolicy
    from awm_gym.atomic_io import make_temp_dir
    from awm_gym.manager.world import World
    from synth.jsonl_io import write_json, write_jsonl
    from synth.reset_db import reset_databases

    world = World("AWM/spotify-v0", num_envs=2, verbose=0, max_episode_steps=12)
    world.set_policy(OraclePolicy())
    world.record_dataset("oracle", episodes=2, seed=0, cache_dir=str(out / "datasets"))
    world.render_transcripts(out / "transcripts", max_episodes=2, seed=0)
    world.close()
    reset_databases(sys.argv[3], str(out / "synth" / "databases"))
    write_jsonl(out / "synth" / "gen_tasks.jsonl", [{"scenario": "x", "tasks": ["t"]}])
    write_json(out / "synth" / "usage.json", {"task": {"requests": 1}})
    model = make_temp_dir(out, ".model.")
    (model / "config.json").write_text("{}")
    os.replace(model, out / "model")
""")

KINDS = ("datasets", "transcripts", "templates", "synth", "model")


def _write_outputs(out: Path, umask: int) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get(
        "PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", _WRITE_OUTPUTS, str(out), f"{umask:o}",
                           str(TINY)], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr


def _modes(root: Path) -> dict[str, set[str]]:
    """``{kind: {"file 0o644", "dir 0o755", ...}}`` over everything under each output."""
    found: dict[str, set[str]] = {}
    for kind in KINDS:
        paths = [root / kind, *(root / kind).rglob("*")]
        assert len(paths) > 1 or kind == "model", f"nothing written under {kind}"
        found[kind] = {f"{'dir' if p.is_dir() else 'file'} {oct(stat.S_IMODE(p.stat().st_mode))}"
                       for p in paths}
    return found


@pytest.mark.parametrize("umask, file_mode, dir_mode", [(0o022, "0o644", "0o755"),
                                                        (0o027, "0o640", "0o750")])
def test_outputs_follow_the_umask(tmp_path: Path, umask: int, file_mode: str,
                                  dir_mode: str) -> None:
    _write_outputs(tmp_path, umask)
    modes = _modes(tmp_path)
    for kind in KINDS:
        assert modes[kind] == {f"file {file_mode}", f"dir {dir_mode}"}, (kind, modes[kind])
    names = {p.name for p in (tmp_path / "datasets" / "oracle").rglob("*")}
    assert {"awm_dataset.json", "README.md"} <= names  # the atomic writer's files are in the set
    assert any(p.suffix == ".json" for p in (tmp_path / "templates").iterdir())
