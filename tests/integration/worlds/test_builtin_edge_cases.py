"""Built-in worlds answer their own edge cases (issue 17, item 6), within AWM's rules for
generated code (no HTTPException, no try/except; awm.md 3.1): repeating a write of a reference
solution never hits a UNIQUE constraint (adding what is already there answers the existing row,
as ``PUT /me/tracks`` does on Spotify), and deleting what is gone answers
``{"success": false, "message": ...}`` as ``unlike_track`` always did.

``AWM_BOUND`` lists the repeats that still answer 500: their response model has no way to say
"not found" and the rules forbid raising, which is what AWM's own generated worlds do too.
Real generated code, real SQLite, through the runtime as a model would call it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from awm_gym import EnvConfig
from awm_gym.envs.registration import get_world_set
from awm_gym.envs.runtime import WorldRuntime
from awm_gym.tools.actions import format_tool_call

BUILTIN = Path(__file__).resolve().parents[3] / "awm_gym" / "worlds" / "builtin"
SOLUTIONS = [json.loads(line) for line in (BUILTIN / "gen_solutions.jsonl").open()]
WORLDS = sorted({s["scenario"] for s in SOLUTIONS})
AWM_BOUND = {("amazon", "cancel_order"), ("amazon", "checkout"), ("chase", "report_card_lost"),
             ("doordash", "cancel_order"), ("doordash", "place_order"),
             ("expedia", "assign_seat"), ("gmail", "send_draft"), ("gmail", "update_draft")}
"""(world, tool) whose repeat is a state error the response model cannot express."""


@pytest.fixture(scope="module")
def builtin_set():
    return get_world_set(None)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("world", WORLDS)
def test_repeating_a_solution_never_answers_a_bare_500(builtin_set, world: str) -> None:
    runtime = WorldRuntime(builtin_set, [world], 1, EnvConfig(max_episode_steps=1000))
    failures = []
    try:
        for solution in (s for s in SOLUTIONS if s["scenario"] == world):
            runtime.reset([0], [0], [solution["task_idx"]], [world])
            for attempt in ("first", "repeat"):
                for call in solution["calls"]:
                    out = runtime.step([0], [format_tool_call(call["tool"], call["arguments"])])[0]
                    status = out.info.get("tool_status", 0)
                    error = str(out.info.get("error", ""))
                    if "IntegrityError" in error or status >= 500 and (
                            (world, call["tool"]) not in AWM_BOUND):
                        failures.append(f"task {solution['task_idx']} {attempt} {call['tool']}: "
                                        f"{out.info.get('error', out.observation)[:120]}")
    finally:
        runtime.close()
    assert not failures, "\n".join(failures)


def test_like_track_twice_answers_the_existing_like(builtin_set) -> None:
    runtime = WorldRuntime(builtin_set, ["spotify"], 1, EnvConfig())
    try:
        runtime.reset([0], [0], [1], ["spotify"])
        like = format_tool_call("like_track", {"track_id": 21})
        first = runtime.step([0], [like])[0]
        again = runtime.step([0], [like])[0]
        assert again.info["tool_outcome"] == "ok"
        assert json.loads(again.observation) == json.loads(first.observation)
        count = runtime.database(0).execute(
            "SELECT count(*) FROM liked_tracks WHERE user_id = 1 AND track_id = 21").fetchone()[0]
        assert count == 1
        playlist = format_tool_call("delete_playlist", {"playlist_id": 4})
        runtime.step([0], [playlist])
        gone = json.loads(runtime.step([0], [playlist])[0].observation)
        assert gone == {"success": False, "message": "Playlist 4 not found among your playlists"}
    finally:
        runtime.close()
