"""A contained worker's scratch directory has a total-size quota (issue 23, item 7): files that
together pass ``scratch_quota_mb`` are removed after the action that crossed it, which reads an
error; the worker lives on, and its neighbours and the episode go on. One file past it fails on
its own (``RLIMIT_FSIZE``). Where the kernel gives the worker namespaces of its own the scratch
directory is a tmpfs of the quota (issue 31, item 3), so the quota holds during an action too,
and the caller sees the worker's files through ``/proc/<pid>/root``. The world is
tests/fixtures/make_hostile_world.py."""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import awm_gym  # noqa: F401 - registers AWM/mix-v0
from awm_gym.envs.scratch_quota import QUOTA_OUTCOME, ScratchQuota

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fixtures"))
from make_hostile_world import WORLD, write_hostile_world  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux containment")


def call(tool: str, **arguments: object) -> str:
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


ADD, COUNT = call("add_note", body="hello"), call("count_notes")


@pytest.fixture(scope="module")
def envs(tmp_path_factory: pytest.TempPathFactory):
    root = write_hostile_world(tmp_path_factory.mktemp("quota"))
    envs = gym.make_vec("AWM/mix-v0", num_envs=2, world_set=str(root), max_episode_steps=100,
                        scratch_quota_mb=1)
    envs.reset(seed=[0, 1], options={"task_idx": [0, 0]})
    yield envs
    envs.close()


def _seen(envs, path: Path) -> Path:  # noqa: ANN001
    """``path`` in the worker's mount namespace (its scratch tmpfs), as the caller sees it."""
    pid = envs.runtime._shards[0].worker.proc.pid
    return Path(f"/proc/{pid}/root") / path.relative_to("/")


def test_files_past_the_quota_are_removed_and_the_action_reads_an_error(envs) -> None:  # noqa: ANN001
    worker = envs.runtime._shards[0].worker
    pid = worker.proc.pid
    obs, *_ = envs.step([call("fill_scratch", kilobytes=400, name="a"), ADD])
    first = Path(json.loads(obs[0])["result"])
    assert first.parent == Path(worker.scratch) and _seen(envs, first).exists()
    obs, *_ = envs.step([call("fill_scratch", kilobytes=400, name="b"), None])
    assert json.loads(obs[0])["result"].endswith("/b")  # 800 KB: under the quota
    obs, reward, terminated, truncated, info = envs.step(
        [call("fill_scratch", kilobytes=400, name="c"), ADD])
    assert obs[0] == ("Error: the world's scratch directory grew past its quota of 1 MB; the "
                      "files in it were removed.")
    assert info["tool_outcome"][0] == QUOTA_OUTCOME and not terminated[0] and reward[0] == 0.0
    assert json.loads(obs[1])["result"] == "3 notes"  # the neighbour's call, as usual
    assert not any(_seen(envs, first.parent / n).exists() for n in "abc")
    assert envs.runtime._shards[0].worker.proc.pid == pid  # no restart: the worker lives on
    obs, *_ = envs.step([call("fill_scratch", kilobytes=400, name="d"), COUNT])
    assert json.loads(obs[0])["result"].endswith("/d")  # room again
    assert json.loads(obs[1])["result"] == "3"


def test_one_file_past_the_quota_fails_on_its_own(envs) -> None:  # noqa: ANN001
    obs, _, _, _, info = envs.step([call("fill_scratch", kilobytes=1536, name="big"), None])
    # the write stops at 1 MB (EFBIG: a 500); that part and the earlier files pass the quota
    assert info["tool_outcome"][0] in ("crash", QUOTA_OUTCOME) and obs[0].startswith("Error: ")
    scratch = _seen(envs, Path(envs.runtime._shards[0].worker.scratch))
    assert all(p.stat().st_size <= 2**20 for p in scratch.rglob("*") if p.is_file())


def test_a_tool_session_call_past_the_quota_reads_an_error(envs) -> None:  # noqa: ANN001
    runtime = envs.runtime  # the server's MCP path (a tool session in the worker)
    fill = [runtime.call_tool(1, WORLD, "fill_scratch", {"kilobytes": 700, "name": f"m{k}"})
            for k in range(2)]
    assert not fill[0][1]
    assert fill[1] == ("the world's scratch directory grew past its quota of 1 MB; the files "
                       "in it were removed.", True)
    runtime.end_tool_session(1)


def test_one_action_cannot_write_past_the_quota_in_many_small_files(envs) -> None:  # noqa: ANN001
    """Issue 31, item 3: 40 files of 256 KB (each under the 1 MB per-file cap) in one action; the
    handler removes them before it answers, so only a limit that holds during the action stops
    them. Before: all 10 MB were written."""
    if "scratch_fs" in envs.runtime.containment["missing"]:  # the kernel cannot (warned)
        pytest.skip(f"no scratch tmpfs here: {envs.runtime.containment['missing']}")
    obs, reward, terminated, truncated, info = envs.step(
        [call("fill_many", files=40, kilobytes=256), COUNT])
    written, stopped = json.loads(obs[0])["result"].split(" ", 1)
    assert int(written) <= 1024 and stopped == "OSError errno 28"  # ENOSPC, in the handler
    assert not terminated[0] and not truncated[0] and reward[0] == 0.0
    assert json.loads(obs[1])["result"] == "3"  # the neighbour, untouched
    obs, *_ = envs.step([call("fill_scratch", kilobytes=400, name="e"), None])
    assert json.loads(obs[0])["result"].endswith("/e")  # the worker and its quota go on


def test_clearing_keeps_sockets_and_truncates_the_log(tmp_path: Path) -> None:
    (tmp_path / "worker.log").write_bytes(b"x" * 4096)
    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "deep" / "er" / "blob").write_bytes(os.urandom(2**20 + 1))
    (tmp_path / "pymp").mkdir()
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(tmp_path / "pymp" / "listener"))
    try:
        quota = ScratchQuota(str(tmp_path), limit_mb=1)
        assert quota.used_bytes() > 2**20
        assert quota.exceeded()
        assert sorted(p.name for p in tmp_path.rglob("*")) == ["listener", "pymp", "worker.log"]
        assert (tmp_path / "worker.log").stat().st_size == 0
        assert not quota.exceeded()
    finally:
        listener.close()


_NO_NAMESPACE = """
import tempfile, threading, time, warnings
from awm_gym import containment
threading.Thread(target=time.sleep, args=(30,), daemon=True).start()  # unshare needs one thread
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    report = containment.contain_this_process(containment.ContainmentPolicy(
        scratch_dir=tempfile.mkdtemp(), memory_mb=None, scratch_fs_mb=1))
print(report.missing.get("scratch_fs", "-"))
print(any("scratch_fs is not active" in str(w.message) for w in caught))
"""


def test_where_the_worker_cannot_have_its_tmpfs_it_says_so_loudly(tmp_path: Path) -> None:
    """No silent fallback (issue 31, item 3): the layer is reported missing, with why, and a
    RuntimeWarning names it; the quota is then checked after each action only."""
    import subprocess

    repo = str(Path(__file__).resolve().parents[3])
    run = subprocess.run([sys.executable, "-c", _NO_NAMESPACE], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path, env={**os.environ, "PYTHONPATH": repo})
    assert run.returncode == 0, run.stderr[-2000:]
    why, warned = run.stdout.splitlines()
    assert "more than one thread" in why and "after each action only" in why
    assert warned == "True"
