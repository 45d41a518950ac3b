"""Two recordings appending to one dataset at once (issue 17, item 4): the second fails with a
clear error before doing any work, and every episode a writer reported as written is in the
dataset. Two real processes, real Parquet shards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from awm_gym import EnvUsageError
from awm_gym.manager.episode import Episode, Turn
from awm_gym.manager.recording import DatasetWriter

REPO = Path(__file__).resolve().parents[3]

WRITER = textwrap.dedent('''
    import json, sys, time
    from pathlib import Path
    from awm_gym.manager.episode import Episode, Turn
    from awm_gym.manager.recording import DatasetWriter
    path, name, n, hold = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    try:
        with DatasetWriter(path, [], mode="append") as writer:
            (hold.parent / (name + ".started")).touch()
            for i in range(n):
                writer.write_episode(Episode(writer.next_episode_idx, i, "w", 0, "task", name,
                                             [Turn("a", "o", 0.0, True, False)]))
            deadline = time.monotonic() + 60
            while not hold.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        print(json.dumps({"ok": n}))
    except Exception as e:
        print(json.dumps({"error": type(e).__name__ + ": " + str(e)}))
''')


def start(path: Path, name: str, n: int, hold: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", WRITER, str(path), name, str(n), str(hold)],
                            stdout=subprocess.PIPE, text=True, cwd=path.parent,
                            env=dict(os.environ, PYTHONPATH=str(REPO)))


@pytest.mark.timeout(180)
def test_two_appenders_at_once_lose_nothing(tmp_path: Path) -> None:
    path, hold = tmp_path / "shared", tmp_path / "release"
    first = start(path, "first", 20, hold)
    deadline = time.monotonic() + 120
    while not (tmp_path / "first.started").exists():
        assert time.monotonic() < deadline and first.poll() is None, "the first writer never began"
        time.sleep(0.05)
    second = start(path, "second", 40, hold)  # starts while the first holds the dataset
    second_result = json.loads(second.communicate(timeout=120)[0])
    hold.touch()
    first_result = json.loads(first.communicate(timeout=120)[0])
    assert first_result == {"ok": 20}
    assert "is being written by another recording" in second_result["error"], second_result
    meta = json.loads((path / "awm_dataset.json").read_text())
    assert meta["episodes"] == 20  # every episode reported as written is there

    # once the first is done, appending works again and numbers after it
    with DatasetWriter(path, [], mode="append") as writer:
        writer.write_episode(Episode(writer.next_episode_idx, 0, "w", 0, "task", "third",
                                     [Turn("a", "o", 0.0, True, False)]))
    assert json.loads((path / "awm_dataset.json").read_text())["episodes"] == 21


def test_a_second_writer_in_the_same_process_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ds"
    with DatasetWriter(path, [], mode="overwrite"):
        with pytest.raises(EnvUsageError, match="is being written by another recording"):
            DatasetWriter(path, [], mode="append").__enter__()
    with DatasetWriter(path, [], mode="append"):  # the lock was released on exit
        pass
