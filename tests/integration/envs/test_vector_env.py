"""AWMVectorEnv and AWMEnv end to end on the tiny worlds: real SQLite, real generated code, real
verifier worker processes. These are the in-process mechanics (``isolation="none"``: the tiny
worlds are ours); the contained default for world sets from disk is tested in
test_hostile_world.py, test_registration.py and test_workers.py."""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import awm_gym
from awm_gym import EnvUsageError, UnknownWorldError
from awm_gym.envs.spaces import UnicodeText
from awm_gym.envs.vector_env import AWMVectorEnv

TIMING_KEYS = ("tool_time_s", "verify_time_s")


def tool_call(name: str, arguments: dict[str, Any] | None = None) -> str:
    """A Qwen/Hermes ``<tool_call>`` block, the way a model writes one."""
    return ("<tool_call>\n" + json.dumps({"name": name, "arguments": arguments or {}},
                                         ensure_ascii=False) + "\n</tool_call>")


CREATE_PLUMBER = tool_call("create_note", {"notebook_id": 2, "title": "Call the plumber",
                                           "body": "Tuesday at 9am"})


def without_timing(info: dict[str, Any]) -> dict[str, Any]:
    """An info dict minus wall-clock timings (the only keys allowed to differ between runs)."""
    return {k: v for k, v in info.items() if k.lstrip("_") not in TIMING_KEYS}


def assert_infos_equal(a: dict[str, Any], b: dict[str, Any]) -> None:
    a, b = without_timing(a), without_timing(b)
    assert sorted(a) == sorted(b)
    for key in a:
        if isinstance(a[key], np.ndarray):
            assert a[key].dtype == b[key].dtype, key
            assert a[key].tolist() == b[key].tolist(), key
        else:
            assert a[key] == b[key], key


def note_count(envs: AWMVectorEnv, i: int, title: str) -> int:
    return envs.runtime.database(i).execute("SELECT count(*) FROM notes WHERE title = ?",
                                            (title,)).fetchone()[0]


@pytest.fixture(scope="module")
def notes_envs(tiny_path: str) -> Iterator[AWMVectorEnv]:
    envs = AWMVectorEnv(isolation="none", num_envs=3, world_set=tiny_path, worlds=["notes_app"], verifier_workers=1,
                        record_timings=True)
    yield envs
    envs.close()


@pytest.fixture(scope="module")
def mix_envs(tiny_path: str) -> Iterator[AWMVectorEnv]:
    envs = AWMVectorEnv(isolation="none", num_envs=4, world_set=tiny_path, worlds=["notes_app", "judge_only"],
                        verifier_workers=1)
    yield envs
    envs.close()


@pytest.fixture(scope="module")
def defect_set(tmp_path_factory: pytest.TempPathFactory, tiny_path: str,
               copy_world_set: Any) -> str:
    """The tiny set with defect_lab's code changed by a comment, so its content hash is new.

    A world's code is prepared once per process and content hash; a fresh hash makes sure the
    world runs with this module's ``tool_timeout_s`` (see the xfail test about that cache).
    """
    def edit(file: str, row: dict[str, Any]) -> None:
        if file == "gen_envs.jsonl" and row["scenario"] == "Defect Lab":
            row["full_code"] += "\n# copy for test_vector_env\n"
    return str(copy_world_set(tiny_path, tmp_path_factory.mktemp("defect_set"), edit))


@pytest.fixture(scope="module")
def defect_envs(defect_set: str) -> Iterator[AWMVectorEnv]:
    envs = AWMVectorEnv(isolation="none", num_envs=2, world_set=defect_set, worlds=["defect_lab"],
                        tool_timeout_s=1.0, verifier_timeout_s=2.0, verifier_workers=2,
                        record_timings=True)
    yield envs
    envs.close()


# -- (a) isolation -------------------------------------------------------------------------------


def test_a_write_in_one_instance_is_invisible_to_the_others(notes_envs: AWMVectorEnv) -> None:
    envs = notes_envs
    envs.reset(seed=0)
    title = "Isolated ☕ note"
    create = tool_call("create_note", {"notebook_id": 2, "title": title})
    search = tool_call("search_notes", {"q": "Isolated"})
    obs, _, terminated, truncated, info = envs.step([create, search, search])
    assert json.loads(obs[0])["title"] == title
    assert [json.loads(o)["count"] for o in obs[1:]] == [0, 0]
    obs, *_ = envs.step([search, search, create])
    assert [json.loads(o)["count"] for o in obs[:2]] == [1, 0]
    assert json.loads(obs[2])["id"] == json.loads(envs.step([search, search, search])[0][0])[
        "results"][0]["id"] == 8
    assert [note_count(envs, i, title) for i in range(3)] == [1, 0, 1]
    assert not terminated.any() and not truncated.any()
    assert info["tool_outcome"].tolist() == ["ok", "ok", "ok"]


def test_instances_of_different_worlds_are_isolated_in_a_mix(mix_envs: AWMVectorEnv) -> None:
    envs = mix_envs
    worlds = ["notes_app", "notes_app", "judge_only", "judge_only"]
    _, info = envs.reset(seed=0, options={"world": worlds})
    assert info["world"].tolist() == worlds
    actions = [tool_call("delete_note", {"note_id": 1}),
               tool_call("get_note", {"note_id": 1}),
               tool_call("close_ticket", {"ticket_id": 1}),
               tool_call("list_tickets", {"status": "open"})]
    obs, *_ = envs.step(actions)
    assert json.loads(obs[0]) == {"success": True, "deleted_id": 1}
    assert json.loads(obs[1])["title"] == "Quarterly planning"
    assert json.loads(obs[2])["status"] == "closed"
    assert json.loads(obs[3])["total"] == 3
    count = "SELECT count(*) FROM notes WHERE id = 1"
    assert [envs.runtime.database(i).execute(count).fetchone()[0] for i in (0, 1)] == [0, 1]
    status = "SELECT status FROM tickets WHERE id = 1"
    assert [envs.runtime.database(i).execute(status).fetchone()[0] for i in (2, 3)] == [
        "closed", "open"]
    # a notes tool does not exist in a judge_only instance (and vice versa): AWM's reply
    obs, reward, terminated, _, info = envs.step([
        tool_call("list_tickets"), tool_call("search_notes", {"q": "x"}),
        tool_call("search_notes", {"q": "x"}), tool_call("list_tickets")])
    assert not terminated.any() and reward.tolist() == [0.0] * 4
    assert info["tool_outcome"].tolist() == ["unknown_tool", "ok", "unknown_tool", "ok"]
    assert obs[0] == ("Error: Unknown tool 'list_tickets'. Only 'list_tools' and 'call_tool' "
                      "are available.")
    assert obs[2].startswith("Error: Unknown tool 'search_notes'.")


# -- (b) reset ---------------------------------------------------------------------------------


def test_reset_restores_the_exact_template_bytes(notes_envs: AWMVectorEnv) -> None:
    envs = notes_envs
    envs.reset(seed=1)
    template = envs.runtime.prepared("notes_app").template
    assert all(envs.runtime.database(i).serialize() == template for i in range(3))
    envs.step([CREATE_PLUMBER, tool_call("delete_note", {"note_id": 4}),
               tool_call("update_note_title", {"note_id": 2, "title": "Daily standup"})])
    assert all(envs.runtime.database(i).serialize() != template for i in range(3))
    envs.reset(seed=1)
    assert all(envs.runtime.database(i).serialize() == template for i in range(3))


def test_reset_mask_resets_only_the_masked_instances(notes_envs: AWMVectorEnv) -> None:
    envs = notes_envs
    task_obs, _ = envs.reset(seed=[10, 11, 12], options={"task_idx": [0, 1, 2]})
    template = envs.runtime.prepared("notes_app").template
    obs, *_ = envs.step([CREATE_PLUMBER, tool_call("delete_note", {"note_id": 4}),
                         tool_call("search_notes", {"q": "budget"})])
    kept_db = envs.runtime.database(1).serialize()
    mask = np.array([True, False, True])
    new_obs, info = envs.reset(seed=[20, None, 22], options={"reset_mask": mask, "task_idx": 2})
    assert new_obs[0] == new_obs[2] == task_obs[2]  # both now on task 2
    assert new_obs[1] == obs[1]  # instance 1 keeps its last observation ...
    assert envs.runtime.database(1).serialize() == kept_db  # ... and its state
    assert envs.runtime.database(0).serialize() == template
    assert envs.runtime.database(2).serialize() == template
    assert info["_task_idx"].tolist() == [True, False, True]
    assert info["seed"].tolist()[0::2] == [20, 22]
    # instance 1 is still mid-episode: its step count goes on from 1
    _, _, _, _, info = envs.step([tool_call("list_tools")] * 3)
    assert info["step"].tolist() == [1, 2, 1]


def test_reset_after_an_episode_ended_allows_stepping_again(notes_envs: AWMVectorEnv) -> None:
    envs = notes_envs
    envs.reset(seed=0)
    _, _, terminated, _, _ = envs.step(["I am done.", tool_call("list_tools"), "Done too."])
    assert terminated.tolist() == [True, False, True]
    with pytest.raises(EnvUsageError, match=re.escape("actions[0] given to instance 0, whose "
                                                      "episode has ended")):
        envs.step(["again", tool_call("list_tools"), None])
    envs.reset(seed=5, options={"reset_mask": np.array([True, False, True])})
    _, _, terminated, _, info = envs.step([tool_call("list_tools")] * 3)
    assert not terminated.any() and info["step"].tolist() == [1, 2, 1]


def test_reset_to_another_world_swaps_the_database(mix_envs: AWMVectorEnv) -> None:
    envs = mix_envs
    envs.reset(seed=0, options={"world": "notes_app"})
    envs.reset(seed=0, options={"world": ["judge_only", "notes_app", "judge_only", "notes_app"]})
    judge = envs.runtime.prepared("judge_only").template
    notes = envs.runtime.prepared("notes_app").template
    assert [envs.runtime.database(i).serialize() for i in range(4)] == [judge, notes, judge,
                                                                        notes]


# -- (c) determinism ---------------------------------------------------------------------------


SCRIPT = [
    [tool_call("list_tools"), tool_call("search_notes", {"q": "budget"}), CREATE_PLUMBER],
    [CREATE_PLUMBER, tool_call("get_note", {"note_id": 999}),
     tool_call("update_note_title", {"note_id": 2, "title": "Daily standup"})],
    ["The note is 'Budget review'.", tool_call("delete_note", {"note_id": 4}),
     "<think>created</think>I created the note."],
    [None, "Renamed and deleted.", None],
]


def run_script(envs: AWMVectorEnv, seed: int | list[int]) -> list[Any]:
    transcript: list[Any] = [envs.reset(seed=seed)]
    for actions in SCRIPT:
        obs, reward, terminated, truncated, info = envs.step(actions)
        transcript.append((obs, reward.tolist(), terminated.tolist(), truncated.tolist(), info))
    transcript.append([envs.runtime.database(i).serialize() for i in range(envs.num_envs)])
    return transcript


def test_same_seeds_and_actions_give_identical_transcripts(tiny_path: str) -> None:
    runs = []
    for _ in range(2):
        envs = AWMVectorEnv(isolation="none", num_envs=3, world_set=tiny_path, worlds=["notes_app"],
                            verifier_workers=1)
        try:
            runs.append(run_script(envs, seed=[3, 4, 5]))
        finally:
            envs.close()
    a, b = runs
    assert a[0][0] == b[0][0]
    assert_infos_equal(a[0][1], b[0][1])
    for step_a, step_b in zip(a[1:-1], b[1:-1], strict=True):
        assert step_a[:4] == step_b[:4]
        assert_infos_equal(step_a[4], step_b[4])
    assert a[-1] == b[-1]  # final databases byte for byte
    # the script really did something: a write, a 500, verifier verdicts
    assert a[-1][0] != a[-1][1] and "Status code: 500" in a[2][0][1]
    assert a[3][4]["_verifier_label"].tolist() == [True, False, True]


def test_int_seed_s_means_s_plus_i(notes_envs: AWMVectorEnv) -> None:
    _, info_int = notes_envs.reset(seed=40)
    tasks_int = info_int["task_idx"].tolist()
    _, info_list = notes_envs.reset(seed=[40, 41, 42])
    assert info_list["task_idx"].tolist() == tasks_int
    assert info_int["seed"].tolist() == [40, 41, 42]
    shifted = [notes_envs.reset(seed=40 + k)[1]["task_idx"].tolist() for k in (1, 2)]
    assert shifted[0][:2] == tasks_int[1:] and shifted[1][0] == tasks_int[2]


def test_seeds_decide_tasks(notes_envs: AWMVectorEnv) -> None:
    first = [notes_envs.reset(seed=s)[1]["task_idx"].tolist() for s in range(8)]
    again = [notes_envs.reset(seed=s)[1]["task_idx"].tolist() for s in range(8)]
    assert first == again
    assert {t for tasks in first for t in tasks} == {0, 1, 2}  # seeds reach every task


def test_seeds_decide_worlds_in_a_mix(mix_envs: AWMVectorEnv) -> None:
    picks = [tuple(mix_envs.reset(seed=s)[1]["world"].tolist()) for s in range(6)]
    assert picks == [tuple(mix_envs.reset(seed=s)[1]["world"].tolist()) for s in range(6)]
    assert {w for p in picks for w in p} == {"notes_app", "judge_only"}


def test_numpy_seed_arrays_work_like_int_lists(notes_envs: AWMVectorEnv) -> None:
    expected = notes_envs.reset(seed=[7, 8, 9])[1]["task_idx"].tolist()
    assert notes_envs.reset(seed=np.arange(7, 10))[1]["task_idx"].tolist() == expected


# -- (d) vector == N single envs ---------------------------------------------------------------


def test_vector_env_matches_single_envs_step_for_step(tiny_ids: list[str], tiny_path: str) -> None:
    n, seed = 3, 7
    envs = AWMVectorEnv(isolation="none", num_envs=n, world_set=tiny_path, worlds=["notes_app"], verifier_workers=1)
    singles = [gym.make("AWM/notes_app-v0", isolation="none", verifier_workers=1) for _ in range(n)]
    try:
        vobs, vinfo = envs.reset(seed=seed)
        for i, env in enumerate(singles):
            obs, info = env.reset(seed=seed + i)
            assert obs == vobs[i]
            assert info == {k: vinfo[k][i].item() if isinstance(vinfo[k][i], np.generic)
                            else vinfo[k][i] for k in info}
        steps = 0
        for actions in SCRIPT:
            vobs, vrew, vterm, vtrunc, vinfo = envs.step(actions)
            for i, (env, action) in enumerate(zip(singles, actions, strict=True)):
                if action is None:
                    continue
                obs, reward, terminated, truncated, info = env.step(action)
                steps += 1
                assert (obs, reward, terminated, truncated) == (
                    vobs[i], vrew[i], vterm[i], vtrunc[i])
                for key, value in without_timing(info).items():
                    assert vinfo["_" + key][i], key
                    got = vinfo[key][i]
                    assert (got.item() if isinstance(got, np.generic) else got) == value, key
                assert not any(vinfo["_" + k][i] for k in vinfo
                               if not k.startswith("_") and k not in info)
        assert steps == 10
        for i, env in enumerate(singles):
            assert env.unwrapped.runtime.database(0).serialize() == \
                envs.runtime.database(i).serialize()
    finally:
        envs.close()
        for env in singles:
            env.close()


# -- (e) malformed actions ---------------------------------------------------------------------


MALFORMED = [
    "<tool_call>{this is: not json at all</tool_call>",
    tool_call("call_tool", {"arguments": "{}"}),
    '<tool_call>{"name": "get_note", "arguments": [1, 2]}</tool_call>',
    '<tool_call>{"name": "get_note", "arguments": {"note_id": 1}}',
    123,
    b"<tool_call>{}</tool_call>",
]


def test_malformed_actions_end_the_episode_with_a_format_error(tiny_path: str) -> None:
    envs = AWMVectorEnv(isolation="none", num_envs=len(MALFORMED), world_set=tiny_path, worlds=["notes_app"],
                        verifier_workers=1)
    try:
        envs.reset(seed=0)
        obs, reward, terminated, truncated, info = envs.step(MALFORMED)
        assert reward.tolist() == [-1.0] * len(MALFORMED)
        assert terminated.all() and not truncated.any()
        assert info["format_error"].tolist() == [True] * len(MALFORMED)
        assert info["action_kind"].tolist() == ["malformed"] * len(MALFORMED)
        assert info["reward_valid"].all()
        assert all(o.startswith("Error: ") for o in obs)
        assert obs[1].startswith('Error: call_tool needs {"tool_name": str')
        assert "unclosed <tool_call>" in obs[3]
        assert obs[4] == "Error: the action must be a string, got int"
        assert info["error"][1] == obs[1][len("Error: "):]
        # nothing ran: the databases are untouched
        template = envs.runtime.prepared("notes_app").template
        assert all(envs.runtime.database(i).serialize() == template
                   for i in range(len(MALFORMED)))
    finally:
        envs.close()


def test_single_env_malformed_action_never_raises(tiny_ids: list[str]) -> None:
    env = gym.make("AWM/notes_app-v0", isolation="none")
    try:
        env.reset(seed=0)
        obs, reward, terminated, truncated, info = env.step(None)  # type: ignore[arg-type]
        assert (reward, terminated, truncated, info["format_error"]) == (-1.0, True, False, True)
        assert obs == "Error: the action must be a string, got NoneType"
    finally:
        env.close()


# -- (f) crashing and hanging tools ------------------------------------------------------------


def test_crashing_tool_gives_an_error_observation_and_the_instance_goes_on(
        defect_envs: AWMVectorEnv) -> None:
    envs = defect_envs
    envs.reset(seed=0, options={"task_idx": 0})
    obs, reward, terminated, _, info = envs.step([tool_call("boom"), tool_call("get_thing",
                                                                              {"thing_id": 1})])
    assert obs[0] == "Error: Error calling boom. Status code: 500. Response: Internal Server Error"
    assert info["tool_outcome"].tolist() == ["crash", "ok"]
    assert info["tool_status"].tolist() == [500, 200]
    assert info["error"][0].startswith("ZeroDivisionError: division by zero (generated code line ")
    assert not terminated.any() and reward.tolist() == [0.0, 0.0]
    obs, *_ = envs.step([tool_call("get_thing", {"thing_id": 1})] * 2)
    assert json.loads(obs[0]) == json.loads(obs[1]) == {"id": 1, "label": "bolt", "quantity": 40}


@pytest.mark.parametrize("tool", ["hang", "sleepy"])
def test_hanging_tool_times_out_and_the_instance_goes_on(defect_envs: AWMVectorEnv,
                                                         tool: str) -> None:
    envs = defect_envs
    envs.reset(seed=0, options={"task_idx": 0})
    obs, reward, terminated, truncated, info = envs.step([tool_call(tool), tool_call("sync_stats")])
    assert obs[0] == "Error: Tool call timed out after 1 s (the handler did not return)."
    assert info["tool_outcome"].tolist() == ["timeout", "ok"]
    assert info["tool_status"].tolist() == [-1, 200]
    # the step returned although `hang` never returns and `sleepy` sleeps an hour: the timeout
    # ended the call; the time reported covers the 1 s waited (a lower bound, not a speed claim)
    assert info["tool_time_s"][0] >= 0.9
    assert json.loads(obs[1]) == {"item_count": 3, "thing_count": 2}
    assert not terminated.any() and not truncated.any()
    # right after the hang, a normal read on the same instance succeeds
    obs, _, _, _, info = envs.step([tool_call("get_thing", {"thing_id": 2}), tool_call("boom")])
    assert json.loads(obs[0]) == {"id": 2, "label": "nut", "quantity": 25}
    assert info["tool_outcome"].tolist() == ["ok", "crash"]
    assert not envs.runtime.database(0).in_transaction


def test_leaky_write_leaves_no_row_behind(defect_envs: AWMVectorEnv) -> None:
    envs = defect_envs
    envs.reset(seed=0, options={"task_idx": 0})
    obs, _, _, _, info = envs.step([tool_call("leaky_write"), tool_call("with_depends")])
    assert info["tool_outcome"].tolist() == ["crash", "ok"]
    assert info["error"][0].startswith("AttributeError: 'NoneType' object has no attribute 'id'")
    obs, *_ = envs.step([tool_call("with_depends")] * 2)
    assert json.loads(obs[0])["total"] == json.loads(obs[1])["total"] == 3
    db = envs.runtime.database(0)
    assert db.execute("SELECT count(*) FROM items WHERE name = 'leaked'").fetchone()[0] == 0
    assert db.serialize() == envs.runtime.prepared("defect_lab").template


def test_duplicate_and_shadowed_routes_behave_as_under_awm(defect_envs: AWMVectorEnv) -> None:
    envs = defect_envs
    envs.reset(seed=0, options={"task_idx": 0})
    obs, _, _, _, info = envs.step([tool_call("get_item_v2", {"item_id": 2}),
                                    tool_call("count_things")])
    assert json.loads(obs[0]) == {"id": 2, "name": "Sprocket", "price": 12.25, "in_stock": True}
    assert info["tool_outcome"].tolist() == ["ok", "http_error"]
    assert obs[1].startswith("Error: Error calling count_things. Status code: 422.")


def test_each_env_uses_its_own_tool_timeout(tmp_path: Path, tiny_path: str,
                                            copy_world_set: Any) -> None:
    def edit(file: str, row: dict[str, Any]) -> None:
        if file == "gen_envs.jsonl" and row["scenario"] == "Defect Lab":
            row["full_code"] += "\n# copy for the tool timeout test\n"
    root = str(copy_world_set(tiny_path, tmp_path / "set", edit))
    first = AWMVectorEnv(isolation="none", num_envs=1, world_set=root, worlds=["defect_lab"], tool_timeout_s=0.2)
    second = AWMVectorEnv(isolation="none", num_envs=1, world_set=root, worlds=["defect_lab"], tool_timeout_s=0.4)
    try:
        second.reset(seed=0)
        obs, *_ = second.step([tool_call("hang")])
        assert obs[0] == "Error: Tool call timed out after 0.4 s (the handler did not return)."
    finally:
        first.close()
        second.close()


# -- (g) verifier failures ---------------------------------------------------------------------


def test_verifier_crash_and_timeout_are_unscored_not_zero(defect_envs: AWMVectorEnv) -> None:
    envs = defect_envs
    envs.reset(seed=0, options={"task_idx": [1, 2]})
    obs, reward, terminated, truncated, info = envs.step(["It costs 12.25.", "There are 2."])
    assert terminated.all() and not truncated.any()
    assert obs == ("", "")
    assert info["verifier_label"].tolist() == ["verifier_error", "verifier_error"]
    assert info["reward_valid"].tolist() == [False, False]
    assert info["success"].tolist() == [False, False]
    assert reward.tolist() == [0.0, 0.0]  # RewardConfig.unscored, flagged invalid
    assert info["verifier_error"][0].startswith("exception: ")
    assert "no such table: products" in info["verifier_error"][0]
    assert info["verifier_error"][1].startswith("timeout: ")
    # the pool replaced the killed worker: a correct verifier still works
    envs.reset(seed=0, options={"task_idx": 0})
    envs.step([tool_call("create_item", {"name": "Widget", "price": 9.99}), tool_call("boom")])
    _, reward, terminated, _, info = envs.step(["Added the Widget.", "Gave up."])
    assert info["verifier_label"].tolist() == ["complete", "others"]
    assert reward.tolist() == [1.0, 0.0] and info["reward_valid"].all()


# -- (h) sql-mode (judge) worlds ---------------------------------------------------------------


def test_judge_only_episodes_await_the_judge(mix_envs: AWMVectorEnv) -> None:
    envs = mix_envs
    envs.reset(seed=0, options={"world": "judge_only", "task_idx": [0, 1, 0, 1]})
    envs.step([tool_call("close_ticket", {"ticket_id": 2}), tool_call("list_tickets"),
               tool_call("list_tickets"), tool_call("list_tickets", {"status": "open"})])
    obs, reward, terminated, _, info = envs.step(["Closed ticket 2.", "You have 3.", "Done.",
                                                  "3 open tickets."])
    assert terminated.all()
    assert info["verifier_label"].tolist() == ["awaiting_judge"] * 4
    assert info["awaiting_judge"].tolist() == [True] * 4
    assert info["reward_valid"].tolist() == [False] * 4
    assert reward.tolist() == [0.0] * 4
    evidence = info["verifier_output"][0]
    assert evidence["printer_ticket_ids"] == [2]
    assert evidence["printer_ticket_status_after"] == ["closed"]
    assert info["verifier_output"][2]["printer_ticket_status_after"] == ["open"]
    assert info["verifier_output"][3]["expected_open_ticket_count"] == 3
    assert info["final_answer"].tolist() == ["Closed ticket 2.", "You have 3.", "Done.",
                                             "3 open tickets."]


def test_final_answer_is_verified_without_its_thinking(notes_envs: AWMVectorEnv) -> None:
    envs = notes_envs
    envs.reset(seed=0, options={"task_idx": 0})
    answers = ["<think>Maybe 'Grocery list'?</think>It is 'Budget review'.",
               "<think>It is 'Budget review'.</think>I don't know.",
               "It is 'Budget review'. " + tool_call("list_tools").replace("<tool_call>", "")]
    _, reward, terminated, _, info = envs.step(answers)
    assert info["final_answer"].tolist()[:2] == ["It is 'Budget review'.", "I don't know."]
    assert info["verifier_label"].tolist() == ["complete", "others", "complete"]
    assert reward.tolist() == [1.0, 0.0, 1.0] and terminated.all()


def test_only_the_first_tool_call_of_a_turn_runs(notes_envs: AWMVectorEnv) -> None:
    envs = notes_envs
    envs.reset(seed=0)
    two = tool_call("delete_note", {"note_id": 1}) + tool_call("delete_note", {"note_id": 2})
    _, _, _, _, info = envs.step([two, tool_call("list_tools") * 3, tool_call("list_tools")])
    assert info["dropped_calls"].tolist() == [1, 2, 0]
    remaining = envs.runtime.database(0).execute("SELECT id FROM notes WHERE id IN (1, 2)")
    assert remaining.fetchall() == [(2,)]


def test_without_a_verifier_the_episode_is_unscored(tiny_path: str) -> None:
    # judge_only has only sql-mode verifiers; verifier_mode='code' leaves it without one
    envs = AWMVectorEnv(isolation="none", num_envs=1, world_set=tiny_path, worlds=["judge_only"],
                        verifier_mode="code")
    try:
        envs.reset(seed=0)
        _, reward, terminated, _, info = envs.step(["Done."])
        assert (info["verifier_label"][0], info["reward_valid"][0], reward[0], terminated[0]) == (
            "no_verifier", False, 0.0, True)
    finally:
        envs.close()


def test_reward_config_is_applied(tiny_path: str) -> None:
    rewards = awm_gym.RewardConfig(complete=5.0, others=-0.5, format_error=-2.0)
    envs = AWMVectorEnv(isolation="none", num_envs=3, world_set=tiny_path, worlds=["notes_app"], rewards=rewards,
                        verifier_workers=1)
    try:
        envs.reset(seed=0, options={"task_idx": 0})
        _, reward, *_ = envs.step(["Budget review", "No idea.", "<tool_call>{]</tool_call>"])
        assert reward.tolist() == [5.0, -0.5, -2.0]
    finally:
        envs.close()


# -- (i) API misuse ----------------------------------------------------------------------------


def test_wrong_number_of_actions(notes_envs: AWMVectorEnv) -> None:
    notes_envs.reset(seed=0)
    with pytest.raises(EnvUsageError, match=re.escape("step() needs one action per instance (3), "
                                                      "got 2")):
        notes_envs.step(["a", "b"])
    with pytest.raises(EnvUsageError, match=re.escape("got 1")):
        notes_envs.step("a single string")
    # the failed calls changed nothing
    _, _, _, _, info = notes_envs.step([tool_call("list_tools")] * 3)
    assert info["step"].tolist() == [1, 1, 1]


def test_none_pauses_a_mid_episode_instance(notes_envs: AWMVectorEnv) -> None:
    notes_envs.reset(seed=0)
    _, reward, terminated, truncated, info = notes_envs.step(
        [tool_call("list_tools"), None, tool_call("list_tools")])
    assert info["_step"].tolist() == [True, False, True]
    assert not terminated[1] and not truncated[1] and reward[1] == 0.0
    _, _, _, _, info = notes_envs.step([None, tool_call("list_tools"), None])
    assert info["step"][1] == 1  # instance 1 waited, then took its first step


def test_step_before_reset(tiny_path: str) -> None:
    envs = AWMVectorEnv(isolation="none", num_envs=1, world_set=tiny_path, worlds=["notes_app"])
    try:
        with pytest.raises(EnvUsageError, match=re.escape("actions[0] given to instance 0, which "
                                                          "was never reset")):
            envs.step([tool_call("list_tools")])
    finally:
        envs.close()


@pytest.mark.parametrize(("mask", "message"), [
    (np.array([1, 0, 1]), "options['reset_mask'] must be a numpy bool array, got ndarray of int"),
    ([True, False, True], "options['reset_mask'] must be a numpy bool array, got list"),
    (np.array([True, False]), "options['reset_mask'] has shape (2,); expected (3,)"),
    (np.ones((3, 1), dtype=bool), "options['reset_mask'] has shape (3, 1); expected (3,)"),
    (np.zeros(3, dtype=bool), "options['reset_mask'] has no True entry"),
])
def test_bad_reset_mask(notes_envs: AWMVectorEnv, mask: Any, message: str) -> None:
    with pytest.raises(EnvUsageError, match=re.escape(message)):
        notes_envs.reset(seed=0, options={"reset_mask": mask})


def test_seed_list_length_mismatch(notes_envs: AWMVectorEnv) -> None:
    with pytest.raises(EnvUsageError, match=re.escape("seed has 2 entries but num_envs=3")):
        notes_envs.reset(seed=[1, 2])


def test_unknown_reset_option(notes_envs: AWMVectorEnv) -> None:
    with pytest.raises(EnvUsageError, match=re.escape("Unknown reset options ['task', 'worlds']; "
                                                      "valid: 'reset_mask', 'task_idx', 'world'")):
        notes_envs.reset(seed=0, options={"task": 1, "worlds": "notes_app"})


@pytest.mark.parametrize("task_idx", [3, -1, [0, 1, 7]])
def test_bad_task_idx(notes_envs: AWMVectorEnv, task_idx: Any) -> None:
    with pytest.raises(EnvUsageError, match=r"options\['task_idx'\]=(3|-1|7): out of range"):
        notes_envs.reset(seed=0, options={"task_idx": task_idx})


def test_task_idx_list_of_the_wrong_length(notes_envs: AWMVectorEnv) -> None:
    with pytest.raises(EnvUsageError, match=re.escape("options['task_idx'] has 2 entries; give one "
                                                      "per instance (3)")):
        notes_envs.reset(seed=0, options={"task_idx": [0, 1]})


def test_world_not_in_this_env(notes_envs: AWMVectorEnv) -> None:
    with pytest.raises(UnknownWorldError, match=re.escape("World 'judge_only' is not one of this "
                                                          "env's worlds (notes_app)")):
        notes_envs.reset(seed=0, options={"world": "judge_only"})


@pytest.mark.parametrize("num_envs", [0, -2, 1.5, "3"])
def test_bad_num_envs(tiny_path: str, num_envs: Any) -> None:
    with pytest.raises(EnvUsageError, match=re.escape(f"num_envs={num_envs!r}: must be a positive "
                                                      "int")):
        AWMVectorEnv(isolation="none", num_envs=num_envs, world_set=tiny_path, worlds=["notes_app"])


def test_single_env_step_after_the_end(tiny_ids: list[str]) -> None:
    env = gym.make("AWM/notes_app-v0", isolation="none").unwrapped
    try:
        with pytest.raises(EnvUsageError, match=re.escape("step() after the episode ended (or "
                                                          "before reset())")):
            env.step("hello")
        env.reset(seed=0)
        env.step("<tool_call>{]</tool_call>")  # malformed: the episode ends
        with pytest.raises(EnvUsageError, match=re.escape("call env.reset(...) first")):
            env.step(tool_call("list_tools"))
        with pytest.raises(EnvUsageError, match=re.escape("Unknown reset options ['reset_mask']")):
            env.reset(seed=0, options={"reset_mask": np.ones(1, dtype=bool)})
    finally:
        env.close()


def test_a_failed_reset_changes_nothing(notes_envs: AWMVectorEnv) -> None:
    envs = notes_envs
    envs.reset(seed=0)
    envs.step([CREATE_PLUMBER] * 3)
    before = [envs.runtime.database(i).serialize() for i in range(3)]
    with pytest.raises(EnvUsageError):
        envs.reset(seed=0, options={"task_idx": [0, 1, 9]})
    assert [envs.runtime.database(i).serialize() for i in range(3)] == before
    _, _, _, _, info = envs.step([tool_call("list_tools")] * 3)
    assert info["step"].tolist() == [2, 2, 2]


# -- (j) batched info --------------------------------------------------------------------------


def test_batched_info_has_gymnasium_key_masks(notes_envs: AWMVectorEnv) -> None:
    envs = notes_envs
    _, info = envs.reset(seed=0, options={"task_idx": 0})
    assert set(info) == {"world", "_world", "task_idx", "_task_idx", "seed", "_seed"}
    assert info["_world"].dtype == np.bool_ and info["_world"].tolist() == [True] * 3
    assert info["task_idx"].dtype == np.int64 and info["task_idx"].tolist() == [0, 0, 0]
    _, _, _, _, info = envs.step(["The note is Budget review.", tool_call("list_tools"),
                                  tool_call("search_notes", {"q": "budget"})])
    for key in info:
        if not key.startswith("_"):
            assert "_" + key in info, key
            assert info["_" + key].shape == (3,) and info[key].shape == (3,), key
    assert info["_verifier_label"].tolist() == [True, False, False]
    assert info["_tool"].tolist() == [False, False, True]
    assert info["_dropped_calls"].tolist() == [False, True, True]
    assert info["_step"].tolist() == [True, True, True]
    assert info["action_kind"].tolist() == ["final_answer", "list_tools", "tool_call"]
    assert info["tool"].tolist() == [None, None, "search_notes"]
    assert info["success"].dtype == np.bool_ and info["success"].tolist() == [True, False, False]
    assert info["tool_time_s"].dtype == np.float64
    # instances that do not act report nothing
    _, reward, terminated, truncated, info = envs.step([None, tool_call("list_tools"), "Done."])
    assert info["_step"].tolist() == [False, True, True]
    assert reward[0] == 0.0 and not terminated[0] and not truncated[0]


# -- (k) text spaces ---------------------------------------------------------------------------


UNICODE_TEXTS = [
    '<tool_call>{"name": "create_note", "arguments": {"title": "Café ☕ 日本語 🚀"}}</tool_call>',
    "Ünïcödé àccénts, emoji 👩‍👩‍👧‍👦, RTL שלום, math ∑∫, NUL-free \t\n",
    json.dumps({"nested": [1, {"a": None}], "s": "\"quoted\""}),
    "",
]


def test_text_spaces_accept_any_unicode_up_to_max_length(tiny_path: str) -> None:
    envs = AWMVectorEnv(isolation="none", num_envs=2, world_set=tiny_path, worlds=["notes_app"],
                        max_text_length=300)
    try:
        for space in (envs.single_observation_space, envs.single_action_space):
            assert isinstance(space, UnicodeText) and isinstance(space, gym.spaces.Text)
            assert space.max_length == 300
            for text in UNICODE_TEXTS:
                assert space.contains(text), text
            assert space.contains("é" * 300) and not space.contains("é" * 301)
            assert not space.contains("lone \ud800 surrogate")
            assert not space.contains(b"bytes") and not space.contains(None)
            assert space.contains(space.sample())
        assert envs.observation_space.contains(("a ☕", "b 🚀"))
        assert envs.action_space.contains(tuple(UNICODE_TEXTS[:2]))
        assert envs.observation_space == gym.vector.utils.batch_space(UnicodeText(300), 2)
    finally:
        envs.close()


def test_unicode_round_trips_through_a_tool(notes_envs: AWMVectorEnv) -> None:
    envs = notes_envs
    envs.reset(seed=0)
    title = "Café ☕ 日本語 🚀 שלום"
    obs, *_ = envs.step([tool_call("create_note", {"notebook_id": 1, "title": title})] * 3)
    assert all(json.loads(o)["title"] == title and title in o for o in obs)
    assert envs.observation_space.contains(obs)


def test_every_observation_is_in_the_observation_space(tiny_path: str) -> None:
    envs = AWMVectorEnv(isolation="none", num_envs=1, world_set=tiny_path, worlds=["notes_app"],
                        max_text_length=500)
    try:
        obs, _ = envs.reset(seed=0)
        assert envs.observation_space.contains(obs)
        obs, *_ = envs.step([tool_call("list_tools")])
        assert envs.observation_space.contains(obs)
    finally:
        envs.close()


# -- (l) Gymnasium's env checker ---------------------------------------------------------------






def test_check_env_notes_app(tiny_ids: list[str]) -> None:
    env = gym.make("AWM/notes_app-v0", isolation="none", verifier_workers=1)
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()



def test_check_env_spotify(spotify_id: str) -> None:
    env = gym.make(spotify_id, verifier_workers=1)
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


def test_env_checker_parts_that_pass(tiny_ids: list[str]) -> None:
    """The other checks of check_env, run one by one (they must keep passing)."""
    from gymnasium.utils import env_checker

    env = gym.make("AWM/notes_app-v0", isolation="none", verifier_workers=1).unwrapped
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a passive-checker warning fails the test
            env_checker.check_reset_return_info_deprecation(env)
            env_checker.check_seed_deprecation(env)
            env_checker.check_reset_options(env)
            env_checker.check_reset_seed_determinism(env)
            env_checker.check_reset_return_type(env)
            env_checker.check_space_limit(env.observation_space, "observation")
            env_checker.check_space_limit(env.action_space, "action")
            env_checker.env_reset_passive_checker(env, seed=0)
            env_checker.env_step_passive_checker(env, tool_call("list_tools"))
    finally:
        env.close()


# -- (m) step limit ----------------------------------------------------------------------------


def test_step_limit_truncates_with_reward_zero(tiny_path: str) -> None:
    envs = AWMVectorEnv(isolation="none", num_envs=2, world_set=tiny_path, worlds=["notes_app"],
                        max_episode_steps=2)
    try:
        envs.reset(seed=0)
        _, reward, terminated, truncated, info = envs.step([tool_call("list_tools")] * 2)
        assert not truncated.any() and not terminated.any()
        obs, reward, terminated, truncated, info = envs.step([tool_call("list_tools"),
                                                              tool_call("search_notes",
                                                                        {"q": "a"})])
        assert truncated.tolist() == [True, True] and not terminated.any()
        assert reward.tolist() == [0.0, 0.0]
        assert info["reward_valid"].tolist() == [True, True]
        assert obs[0].startswith("Available MCP Tools (7 tools):")
        with pytest.raises(EnvUsageError, match="whose episode has ended"):
            envs.step([tool_call("list_tools"), None])
        # a final answer on the last allowed step is verified, not truncated
        envs.reset(seed=0, options={"task_idx": 0})
        envs.step([tool_call("list_tools"), "x"])
        _, reward, terminated, truncated, info = envs.step(["It is 'Budget review'.", None])
        assert (terminated[0], truncated[0], reward[0]) == (True, False, 1.0)
    finally:
        envs.close()


def test_single_env_step_limit_through_gym_make(tiny_ids: list[str]) -> None:
    env = gym.make("AWM/notes_app-v0", isolation="none", max_episode_steps=2)
    try:
        env.reset(seed=0)
        assert env.step(tool_call("list_tools"))[2:4] == (False, False)
        _, reward, terminated, truncated, _ = env.step(tool_call("list_tools"))
        assert (reward, terminated, truncated) == (0.0, False, True)
    finally:
        env.close()


# -- odds and ends -----------------------------------------------------------------------------


def test_repr_tools_and_close_twice(tiny_path: str) -> None:
    envs = AWMVectorEnv(isolation="none", num_envs=2, world_set=tiny_path, worlds=["notes_app", "judge_only"])
    assert repr(envs) == "AWMVectorEnv(mix of 2 worlds, num_envs=2)"
    envs.reset(seed=0, options={"world": ["notes_app", "judge_only"]})
    assert [t["name"] for t in envs.tools(1)] == ["list_tickets", "close_ticket"]
    assert envs.tools_text(0).startswith("Available MCP Tools (7 tools):\n" + "=" * 80)
    assert "1. mcp_tool_list_tickets" in envs.tools_text(1)
    envs.close()
    envs.close()
    assert envs.closed


def test_vector_env_metadata_says_autoreset_is_disabled(notes_envs: AWMVectorEnv) -> None:
    assert notes_envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.DISABLED
