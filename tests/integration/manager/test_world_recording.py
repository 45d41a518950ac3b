"""record_dataset and transcripts on real worlds: schema, round trips, append, atomicity, HTML."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import datasets
import pytest

from agents.policies import OraclePolicy, RandomPolicy
from awm_gym import World
from awm_gym.cli import main as awm_main
from awm_gym.errors import EnvUsageError
from awm_gym.manager.episode import DEFAULT_INFO_KEYS
from awm_gym.manager.recording import (
    META_FILE,
    RecordingMeta,
    default_datasets_dir,
    load_episodes,
    record,
)

REPO_ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture()
def spotify_world(spotify_id: str) -> Any:
    world = World(spotify_id, num_envs=4, verbose=0, max_episode_steps=12)
    world.set_policy(OraclePolicy())
    yield world
    world.close()


def transcripts(paths: list[Path]) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in paths if p.name != "index.html"}


def test_record_load_round_trip_is_byte_identical(spotify_world: World, tmp_path: Path) -> None:
    live = spotify_world.render_transcripts(tmp_path / "live", max_episodes=10, seed=7)
    path = spotify_world.record_dataset("oracle", episodes=10, seed=7, cache_dir=tmp_path)
    recorded = spotify_world.render_transcripts(tmp_path / "recorded", dataset_name="oracle",
                                                cache_dir=tmp_path, max_episodes=10)
    assert len(transcripts(live)) == 10
    assert transcripts(live) == transcripts(recorded)
    # the episodes read back equal the ones a live run produces
    episodes = load_episodes(path)
    again = sorted(spotify_world.run_episodes(10, 7, capture_db_diff=True,
                                              info_keys=DEFAULT_INFO_KEYS),
                   key=lambda e: e.episode_idx)
    assert [e.turns for e in episodes] == [e.turns for e in again]
    assert [e.db_diff for e in episodes] == [e.db_diff for e in again]


def test_record_writes_any_iterable_of_episodes_under_its_lock(spotify_world: World,
                                                              tmp_path: Path) -> None:
    """``record`` takes episodes and metadata, not a World: a dataset read back and recorded
    again is the same dataset, and the stream is drawn only once the writer holds the lock."""
    source = spotify_world.record_dataset("source", episodes=5, seed=2, cache_dir=tmp_path)
    episodes = load_episodes(source)
    drawn_under_lock = []

    def stream() -> Any:
        drawn_under_lock.append((tmp_path / ".copy.lock").exists())
        yield from load_episodes(source)

    meta = RecordingMeta(env="AWM/spotify-v0", policy="oracle", seed=2, options={"task_idx": 1})
    copy = record(stream(), tmp_path / "copy", meta)
    assert drawn_under_lock == [True]
    again = load_episodes(copy)
    assert [(e.episode_idx, e.seed, e.task, e.turns, e.db_diff) for e in again] == \
        [(e.episode_idx, e.seed, e.task, e.turns, e.db_diff) for e in episodes]
    [recording] = json.loads((copy / META_FILE).read_text())["recordings"]
    assert {k: recording[k] for k in ("env", "policy", "seed", "episodes", "first_episode",
                                      "options")} == {
        "env": "AWM/spotify-v0", "policy": "oracle", "seed": 2, "episodes": 5,
        "first_episode": 0, "options": {"task_idx": 1}}


def test_dataset_schema_and_load_dataset(spotify_world: World, tmp_path: Path) -> None:
    path = spotify_world.record_dataset("schema", episodes=6, seed=0, cache_dir=tmp_path,
                                        info_keys=["tool_outcome", "step"])
    ds = datasets.load_dataset(str(path), split="train")
    meta = json.loads((path / META_FILE).read_text())
    assert ds.num_rows == meta["rows"] and meta["episodes"] == 6
    assert ds.features["observation"] == datasets.Value("large_string")
    assert ds.features["step"] == datasets.Value("int32")
    for column in ("episode_idx", "step_idx", "episode_len", "world", "task_idx", "seed",
                   "policy", "observation", "action", "reward", "terminated", "truncated",
                   "verifier_label", "tool_outcome", "db_diff", "episode_success"):
        assert column in ds.column_names, column
    rows = ds.to_list()
    by_episode: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        by_episode.setdefault(row["episode_idx"], []).append(row)
    assert sorted(by_episode) == list(range(6))
    for k, ep_rows in by_episode.items():
        ep_rows.sort(key=lambda r: r["step_idx"])
        assert [r["step_idx"] for r in ep_rows] == list(range(len(ep_rows)))
        assert {r["episode_len"] for r in ep_rows} == {len(ep_rows)}
        assert {r["seed"] for r in ep_rows} == {k} and {r["policy"] for r in ep_rows} == {"oracle"}
        first, last = ep_rows[0], ep_rows[-1]
        tasks = spotify_world.runtime.world_set[first["world"]].tasks
        assert first["observation"] == tasks[first["task_idx"]]  # row 0 shows the task
        assert last["action"] is None and last["reward"] is None and last["db_diff"] is not None
        assert all(r["db_diff"] is None for r in ep_rows[:-1])
        assert ep_rows[-2]["verifier_label"] == "complete" and ep_rows[-2]["reward"] == 1.0
        assert ep_rows[-2]["terminated"] and last["episode_success"]


def test_append_continues_numbering_and_checks_the_schema(spotify_world: World,
                                                          tmp_path: Path) -> None:
    spotify_world.record_dataset("grow", episodes=3, seed=0, cache_dir=tmp_path)
    with pytest.raises(EnvUsageError, match="already exists; pass mode='append'"):
        spotify_world.record_dataset("grow", episodes=1, seed=0, cache_dir=tmp_path)
    spotify_world.set_policy(RandomPolicy(seed=1))
    path = spotify_world.record_dataset("grow", episodes=4, seed=100, cache_dir=tmp_path,
                                        mode="append")
    ds = datasets.load_dataset(str(path), split="train")
    episodes = sorted(set(ds["episode_idx"]))
    assert episodes == list(range(7))
    policies = {row["episode_idx"]: row["policy"] for row in ds.to_list()}
    assert [policies[k] for k in episodes] == ["oracle"] * 3 + ["random"] * 4
    seeds = {row["episode_idx"]: row["seed"] for row in ds.to_list()}
    assert [seeds[k] for k in episodes] == [0, 1, 2, 100, 101, 102, 103]
    meta = json.loads((path / META_FILE).read_text())
    assert meta["episodes"] == 7 and len(meta["recordings"]) == 2
    with pytest.raises(EnvUsageError, match="Cannot append .* info_keys"):
        spotify_world.record_dataset("grow", episodes=1, seed=0, cache_dir=tmp_path,
                                     mode="append", info_keys=["step"])
    path = spotify_world.record_dataset("grow", episodes=2, seed=0, cache_dir=tmp_path,
                                        mode="overwrite")
    assert json.loads((path / META_FILE).read_text())["episodes"] == 2


class InterruptingPolicy(OraclePolicy):
    """The oracle, until Ctrl-C arrives after ``after`` calls."""

    def __init__(self, after: int) -> None:
        super().__init__()
        self.after = after

    def get_action(self, infos: dict[str, Any]) -> Any:
        self.after -= 1
        if self.after < 0:
            raise KeyboardInterrupt
        return super().get_action(infos)


def test_interrupted_recording_leaves_no_partial_dataset(spotify_id: str, tmp_path: Path
                                                         ) -> None:
    world = World(spotify_id, num_envs=2, verbose=0)
    try:
        world.set_policy(InterruptingPolicy(after=12))
        with pytest.raises(KeyboardInterrupt):
            world.record_dataset("partial", episodes=20, seed=0, cache_dir=tmp_path)
        assert os.listdir(tmp_path) == []  # neither a dataset nor a temporary directory
        world.set_policy(OraclePolicy())
        path = world.record_dataset("partial", episodes=3, seed=0, cache_dir=tmp_path)
        before = {p.name: p.read_bytes() for p in (path / "data").iterdir()}
        world.set_policy(InterruptingPolicy(after=5))
        with pytest.raises(KeyboardInterrupt):
            world.record_dataset("partial", episodes=20, seed=50, cache_dir=tmp_path,
                                 mode="append")
        assert sorted(os.listdir(tmp_path)) == ["partial"]
        assert {p.name: p.read_bytes() for p in (path / "data").iterdir()} == before
        assert json.loads((path / META_FILE).read_text())["episodes"] == 3
    finally:
        world.close()


def test_killed_recording_leaves_no_partial_dataset(tmp_path: Path) -> None:
    """A process killed mid-recording leaves only a temporary directory, cleaned up next time."""
    script = textwrap.dedent(f"""
        import os
        from awm_gym import World
        from agents.policies import OraclePolicy

        class Dying(OraclePolicy):
            calls = 0
            def get_action(self, infos):
                Dying.calls += 1
                if Dying.calls == 15:
                    os._exit(9)
                return super().get_action(infos)

        world = World("AWM/spotify-v0", num_envs=2, verbose=0)
        world.set_policy(Dying())
        world.record_dataset("killed", episodes=50, seed=0, cache_dir={str(tmp_path)!r})
    """)
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 9, result.stderr
    leftovers = os.listdir(tmp_path)
    assert "killed" not in leftovers  # a killed writer leaves its lock file and temporary dir
    assert all(n.startswith(".killed.tmp-") or n == ".killed.lock" for n in leftovers)
    world = World("AWM/spotify-v0", num_envs=2, verbose=0)
    world.set_policy(OraclePolicy())
    try:
        world.record_dataset("killed", episodes=2, seed=0, cache_dir=tmp_path)
    finally:
        world.close()
    assert os.listdir(tmp_path) == ["killed"]


def test_default_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    monkeypatch.setenv("AWM_GYM_DATASETS", str(tmp_path / "mine"))
    assert default_datasets_dir() == tmp_path / "mine"
    monkeypatch.delenv("AWM_GYM_DATASETS")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_datasets_dir() == tmp_path / "xdg" / "awm_gym" / "datasets"


class TextCollector(HTMLParser):
    """Collect text per tag and check that every opened element is closed in order."""

    VOID = {"meta", "br", "img", "hr", "input", "link"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.text: list[str] = []
        self.tags: dict[str, int] = {}
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "a":
            self.links.append(dict(attrs)["href"] or "")
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(path: Path) -> TextCollector:
    parser = TextCollector()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    assert parser.stack == []
    return parser


def test_html_transcript_content(spotify_world: World, tmp_path: Path) -> None:
    files = spotify_world.render_transcripts(tmp_path, max_episodes=2, seed=0,
                                             options={"task_idx": [1, 0]})
    assert [f.name for f in files] == ["episode_000000.html", "episode_000001.html", "index.html"]
    world_set = spotify_world.runtime.world_set
    like = parse(files[0])
    text = " ".join(like.text)
    assert world_set["spotify"].tasks[1] in text  # the task
    assert "search_tracks" in text and "like_track" in text  # the calls made
    assert '"track_id": 21' in text  # with their arguments
    assert "Paper Lanterns" in text  # the tool responses
    assert "verifier: complete" in text and "reward +1.00" in text
    assert "Database changes" in text and "liked_tracks" in text and "added" in text
    assert like.tags.get("table", 0) >= 1 and like.tags.get("style") == 1
    assert "script" not in like.tags  # self-contained and inert
    query = " ".join(parse(files[1]).text)
    assert "No rows changed." in query
    index = parse(files[2])
    assert index.links == ["episode_000000.html", "episode_000001.html"]


def test_html_escapes_agent_text(spotify_id: str, tmp_path: Path) -> None:
    class Hostile(OraclePolicy):
        def get_action(self, infos: dict[str, Any]) -> Any:
            return ["<script>alert(1)</script>" if a else None for a in infos["active"]]

    world = World(spotify_id, num_envs=1, verbose=0)
    world.set_policy(Hostile())
    try:
        files = world.render_transcripts(tmp_path, max_episodes=1)
    finally:
        world.close()
    page = parse(files[0])
    assert "script" not in page.tags
    assert "<script>alert(1)</script>" in " ".join(page.text)


def test_cli_record_and_render(spotify_id: str, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    assert awm_main(["record", spotify_id, "cli", "--episodes", "3", "--num-envs", "2",
                     "--cache-dir", str(tmp_path), "--quiet"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "cli")
    assert awm_main(["render", str(tmp_path / "html"), "--dataset", "cli", "--cache-dir",
                     str(tmp_path), "--episode", "2"]) == 0
    assert sorted(os.listdir(tmp_path / "html")) == ["episode_000002.html", "index.html"]
    capsys.readouterr()
    assert awm_main(["render", str(tmp_path / "html"), "--dataset", "cli", "--cache-dir",
                     str(tmp_path), "--episode", "7"]) == 2  # one line, no traceback
    err = capsys.readouterr().err
    assert err.startswith("awm render: error: ") and re.search(r"episode_idx \[7\] not in", err)
    assert err.count("\n") == 1
