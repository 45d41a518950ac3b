"""The clock on real generated code (the wild set's ``clock_lab`` and ``broken_shop``).

Deterministic per episode and moving: an instance's clock starts at its world's base time on
reset and advances one step before each tool call; every path to "now" reads it (SQLite
keywords and functions, a ``DEFAULT CURRENT_TIMESTAMP`` column filled by an ORM or a raw
INSERT, ``func.now()``, ``datetime``, ``date``, ``time``). Same actions -> same bytes, on any day.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import pytest

import awm_gym
from awm_gym.manager.check import check_world

WILD = str(Path(__file__).resolve().parents[2] / "fixtures" / "worlds" / "wild")
REPO = Path(__file__).resolve().parents[3]
BASE = "2026-03-12 18:00:00"  # latest seed created_at (17:45) rounded up to the hour
BASE_EPOCH = 1773338400


def _call(tool: str, **arguments: object) -> str:
    return f'<tool_call>{json.dumps({"name": tool, "arguments": arguments})}</tool_call>'


@pytest.fixture(scope="module", autouse=True)
def _registered() -> None:
    awm_gym.register_worlds(WILD)


@pytest.fixture
def clock_env():
    env = gym.make("AWM/clock_lab-v0", isolation="none")
    env.reset(seed=0, options={"task_idx": 0})
    yield env
    env.close()


def _step(env, tool: str, **arguments: object) -> dict:
    obs, *_ = env.step(_call(tool, **arguments))
    return json.loads(obs)


def test_the_base_time_comes_from_the_seed_rows(clock_env) -> None:
    assert clock_env.unwrapped.runtime.prepared("clock_lab").base_time == BASE
    db = clock_env.unwrapped.runtime.database(0)
    rows = db.execute("SELECT code, created_at FROM messages ORDER BY id").fetchall()
    assert rows == [("MSG-1", "2026-03-02 09:00:00"), ("MSG-2", "2026-03-12 17:45:00"),
                    ("MSG-3", "2026-03-11 18:00:00"),  # datetime('now', '-1 day') at build
                    ("MSG-4", BASE)]  # filled by DEFAULT CURRENT_TIMESTAMP at build


def test_every_path_to_now_reads_the_episode_clock(clock_env) -> None:
    t = _step(clock_env, "server_time")
    now, iso = "2026-03-12 18:00:01", "2026-03-12T18:00:01"
    assert (t["sql_current_timestamp"], t["sql_func_now"], t["sql_datetime_now"]) == (now,) * 3
    assert (t["sql_current_date"], t["sql_current_time"]) == ("2026-03-12", "18:00:01")
    assert t["sql_strftime"] == str(BASE_EPOCH + 1) and t["sql_unixepoch"] == BASE_EPOCH + 1
    assert t["sql_julianday"] == pytest.approx(2440587.5 + (BASE_EPOCH + 1) / 86400)
    assert (t["py_now"], t["py_utcnow"], t["py_today"]) == (iso,) * 3
    assert t["date_today"] == "2026-03-12" and t["time_time"] == BASE_EPOCH + 1
    assert _step(clock_env, "server_time")["sql_current_timestamp"] == "2026-03-12 18:00:02"


def test_ids_built_from_the_clock_differ_within_an_episode(clock_env) -> None:
    first = _step(clock_env, "send_message", body="hello")
    second = _step(clock_env, "send_message", body="again")
    assert first["code"] == f"MSG-{(BASE_EPOCH + 1) * 1000}"
    assert second["code"] == f"MSG-{(BASE_EPOCH + 2) * 1000}"
    # the column default (CURRENT_TIMESTAMP) and datetime.utcnow() agree, written at run time
    assert (first["created_at"], first["sent_at"]) == ("2026-03-12 18:00:01", "2026-03-12T18:00:01")
    _, reward, terminated, _, info = clock_env.step("Sent both.")
    assert terminated and reward == 1.0, info


def test_raw_sql_and_func_now_writes_read_the_clock(clock_env) -> None:
    assert _step(clock_env, "log_event", kind="logout")["at"] == "2026-03-12 18:00:01"
    assert _step(clock_env, "touch_event", event_id=1)["at"] == "2026-03-12 18:00:02"


def test_reset_restarts_the_clock(clock_env) -> None:
    _step(clock_env, "server_time")
    _step(clock_env, "server_time")
    clock_env.reset(seed=1, options={"task_idx": 0})
    assert _step(clock_env, "send_message", body="x")["code"] == f"MSG-{(BASE_EPOCH + 1) * 1000}"


def test_history_queries_see_the_seed_rows_as_recent(clock_env) -> None:
    result = _step(clock_env, "recent_messages", days=7)
    assert [m["code"] for m in result["messages"]] == ["MSG-2", "MSG-3", "MSG-4"]


def test_orm_insert_into_a_default_current_timestamp_column() -> None:
    env = gym.make("AWM/broken_shop-v0", isolation="none")
    env.reset(seed=0, options={"task_idx": 0})
    order = _step(env, "place_order", product_id=3, quantity=2)
    assert order["created_at"] == "2026-01-01T12:00:01"  # the default base: seed data is older
    env.close()


def test_instances_interleaved_in_one_process_keep_their_own_clocks() -> None:
    envs = gym.make_vec("AWM/mix-v0", num_envs=3, world_set=WILD, isolation="none",
                        worlds=["clock_lab", "broken_shop"])
    try:
        envs.reset(seed=0, options={"world": ["clock_lab", "clock_lab", "broken_shop"]})
        for _ in range(3):
            envs.step([_call("server_time"), None, _call("list_products")])
        obs, *_ = envs.step([_call("server_time"), _call("server_time"),
                             _call("place_order", product_id=1, quantity=1)])
        assert json.loads(obs[0])["py_now"] == "2026-03-12T18:00:04"
        assert json.loads(obs[1])["py_now"] == "2026-03-12T18:00:01"
        assert json.loads(obs[2])["created_at"] == "2026-01-01T12:00:04"
    finally:
        envs.close()


def test_an_explicit_clock_and_step_override_the_defaults() -> None:
    env = gym.make("AWM/clock_lab-v0", isolation="none", clock="2030-06-01 08:00:00",
                   clock_step_s=60)
    env.reset(seed=0, options={"task_idx": 0})
    assert _step(env, "server_time")["py_now"] == "2030-06-01T08:01:00"
    env.close()
    frozen = gym.make("AWM/clock_lab-v0", isolation="none", clock_step_s=0)  # the old frozen clock
    frozen.reset(seed=0, options={"task_idx": 0})
    _step(frozen, "send_message", body="one")
    obs, *_ = frozen.step(_call("send_message", body="two"))
    assert obs == "Error: Error calling send_message. Status code: 500. Response: Internal Server Error"
    frozen.close()


def test_check_proves_the_clock_tasks() -> None:
    [report] = check_world(WILD, ["clock_lab"])
    assert report.ok and report.tasks_proved == 2, report.summary()


EPISODE = """
import hashlib, json, sys
import gymnasium as gym
import awm_gym
awm_gym.register_worlds(sys.argv[1])
out = {}
for world, calls in (("clock_lab", [("send_message", {"body": "a"}), ("log_event", {"kind": "k"}),
                                    ("touch_event", {"event_id": 1}), ("server_time", {}),
                                    ("send_message", {"body": "b"})]),
                     ("broken_shop", [("place_order", {"product_id": 3, "quantity": 2}),
                                      ("list_orders", {})])):
    env = gym.make(f"AWM/{world}-v0", isolation="none")
    obs, _ = env.reset(seed=0)
    seen = [obs]
    for tool, args in calls:
        obs, *_ = env.step("<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>")
        seen.append(obs)
    data = env.unwrapped.runtime.snapshot(0)
    out[world] = {"observations": seen, "db_sha256": hashlib.sha256(data).hexdigest()}
    env.close()
print(json.dumps(out))
"""


def _run_episode(cache: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO), AWM_GYM_CACHE=str(cache))
    done = subprocess.run([sys.executable, "-c", EPISODE, WILD], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_same_actions_give_byte_identical_databases_and_observations_across_processes(
        tmp_path: Path) -> None:
    first = _run_episode(tmp_path / "cache_a")
    time.sleep(1.2)  # a wall-clock second later, in a fresh process with a fresh template build
    second = _run_episode(tmp_path / "cache_b")
    assert first == second
    wall = time.strftime("%Y-%m-%d", time.gmtime())
    assert wall not in json.dumps(first)  # nothing read the wall clock
    assert "MSG-1773338405000" in first["clock_lab"]["observations"][5]
