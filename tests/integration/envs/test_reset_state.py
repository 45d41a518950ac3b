"""A reset restores the whole connection of an instance, not only its ``main`` database (issue
42, class 5): a handler that leaves a TEMP trigger, a TEMP table shadowing a world table, an
ATTACHed database, a changed PRAGMA or an SQL function of its own on the connection reaches no
later episode of that instance. Judged through the public API: an honest episode of task 0
(add a note "hello", then answer) after a tampering episode on the same instance scores
``complete``, as on a fresh instance, and the connection reads as a fresh one. The world is
tests/fixtures/make_hostile_world.py with the handlers below added."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import gymnasium as gym
import pytest

import awm_gym  # noqa: F401 - registers AWM/mix-v0

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fixtures"))
from make_hostile_world import rows  # noqa: E402

HANDLERS = textwrap.dedent('''

    TAMPER = {
        "trigger": ["CREATE TEMP TRIGGER tamper AFTER INSERT ON main.notes BEGIN "
                    "UPDATE notes SET body = 'tampered' WHERE id = NEW.id; END"],
        "shadow": ["CREATE TEMP TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"],
        "view": ["CREATE TEMP VIEW tamper_view AS SELECT 1"],
        "attach": ["ATTACH DATABASE ':memory:' AS tamper_db"],
        "query_only": ["PRAGMA query_only = ON"],
        "pragmas": ["PRAGMA foreign_keys = ON", "PRAGMA recursive_triggers = ON"],
    }


    @app.post("/tamper", operation_id="tamper_connection", response_model=Reply)
    def tamper_connection(kind: str = Query(..., description="What to leave behind")):
        from sqlalchemy import text
        session = SessionLocal()
        if kind == "function":
            raw = session.connection().connection.dbapi_connection
            raw.create_function("upper", 1, lambda value: "tampered")
        for statement in TAMPER.get(kind, ()):
            session.execute(text(statement))
        session.commit()
        session.close()
        return Reply(result=kind)


    @app.get("/state", operation_id="connection_state", response_model=Reply)
    def connection_state():
        from sqlalchemy import text
        session = SessionLocal()
        state = {
            "temp": session.execute(text("SELECT count(*) FROM temp.sqlite_master")).scalar(),
            "databases": sorted(r[1] for r in session.execute(text("PRAGMA database_list"))),
            "upper": session.execute(text("SELECT upper('a')")).scalar(),
        }
        for pragma in ("foreign_keys", "recursive_triggers", "query_only"):
            state[pragma] = session.execute(text(f"PRAGMA {pragma}")).scalar()
        session.close()
        return Reply(result=json.dumps(state, sort_keys=True))
''')

KINDS = ["trigger", "shadow", "view", "attach", "query_only", "pragmas", "function"]


def call(tool: str, **arguments: object) -> str:
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


@pytest.fixture(scope="module")
def world_set(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("reset_state")
    files = rows()
    files["gen_envs.jsonl"][0]["full_code"] = (
        "import json\n" + files["gen_envs.jsonl"][0]["full_code"] + HANDLERS)
    for name, items in files.items():
        (root / name).write_text("".join(json.dumps(r) + "\n" for r in items))
    return str(root)


def _honest_episode(envs) -> tuple[str, dict]:  # noqa: ANN001
    """Task 0 on instance 0, solved: its label, and the connection's state after its write."""
    envs.reset(seed=[0], options={"task_idx": [0]})
    envs.step([call("add_note", body="hello")])
    obs, *_ = envs.step([call("connection_state")])
    state = json.loads(json.loads(obs[0])["result"])
    _, _, terminated, _, info = envs.step(["Done."])
    assert terminated[0]
    return str(info["verifier_label"][0]), state


@pytest.mark.parametrize("isolation", ["process", "none"])
def test_what_an_episode_leaves_on_its_connection_reaches_no_later_episode(
        world_set: str, isolation: str) -> None:
    envs = gym.make_vec("AWM/mix-v0", num_envs=1, world_set=world_set, isolation=isolation,
                        max_episode_steps=100)
    try:
        fresh = _honest_episode(envs)
        assert fresh[0] == "complete"
        after = {}
        for kind in KINDS:
            envs.reset(seed=[0], options={"task_idx": [0]})
            obs, *_ = envs.step([call("tamper_connection", kind=kind)])
            assert json.loads(obs[0])["result"] == kind  # the handler did leave it
            envs.step(["Done."])  # that episode ends; the instance is reset for the next
            after[kind] = _honest_episode(envs)
        # before: trigger, shadow and query_only scored "others" (and the state differed for
        # every kind): deserialize replaced only the main database
        assert after == {kind: fresh for kind in KINDS}
    finally:
        envs.close()
