"""A world whose code hangs or exits at import is a WorldLoadError naming it, and the caller
lives (issue 17, item 5). The probe runs the real generated code in a real subprocess."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from awm_gym import WorldLoadError
from awm_gym.envs.vector_env import AWMVectorEnv


def broken_set(copy_world_set: Any, tiny_path: str, dst: Path, prefix: str) -> str:
    def edit(file: str, row: dict[str, Any]) -> None:
        if file == "gen_envs.jsonl" and row["scenario"] == "Notes App":
            row["full_code"] = prefix + row["full_code"]
    return str(copy_world_set(tiny_path, dst, edit))


@pytest.mark.timeout(120)
def test_a_world_that_loops_at_import_fails_naming_it(copy_world_set, tiny_path, tmp_path) -> None:
    root = broken_set(copy_world_set, tiny_path, tmp_path / "loop", "while True:\n    pass\n")
    with pytest.raises(WorldLoadError, match=r"World 'notes_app': importing its generated code "
                                             r"did not finish within 5 s"):
        # 5 s, not the default 60: the test waits for the timeout to fire (issue 44)
        AWMVectorEnv(num_envs=1, world_set=root, worlds=["notes_app"], import_timeout_s=5)


@pytest.mark.timeout(150)
@pytest.mark.parametrize("prefix, code", [("import os\nos._exit(5)\n", 5),
                                          ("import os\nos._exit(3)\n", 3),
                                          ("import os\nos._exit(0)\n", 0)])
def test_a_world_that_exits_at_import_fails_naming_it(copy_world_set, tiny_path, tmp_path,
                                                      prefix: str, code: int) -> None:
    root = broken_set(copy_world_set, tiny_path, tmp_path / "exit", prefix)
    with pytest.raises(WorldLoadError, match=r"World 'notes_app': importing its generated code "
                                             rf"ended the process with exit code {code}"):
        AWMVectorEnv(num_envs=1, world_set=root, worlds=["notes_app"])


@pytest.mark.timeout(150)
def test_a_passing_probe_is_paid_once_per_content(copy_world_set, tiny_path, tmp_path) -> None:
    # a fresh content hash: worlds already prepared in this process are not probed again
    root = broken_set(copy_world_set, tiny_path, tmp_path / "fresh", "# a fresh copy\n")
    cache = tmp_path / "cache"
    envs = AWMVectorEnv(num_envs=1, world_set=root, worlds=["notes_app"], cache_dir=str(cache))
    envs.close()
    markers = list((cache / "import-ok").iterdir())
    assert len(markers) == 1 and markers[0].name == envs.runtime.world_set["notes_app"].content_hash
