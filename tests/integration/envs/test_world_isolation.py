"""``isolation="world"``: a world's code cannot reach another world's databases.

The world set (tests/fixtures/make_cross_world.py) holds a hostile world whose
``wipe_neighbours`` tool finds every SQLite connection of its process (``gc.get_objects()``) and
empties every table, and a benign world. With each world in workers of its own, the benign
world's observations and rewards are those of a run where the hostile tool did nothing; the
hostile world's own other instances share its worker and are wiped (documented: instances of
one world share a worker). Under ``isolation="process"`` (the default for world sets from disk)
the worlds of a mix share workers, and the benign world is wiped too: the default's limit,
stated in docs/runtime.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from awm_gym import World
from awm_gym.envs.task_choice import TaskChooser
from awm_gym.envs.vector_env import AWMVectorEnv

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fixtures"))
from make_cross_world import BENIGN, HOSTILE, write_cross_world  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux workers")


def call(tool: str, **arguments: object) -> str:
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


ADD, COUNT, WIPE = call("add_row", body="hello"), call("count_rows"), call("wipe_neighbours")
FORGE = call("forge_answer")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(write_cross_world(tmp_path_factory.mktemp("cross")))


def _play(root: str, hostile_turn: str, **options: Any) -> list[Any]:
    """Instances 0 and 1 run the hostile world, 2 the benign one: 1 and 2 add a row, 0 plays
    ``hostile_turn``, then 1 and 2 count their rows and answer."""
    envs = AWMVectorEnv(num_envs=3, world_set=root, max_episode_steps=10, **options)
    try:
        envs.reset(seed=[0, 1, 2], options={"world": [HOSTILE, HOSTILE, BENIGN]})
        envs.step([COUNT, ADD, ADD])
        first, *_ = envs.step([hostile_turn, None, None])
        obs, _, _, _, _ = envs.step([None, COUNT, COUNT])
        _, reward, terminated, _, info = envs.step([None, "I added it.", "I added it."])
        return [first[0], obs[1], obs[2], reward.tolist()[1:], terminated.tolist()[1:],
                info["verifier_label"].tolist()[1:]]
    finally:
        envs.close()


def test_a_world_cannot_wipe_another_worlds_database_under_world_isolation(root: str) -> None:
    calm = _play(root, COUNT, isolation="world")
    attacked = _play(root, WIPE, isolation="world")
    assert json.loads(attacked[0])["result"].endswith("databases wiped")  # its own worker's
    # the benign world: the same observations, rewards and labels as with no attack
    assert [attacked[2]] + [v[1] for v in attacked[3:]] == [calm[2]] + [v[1] for v in calm[3:]]
    assert json.loads(attacked[2]) == json.loads(calm[2]) == {"result": "2"}
    assert attacked[3][1] == calm[3][1] == 1.0
    assert attacked[5][1] == calm[5][1] == "complete"
    # the hostile world's own other instance shares its worker: wiped (documented)
    assert json.loads(calm[1]) == {"result": "2"} and json.loads(attacked[1]) == {"result": "0"}
    assert attacked[3][0] == 0.0 and attacked[5][0] == "others"


def test_under_process_isolation_worlds_of_a_mix_share_a_worker(root: str) -> None:
    """The default's limit (docs/runtime.md): one worker holds both worlds' instances."""
    attacked = _play(root, WIPE, isolation="process", num_workers=1)
    assert json.loads(attacked[0])["result"].endswith("databases wiped")
    assert json.loads(attacked[2]) == {"result": "0"} and attacked[3][1] == 0.0


def _forge(root: str, forged_turn: str, **options: Any) -> list[Any]:
    """Instances 0 and 1 run the hostile world, 2 the benign one, all three acting every step:
    add, then ``forged_turn`` for 0 (the others add), count, answer; an instance whose episode
    ended is passed None. Returns the observations of the first three steps, then the last
    step's rewards, whether each episode ended truncated, the last step's verifier labels and
    each instance's worker error (``step()`` must not raise)."""
    envs = AWMVectorEnv(num_envs=3, world_set=root, max_episode_steps=10, **options)
    try:
        envs.reset(seed=[0, 1, 2], options={"world": [HOSTILE, HOSTILE, BENIGN]})
        seen, ended, errors = [], [False] * 3, [None] * 3
        reward = label = None
        for actions in ([ADD, ADD, ADD], [forged_turn, ADD, ADD], [COUNT, COUNT, COUNT],
                        ["Done."] * 3):
            obs, reward, terminated, truncated, info = envs.step(
                [None if done else a for a, done in zip(actions, ended, strict=True)])
            seen.append(list(obs))
            for i in range(3):
                if info.get("_worker_error", [False] * 3)[i]:
                    errors[i] = str(info["worker_error"][i])
                ended[i] = ended[i] or bool(truncated[i]) and not terminated[i]
            label = info.get("verifier_label", [None] * 3)
        return [*seen[:3], reward.tolist(), ended, list(label), errors]
    finally:
        envs.close()


def test_an_answer_forged_with_the_request_id_stays_in_its_worlds_workers(root: str) -> None:
    """World code that reads the request id from its worker's memory answers for the whole
    request in flight: its worker's instances read the forged answer, and at the next request
    the worker's own answer (the old id) ends that worker's episodes, named and unscored
    (docs/runtime.md: deliberate). Under ``isolation="world"`` that worker holds only the
    forging world's instances: the benign world's episode is the one a run without the forgery
    plays, to its reward."""
    calm = _forge(root, COUNT, isolation="world")
    forged = _forge(root, FORGE, isolation="world")
    assert [o[2] for o in forged[:3]] == [o[2] for o in calm[:3]]  # benign: every observation
    assert json.loads(forged[2][2]) == {"result": "3"}
    assert forged[1][:2] == ["forged", "forged"]  # the forging world's worker took it
    assert forged[3][2] == calm[3][2] == 1.0 and forged[5][2] == calm[5][2] == "complete"
    assert forged[6][2] is None and forged[4][2] is False
    # the forging world's own instances: ended when its worker's own answer came late
    assert forged[6][:2] == ["broke the reply protocol"] * 2 and forged[4][:2] == [True, True]
    assert calm[6] == [None] * 3


def test_under_process_isolation_a_forged_answer_ends_the_shared_workers_episodes(root: str
                                                                                  ) -> None:
    """The default's limit (docs/runtime.md): with the worlds of a mix in one worker, the
    benign instance reads the forged answer too, and its episode ends (named, unscored), not
    scored on a forged observation; ``step()`` raises nothing."""
    forged = _forge(root, FORGE, isolation="process", num_workers=1)
    assert forged[1] == ["forged"] * 3
    assert forged[6] == ["broke the reply protocol"] * 3 and forged[4] == [True] * 3


class _Script:
    """Hostile world: count, then wipe, then answer; benign world: add, count, answer."""

    name = "cross_world_script"
    TURNS = {HOSTILE: [COUNT, WIPE, "Done."], BENIGN: [ADD, COUNT, "I added it."]}

    def __init__(self) -> None:
        self.turn: dict[int, int] = {}

    def set_env(self, env: Any) -> None:
        pass

    def set_seed(self, seed: int | None) -> None:
        pass

    def get_action(self, infos: dict[str, Any]) -> list[str | None]:
        actions: list[str | None] = []
        for i, (active, world) in enumerate(zip(infos["active"], infos["world"], strict=True)):
            if infos["episode_restarted"][i]:
                self.turn[i] = 0
            if not active:
                actions.append(None)
                continue
            actions.append(self.TURNS[world][self.turn[i]])
            self.turn[i] += 1
        return actions


def _benign_reward(root: str, seed: int, **options: Any) -> float:
    with World("AWM/mix-v0", num_envs=2, verbose=0, world_set=root, **options) as world:
        world.set_policy(_Script())
        result = world.evaluate(episodes=2, seed=seed, eval_keys=["world"])
    rewards = dict(zip(result["world"], result["rewards"], strict=True))
    assert set(rewards) == {HOSTILE, BENIGN}
    return rewards[BENIGN]


def test_world_evaluate_scores_the_benign_world_as_if_alone(root: str) -> None:
    chooser = TaskChooser(lambda w: ["task"], [(HOSTILE, 0), (BENIGN, 0)])
    seed = next(s for s in range(100)
                if {chooser.choose(s, None, None)[0], chooser.choose(s + 1, None, None)[0]}
                == {HOSTILE, BENIGN})  # one episode of each world, side by side
    assert _benign_reward(root, seed, isolation="world") == 1.0
    assert _benign_reward(root, seed, isolation="process", num_workers=1) == 0.0


def test_world_isolation_matches_the_in_process_runtime(root: str) -> None:
    """Same seeds and actions, same observations, rewards and infos as one process."""
    runs = []
    for options in ({"isolation": "none", "num_workers": 0}, {"isolation": "world"}):
        envs = AWMVectorEnv(num_envs=4, world_set=root, **options)
        try:
            obs, info = envs.reset(seed=7)
            run: list[Any] = [obs, {k: np.asarray(v).tolist() for k, v in info.items()}]
            for actions in ([ADD, COUNT, ADD, COUNT], ["Done."] * 4):
                obs, reward, terminated, truncated, info = envs.step(actions)
                run.append((obs, reward.tolist(), terminated.tolist(), truncated.tolist(),
                            {k: np.asarray(v).tolist() for k, v in sorted(info.items())}))
            runs.append(run)
        finally:
            envs.close()
    assert runs[1] == runs[0]
    assert set(runs[0][1]["world"]) == {HOSTILE, BENIGN}


def test_a_single_env_over_a_mix_runs_each_world_in_its_own_process(root: str) -> None:
    """``gym.make`` (one instance whose episodes change worlds) keeps the worlds apart too: code
    a hostile episode leaves in its process never shares one with a benign episode."""
    import gymnasium as gym

    env = gym.make("AWM/mix-v0", world_set=root, isolation="world")
    try:
        runtime = env.unwrapped.runtime
        pids = {}
        for world in (HOSTILE, BENIGN):
            env.reset(seed=0, options={"world": world})
            obs, *_ = env.step(COUNT)
            assert json.loads(obs) == {"result": "1"}
            pids[world] = runtime._runtimes[world]._shards[0].worker.proc.pid
        assert pids[HOSTILE] != pids[BENIGN]
    finally:
        env.close()
