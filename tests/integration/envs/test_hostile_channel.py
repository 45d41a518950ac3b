"""World code cannot reach the caller through its channel, its signals, its environment or the
caller's working directory (issue 23, items 1-5). The hostile world
(tests/fixtures/make_hostile_world.py) runs in a separate Python process in its own session,
started from a "home" directory outside the checkout, so that a failure of the containment
kills only that process, never the test run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "fixtures"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux containment")

SCRIPT = textwrap.dedent('''
    import json, os, sys
    sys.path.insert(0, sys.argv[3])
    import gymnasium as gym
    import awm_gym
    from make_hostile_world import write_hostile_world

    root, marker = sys.argv[1], sys.argv[2]
    write_hostile_world(root, marker=marker, caller_pid=os.getpid())

    def call(tool, **arguments):
        return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"

    ADD, COUNT = call("add_note", body="hello"), call("count_notes")
    envs = gym.make_vec("AWM/mix-v0", num_envs=3, world_set=root, tool_timeout_s=5.0,
                        max_episode_steps=100)
    out = {"scratch": [p for s in envs.runtime._shards for p in (s.worker.scratch, s.worker.shm)]}

    def notes():
        obs, *_ = envs.step([COUNT, COUNT, COUNT])
        return [json.loads(o)["result"] for o in obs]

    envs.reset(seed=[0, 1, 2], options={"task_idx": [0, 0, 0]})
    home = os.environ["HOME"]
    shm_target = ("/dev/shm" if os.path.isdir("/dev/shm") else "/tmp") + "/awm-hostile-shm"
    for name, action in [
            ("forge", call("forge_pickle", marker=marker)),
            ("kill_parent", call("kill_parent")),
            ("own_environ", call("grep_file", path="/proc/self/environ", needle="sk-do-not")),
            ("caller_environ", call("grep_file", path=f"/proc/{os.getpid()}/environ",
                                    needle="sk-do-not")),
            ("home", call("read_file", path=os.path.join(home, "secret.txt"))),
            ("cwd", call("read_file", path="secret.txt")),
            ("poison", call("poison_cache", directory=os.environ["AWM_GYM_CACHE"])),
            ("shm", call("write_file", path=shm_target))]:
        before = notes()
        obs, reward, term, trunc, info = envs.step([action, ADD, COUNT])
        out[name] = {"obs": list(obs), "outcome": list(info["tool_outcome"]),
                     "before": before, "after": notes()}
        if name == "forge":  # the worker was replaced: its old areas are gone already
            out["left_after_death"] = [p for p in out["scratch"] if os.path.exists(p)]
    for name, task in (("verifier_forge", 5), ("verifier_kill", 6)):
        envs.reset(seed=[5, 6, 7], options={"task_idx": [task, 0, 0]})
        envs.step([ADD, ADD, None])
        obs, reward, term, trunc, info = envs.step(["Done.", "Done.", None])
        out[name] = {"label": list(info["verifier_label"][:2]),
                     "error": str(info["verifier_error"][0]), "reward": float(reward[1])}
    envs.close()
    out["scratch_left"] = [p for p in out["scratch"] if os.path.exists(p)]
    out["shm_written"] = os.path.exists(shm_target)

    import glob, sqlite3
    for path in glob.glob(os.path.join(os.environ["AWM_GYM_CACHE"], "*.db")):  # the caller
        conn = sqlite3.connect(path)  # poisons the cached template itself: it is rebuilt
        out["poisoned_directly"] = conn.execute(
            "UPDATE notes SET body = 'poisoned'").rowcount
        conn.commit()
        conn.close()
    envs = gym.make_vec("AWM/mix-v0", num_envs=2, world_set=root, max_episode_steps=100)
    envs.reset(seed=[0, 1], options={"task_idx": [0, 0]})
    out["bodies_after_poisoning"] = [
        r[0] for r in envs.runtime.database(0).execute("SELECT body FROM notes")]
    envs.close()
    print("RESULT " + json.dumps(out))
''')


def _installed_awm_gym_is_this_checkout(python: str) -> bool:
    found = subprocess.run([python, "-I", "-c", "import awm_gym; print(awm_gym.__file__)"],
                           capture_output=True, text=True, cwd="/", check=False)
    return found.stdout.strip().startswith(str(REPO / "awm_gym"))


@pytest.fixture(scope="module", params=["pythonpath", "installed"])
def hostile_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
                ) -> tuple[dict, Path]:
    tmp = tmp_path_factory.mktemp("channel")
    home = tmp / "home"  # the caller's $HOME and working directory, outside the checkout
    home.mkdir()
    (home / "secret.txt").write_text("ssh-key-material")
    env = dict(os.environ, HOME=str(home), AWM_TEST_SECRET="sk-do-not-leak",
               AWM_GYM_CACHE=str(tmp / "cache"))
    if request.param == "pythonpath":
        env["PYTHONPATH"] = str(REPO)
    else:  # an editable (or regular) install of this checkout, nothing on PYTHONPATH
        if not _installed_awm_gym_is_this_checkout(sys.executable):
            pytest.skip("this interpreter's installed awm_gym is not this checkout")
        env.pop("PYTHONPATH", None)
    marker = tmp / "forged-pickle-ran"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp / "world"), str(marker),
                           str(FIXTURES)], capture_output=True, text=True, timeout=600,
                          env=env, cwd=home, start_new_session=True, check=False)
    assert done.returncode == 0, (done.returncode, done.stdout[-2000:], done.stderr[-4000:])
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line[len("RESULT "):]), marker


def _neighbours_unchanged(result: dict) -> None:
    before = result["before"]
    assert json.loads(result["obs"][1])["result"] == f"{int(before[1]) + 1} notes"
    assert json.loads(result["obs"][2])["result"] == before[2]
    assert result["after"] == [before[0], str(int(before[1]) + 1), before[2]]


def test_a_forged_pickle_from_a_handler_is_never_loaded(hostile_run) -> None:  # noqa: ANN001
    out, marker = hostile_run
    result = out["forge"]
    assert not marker.exists()
    assert result["obs"][0].startswith("Error: ")  # the reply channel carried garbage
    assert result["outcome"][0] == "worker_died"
    _neighbours_unchanged(result)


def test_a_handler_cannot_signal_the_caller(hostile_run) -> None:  # noqa: ANN001
    out, _ = hostile_run  # the run got this far: the caller lived
    result = out["kill_parent"]
    assert result["outcome"][0] == "crash"
    _neighbours_unchanged(result)


def test_the_workers_environment_block_holds_no_secret(hostile_run) -> None:  # noqa: ANN001
    out, _ = hostile_run
    assert json.loads(out["own_environ"]["obs"][0])["result"] == "absent"
    assert out["caller_environ"]["outcome"][0] == "crash"  # another process's /proc: refused
    _neighbours_unchanged(out["own_environ"])


@pytest.mark.parametrize("where", ["home", "cwd"])
def test_the_callers_home_and_working_directory_are_not_readable(hostile_run, where: str  # noqa: ANN001
                                                                  ) -> None:
    out, _ = hostile_run
    result = out[where]
    assert result["outcome"][0] == "crash" and "ssh-key-material" not in result["obs"][0]
    _neighbours_unchanged(result)  # and our own source stayed importable


def test_a_verifier_cannot_forge_a_reply_or_signal_the_caller(hostile_run) -> None:  # noqa: ANN001
    out, marker = hostile_run
    assert not marker.exists()
    assert out["verifier_forge"]["label"] == ["verifier_error", "complete"]
    assert out["verifier_kill"]["label"] == ["verifier_error", "complete"]
    assert "PermissionError" in out["verifier_kill"]["error"]
    assert out["verifier_kill"]["reward"] == 1.0


def test_scratch_directories_are_removed_at_death_and_close(hostile_run) -> None:  # noqa: ANN001
    out, _ = hostile_run
    assert out["scratch"] and all("awm-world-" in p for p in out["scratch"])
    assert out["left_after_death"] == [] and out["scratch_left"] == []


def test_world_code_cannot_write_the_template_cache(hostile_run) -> None:  # noqa: ANN001
    out, _ = hostile_run
    result = out["poison"]
    assert result["outcome"][0] == "crash"  # the cache is read-only to tool calls
    _neighbours_unchanged(result)


def test_a_poisoned_cached_template_is_detected_and_rebuilt(hostile_run) -> None:  # noqa: ANN001
    out, _ = hostile_run
    assert out["poisoned_directly"] >= 1
    assert out["bodies_after_poisoning"] == ["seed"]


def test_shared_memory_is_one_area_per_worker(hostile_run) -> None:  # noqa: ANN001
    out, _ = hostile_run
    assert out["shm"]["outcome"][0] == "crash" and not out["shm_written"]
    _neighbours_unchanged(out["shm"])
