"""The wild world set (tests/fixtures/make_wild_worlds.py): one bad world never stops a set.

``broken_shop`` has a broken table that another references, failed inserts and a failing index;
AWM builds it and so must we. ``dead_code`` cannot be prepared (its code raises at import):
registration, ``awm list``, ``awm check`` and ``AWM/mix-v0`` carry on with the others.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import pytest

import awm_gym
from awm_gym import EnvConfig, WorldLoadError, WorldSkippedWarning
from awm_gym.envs import get_prepared_world
from awm_gym.manager.check import check_world

WILD = str(Path(__file__).resolve().parents[2] / "fixtures" / "worlds" / "wild")
REPO = Path(__file__).resolve().parents[3]


def _call(tool: str, arguments: str = "{}") -> str:
    return f'<tool_call>{{"name": "{tool}", "arguments": {arguments}}}</tool_call>'


def test_the_broken_shop_builds_what_awm_builds() -> None:
    ws = awm_gym.get_world_set(WILD)
    assert ws.problems == ()
    prepared = get_prepared_world(ws["broken_shop"], EnvConfig())
    report = prepared.report
    assert (report.tables_total, report.tables_failed) == (4, 2)
    assert (report.inserts_total, report.inserts_failed) == (13, 7)
    failed = {(t, i): e for t, i, e in report.failures}
    assert failed[("categories", -1)] == 'OperationalError: near ",": syntax error'
    assert failed[("orders", -1)].startswith("index 1 (CREATE INDEX idx_orders_missing")
    assert failed[("product_categories", 0)] == "OperationalError: no such table: main.categories"
    assert "syntax error" in failed[("products", 5)]
    assert failed[("products", 6)].startswith("IntegrityError: UNIQUE")
    db = sqlite3.connect(":memory:")
    db.deserialize(prepared.template)
    assert db.execute("SELECT id FROM products ORDER BY id").fetchall() == [(i,) for i in range(1, 6)]
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "categories" not in tables and {"orders", "product_categories"} <= tables


def test_its_tools_serve() -> None:
    env = gym.make("AWM/broken_shop-v0") if "AWM/broken_shop-v0" in gym.registry else None
    if env is None:
        awm_gym.register_worlds(WILD)
        env = gym.make("AWM/broken_shop-v0")
    env.reset(seed=0, options={"task_idx": 0})
    obs, *_ = env.step(_call("list_products"))
    assert '"total": 5' in obs
    obs, *_ = env.step(_call("place_order", '{"product_id": 3, "quantity": 2}'))
    assert '"quantity": 2' in obs
    _, reward, terminated, _, info = env.step("Ordered.")
    assert terminated and reward == 1.0 and info["verifier_label"] == "complete"
    env.close()


def test_every_world_registers_even_one_that_cannot_be_prepared() -> None:
    ids = awm_gym.register_worlds(WILD)
    assert ids == ["AWM/broken_shop-v0", "AWM/clock_lab-v0", "AWM/dead_code-v0"]
    with pytest.raises(WorldLoadError, match=r"World 'dead_code'.*NameError.*load_settings"):
        gym.make("AWM/dead_code-v0")


def test_mix_warns_skips_the_bad_world_and_runs_the_others() -> None:
    with pytest.warns(WorldSkippedWarning, match=r"Leaving world 'dead_code' out.*NameError"):
        envs = gym.make_vec("AWM/mix-v0", num_envs=4, world_set=WILD)
    try:
        assert envs.runtime.worlds == ("broken_shop", "clock_lab")
        _, info = envs.reset(seed=0, options={"world": ["broken_shop", "clock_lab"] * 2})
        assert list(info["world"]) == ["broken_shop", "clock_lab"] * 2
        obs, *_ = envs.step([_call("list_products"), _call("server_time"), None, None])
        assert '"total": 5' in obs[0] and "sql_current_timestamp" in obs[1]
    finally:
        envs.close()


@pytest.mark.parametrize("num_workers", [0, 1])
def test_mix_with_strict_raises_the_world_error(num_workers: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", WorldSkippedWarning)
        with pytest.raises(WorldLoadError, match="'dead_code'"):
            gym.make_vec("AWM/mix-v0", num_envs=2, world_set=WILD, strict=True,
                         num_workers=num_workers)


def test_mix_over_worker_processes_skips_it_too() -> None:
    with pytest.warns(WorldSkippedWarning, match=r"Leaving world 'dead_code' out.*NameError"):
        envs = gym.make_vec("AWM/mix-v0", num_envs=2, world_set=WILD, num_workers=1)
    try:
        assert envs.runtime.worlds == ("broken_shop", "clock_lab")
        _, info = envs.reset(seed=0, options={"world": ["clock_lab", "broken_shop"]})
        obs, *_ = envs.step([_call("server_time"), _call("list_products")])
        assert "py_now" in obs[0] and '"total": 5' in obs[1]
    finally:
        envs.close()


def test_check_reports_each_world_and_goes_on() -> None:
    reports = {r.world: r for r in check_world(WILD, ["dead_code", "broken_shop"])}
    assert "NameError" in reports["dead_code"].load_error
    shop = reports["broken_shop"]
    assert shop.load_error is None and shop.tasks_proved == 2
    assert (shop.tables_failed, shop.inserts_failed) == (2, 7)


def test_cli_list_and_check_carry_on() -> None:
    cmd = [sys.executable, "-m", "awm_gym.cli"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    listed = subprocess.run([*cmd, "list", WILD], capture_output=True, text=True, env=env,
                            timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert [line.split("\t")[0] for line in listed.stdout.splitlines()] == [
        "AWM/broken_shop-v0", "AWM/clock_lab-v0", "AWM/dead_code-v0", "AWM/mix-v0"]
    checked = subprocess.run([*cmd, "check", WILD, "--world", "dead_code", "--world",
                              "broken_shop"], capture_output=True, text=True, env=env, timeout=300)
    assert checked.returncode == 2, checked.stderr  # dead_code cannot load: an error
    assert "dead_code: ERROR" in checked.stdout and "broken_shop: DEFECT | tasks proved 2/2" in (
        checked.stdout)
    assert "2 worlds: 0 ok, 1 with defects, 1 with errors" in checked.stdout
