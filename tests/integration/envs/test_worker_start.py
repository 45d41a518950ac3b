"""A shard worker's start and its list_tools replies (issue 33): a worker reads the world set's
index and hashes from its caller's cache and parses no world at start; a list_tools step sends
each catalogue as a reference the caller resolves, byte-identical to the in-process text; a step
reports progress before world code only."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from awm_gym.containment import scrubbed_environment
from awm_gym.envs import shards, wire
from awm_gym.envs.config import EnvConfig
from awm_gym.envs.process_shard import ProcessShard
from awm_gym.envs.registration import get_world_set
from awm_gym.envs.runtime import WorldRuntime
from awm_gym.envs.vector_env import AWMVectorEnv
from awm_gym.worlds.template_db import default_cache_dir

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX pipes")

LIST_TOOLS = '<tool_call>{"name": "list_tools", "arguments": {}}</tool_call>'
REPO = str(Path(__file__).resolve().parents[3])

# a worker's init in a process started as a worker is (python -I, scrubbed environment: its
# default cache is its empty scratch directory), counting the worlds whose rows it parses
_INIT_SCRIPT = f"""
import json, sys
sys.path.insert(0, {REPO!r})
from awm_gym.worlds.world_set import WorldSet
parsed = []
_parse = WorldSet._parse
def counting(self, key):
    parsed.append(key)
    return _parse(self, key)
WorldSet._parse = counting
from awm_gym.envs.config import EnvConfig
from awm_gym.envs.shard_worker import ShardWorker
root, worlds, cache, warm = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
worker = ShardWorker()
status, reply = worker.handle(("init", root, worlds, EnvConfig(cache_dir=cache), False, None,
                               True, warm, 2))
print(json.dumps([status, sorted(parsed), reply[1] if status == "ok" else str(reply)]))
worker.close()
"""


@pytest.fixture()
def warm_tiny(copy_world_set, tiny_path: str, tmp_path: Path) -> tuple[str, list[str]]:  # noqa: ANN001
    """A copy of the tiny world set whose worlds this process prepared once (templates,
    catalogues, content hashes and import probes in the session's cache)."""
    root = str(copy_world_set(tiny_path, tmp_path / "worlds"))
    envs = AWMVectorEnv(num_envs=3, world_set=root, isolation="none", num_workers=0)
    try:
        return root, list(envs.runtime.worlds)
    finally:
        envs.close()


def _worker_init(root: str, worlds: list[str], warm: dict[str, str], scratch: Path) -> list:
    script = scratch / "init.py"
    script.write_text(_INIT_SCRIPT)
    done = subprocess.run(
        [sys.executable, "-I", str(script), root, json.dumps(worlds), str(default_cache_dir()),
         json.dumps(warm)], capture_output=True, text=True, timeout=240,
        env=scrubbed_environment(str(scratch)), check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_worker_reads_the_callers_cache_and_parses_no_world(warm_tiny, tmp_path: Path) -> None:  # noqa: ANN001
    root, worlds = warm_tiny
    # before issue 33 the scrubbed worker indexed the set in its scratch directory and parsed
    # every world to learn its content hash (13.9 s of 15 s for 1,000 worlds)
    status, parsed, started = _worker_init(root, worlds, {}, tmp_path)
    assert (status, parsed, started) == ("ok", [], worlds)
    hashes = {w: get_world_set(root).content_hash(w) for w in worlds}
    status, parsed, started = _worker_init(root, worlds, hashes, tmp_path)  # what shards send
    assert (status, parsed, started) == ("ok", [], worlds)


class _RecordingShard(ProcessShard):
    """A real worker whose step replies are kept as decoded, before the caller resolves them."""

    seen: list = []

    def reply(self, deadline, on_progress=None):  # noqa: ANN001, ANN201
        payload = super().reply(deadline, on_progress)
        if self._kind == "step":
            _RecordingShard.seen.extend(payload)
        return payload


@pytest.mark.parametrize("contained", [False, True], ids=["trusted", "contained"])
def test_list_tools_over_workers_is_the_in_process_text_sent_as_references(
        monkeypatch, copy_world_set, tmp_path: Path, contained: bool) -> None:  # noqa: ANN001
    from awm_gym.envs.registration import BUILTIN_WORLDS_DIR

    # the built-in worlds run trusted; a copy of them elsewhere is contained
    root = str(copy_world_set(BUILTIN_WORLDS_DIR, tmp_path / "worlds")) if contained else None
    texts = []
    for workers in (0, 2):
        if workers:
            monkeypatch.setitem(shards._SHARD_BACKENDS, "local",
                                lambda config, n: _RecordingShard)
        envs = AWMVectorEnv(num_envs=16, world_set=root, num_workers=workers)
        try:
            envs.reset(seed=list(range(16)))
            obs, *_, info = envs.step([LIST_TOOLS] * 16)
            assert (info["action_kind"] == "list_tools").all()
            assert len(set(info["world"].tolist())) > 1
            texts.append(obs)
            if workers:
                assert isinstance(envs.runtime, shards.ShardedRuntime)
                assert (envs.runtime.containment is not None) == contained
                assert obs == tuple(envs.tools_text(i) for i in range(16))
        finally:
            envs.close()
    assert texts[0] == texts[1] and all(t.startswith("Available MCP Tools") for t in texts[0])
    refs = [o.observation for o in _RecordingShard.seen]
    assert len(refs) == 16 and all(isinstance(r, wire.CatalogueRef) for r in refs)
    _RecordingShard.seen.clear()


def test_a_step_reports_progress_before_world_code_only(tiny_set, tiny_ids) -> None:  # noqa: ANN001
    runtime = WorldRuntime(tiny_set, ["notes_app"], 3, EnvConfig(max_episode_steps=10))
    try:
        runtime.reset([0, 1, 2], [0, 1, 2], [None] * 3, [None] * 3)
        reported: list[int] = []
        call = '<tool_call>{"name": "list_notebooks", "arguments": {}}</tool_call>'
        unknown = '<tool_call>{"name": "no_such_tool", "arguments": {}}</tool_call>'
        runtime.step([0, 1, 2], [LIST_TOOLS, call, unknown], before_each=reported.append)
        # a frame per tool call (the loading of the world's code first), none for list_tools
        assert [p for p in reported if p >= 0] == [1]
        reported.clear()
        runtime.step([0, 1], [LIST_TOOLS, LIST_TOOLS], before_each=reported.append)
        assert reported == []
    finally:
        runtime.close()

