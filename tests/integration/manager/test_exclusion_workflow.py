"""From ``awm check --write-exclusions`` to training: the triage fixture set (every defect kind)
is checked by the real CLI, and the exclusion file it writes keeps the bad tasks out of
``make_vec`` (``AWM/mix-v0`` and single-world ids), ``split_worlds``, ``World.evaluate``,
``awm train``'s envs and the bridges' task lists. Real worlds, real SQLite, no mocks."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import awm_gym
from agents.policies.base import BasePolicy
from awm_gym import EnvUsageError, ExclusionsError, World
from awm_gym.worlds.exclusions import Exclusions, load_exclusions
from awm_gym.worlds.splits import split_worlds

REPO = Path(__file__).resolve().parents[3]
EXPECTED = {("broken_import", 0), ("triage_lab", 0), *(("unusable_tasks", t) for t in range(8))}
"""What the check must exclude: the world that cannot load (its one task), triage_lab's task
that is complete on the initial state, and every unusable_tasks task but the good one (8)."""
WIDTHS = (1, 2, 3, 5)


@pytest.fixture(scope="module")
def checked(triage_path: str, tmp_path_factory: pytest.TempPathFactory
            ) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path_factory.mktemp("exclusions") / "exclusions.json"
    done = subprocess.run(
        [sys.executable, "-m", "awm_gym.cli", "check", triage_path, "--write-exclusions",
         str(out), "--verifier-timeout", "5", "--tool-timeout", "5"],
        cwd=REPO, text=True, capture_output=True, timeout=600,
        env=dict(os.environ, COLUMNS="200"))  # the width lines are cut to
    return done, out


@pytest.fixture(scope="module")
def exclusions(checked: tuple[subprocess.CompletedProcess[str], Path]) -> Path:
    done, path = checked
    assert path.exists(), done.stderr
    return path


def blocks(stdout: str) -> dict[str, list[str]]:
    """World -> its finding lines, from ``awm check``'s text output."""
    out: dict[str, list[str]] = {}
    world = None
    for line in stdout.splitlines():
        if line.startswith("  "):
            out[world].append(line)
        elif ": " in line and " | tasks proved " in line:
            world = line.split(":")[0]
            out[world] = []
    return out


def test_check_prints_one_line_per_finding_kind_per_world(checked) -> None:
    done, _ = checked
    assert done.returncode == 2, done.stderr  # broken_import cannot load: an error
    by_world = blocks(done.stdout)
    assert set(by_world) == {"broken_import", "frozen_ledger", "schema_zoo", "triage_lab",
                             "unusable_tasks"}
    for world, lines in by_world.items():
        kinds = [re.match(r"  \w+\s+(\w+):", line).group(1) for line in lines]
        assert len(kinds) == len(set(kinds)), (world, lines)
    lines = {re.match(r"  \w+\s+(\w+):", ln).group(1): ln.split(": ", 1)[1]
             for ln in by_world["unusable_tasks"]}
    assert lines["no_verifier"] == ("2 of 9 tasks have no verifier: they cannot be scored "
                                    "(tasks 6, 7)")
    assert lines["verifier_unknown_schema"].startswith(
        "2 of 9 tasks have a verifier that reads a table or column the schema lacks (tasks 1, 2)")
    assert lines["create_key_exists"].startswith("2 of 9 tasks ask to create a row whose unique "
                                                 "key the seed rows already hold (tasks 3, 4)")
    assert lines["verifier_does_not_compile"].startswith(
        "task 0: the verifier does not compile: '(' was never closed")
    assert lines["complete_on_initial_state"].startswith("task 5: the verifier says complete")
    assert "wrote " in done.stderr and "10 task(s) of 3 world(s) excluded" in done.stderr


def test_the_file_names_each_task_with_its_reasons(exclusions: Path, triage_path: str) -> None:
    ex = load_exclusions(exclusions, triage_path)
    assert set(ex.reasons) == EXPECTED
    kinds = {pair: {r["kind"] for r in reasons} for pair, reasons in ex.reasons.items()}
    assert kinds[("broken_import", 0)] == {"load_error"}
    assert kinds[("triage_lab", 0)] == {"complete_on_initial_state"}
    assert kinds[("unusable_tasks", 0)] == {"verifier_does_not_compile"}
    assert kinds[("unusable_tasks", 1)] == kinds[("unusable_tasks", 2)] == {
        "verifier_unknown_schema"}
    assert "create_key_exists" in kinds[("unusable_tasks", 3)]
    assert kinds[("unusable_tasks", 4)] == {"create_key_exists"}
    assert kinds[("unusable_tasks", 5)] == {"complete_on_initial_state"}
    assert kinds[("unusable_tasks", 6)] == kinds[("unusable_tasks", 7)] == {"no_verifier"}
    assert set(ex.worlds) == {"broken_import", "frozen_ledger", "schema_zoo", "triage_lab",
                              "unusable_tasks"}


@pytest.fixture(scope="module")
def envs_for(triage_path: str, exclusions: Path
             ) -> Iterator[Callable[[int], gym.vector.VectorEnv]]:
    made: dict[int, gym.vector.VectorEnv] = {}

    def get(num_envs: int) -> gym.vector.VectorEnv:
        if num_envs not in made:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # frozen_ledger may be skipped: not ours here
                made[num_envs] = gym.make_vec("AWM/mix-v0", num_envs=num_envs,
                                              world_set=triage_path, exclude=str(exclusions),
                                              isolation="none")
        return made[num_envs]

    yield get
    for envs in made.values():
        envs.close()


def test_the_mix_leaves_out_excluded_tasks_and_says_how_many(envs_for) -> None:
    envs = envs_for(2)
    assert envs.unwrapped.excluded_tasks == len(EXPECTED)
    tasks = set(envs.unwrapped.runtime.tasks)
    assert not tasks & EXPECTED and ("unusable_tasks", 8) in tasks
    assert "broken_import" not in envs.unwrapped.runtime.worlds  # every task excluded


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(num_envs=st.sampled_from(WIDTHS), data=st.data())
def test_no_excluded_task_is_ever_reset_into(envs_for, num_envs: int,
                                             data: st.DataObject) -> None:
    envs = envs_for(num_envs)
    for _ in range(data.draw(st.integers(1, 3), label="resets")):
        seed = data.draw(st.one_of(st.none(), st.integers(0, 2**31 - num_envs),
                                   st.lists(st.integers(0, 2**31), min_size=num_envs,
                                            max_size=num_envs)), label="seed")
        mask = np.array(data.draw(st.lists(st.booleans(), min_size=num_envs, max_size=num_envs)
                                  .filter(any), label="mask"), dtype=np.bool_)
        _, info = envs.reset(seed=seed, options={"reset_mask": mask})
        drawn = {(str(w), int(t)) for w, t, m in zip(info["world"], info["task_idx"], mask,
                                                     strict=True) if m}
        assert not drawn & EXPECTED, drawn


def test_single_world_ids_honour_it_and_refuse_a_pinned_excluded_task(
        triage_path: str, exclusions: Path) -> None:
    awm_gym.register_worlds(triage_path, isolation="none")
    envs = gym.make_vec("AWM/unusable_tasks-v0", num_envs=2, exclude=str(exclusions))
    try:
        assert envs.unwrapped.runtime.tasks == (("unusable_tasks", 8),)
        _, info = envs.reset(seed=0)
        assert info["task_idx"].tolist() == [8, 8]
        with pytest.raises(EnvUsageError, match=re.escape("options['task_idx']=3")):
            envs.reset(seed=0, options={"task_idx": 3})
    finally:
        envs.close()
    env = gym.make("AWM/triage_lab-v0", exclude=str(exclusions))
    try:
        assert env.unwrapped.runtime.tasks == (("triage_lab", 1),)
    finally:
        env.close()
    with pytest.raises(EnvUsageError, match="every task of it is excluded"):
        gym.make_vec("AWM/broken_import-v0", num_envs=1, exclude=str(exclusions))


def test_split_worlds_leaves_excluded_tasks_in_no_subset(triage_path: str,
                                                         exclusions: Path) -> None:
    plain = split_worlds(triage_path, val_worlds=0.2, val_tasks=0.3, seed=1)
    split = split_worlds(triage_path, val_worlds=0.2, val_tasks=0.3, seed=1,
                         exclude=str(exclusions))
    assert not set(split.pairs()) & EXPECTED
    assert set(split.pairs()) == set(plain.pairs()) - EXPECTED  # the rest keep their subset
    for pair in split.pairs():
        assert split.subset_of(*pair) is plain.subset_of(*pair)


class GiveUp(BasePolicy):
    name = "give_up"

    def get_action(self, infos: dict) -> list[str | None]:
        return ["I give up." if a else None for a in infos["active"]]


def test_world_evaluate_runs_no_excluded_task_and_reports_the_count(
        triage_path: str, exclusions: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        world = World("AWM/mix-v0", num_envs=3, verbose=0, world_set=triage_path,
                      exclude=str(exclusions), isolation="none")
    with world:
        world.set_policy(GiveUp())
        result = world.evaluate(episodes=12, seed=0)
    ran = set(zip(result["worlds"], result["task_idx"], strict=True))
    assert ran and not ran & EXPECTED
    assert result["excluded_tasks"] == len(EXPECTED)


def test_awm_train_and_the_bridges_take_it(triage_path: str, exclusions: Path) -> None:
    from agents.config import SplitConfig, TrainConfig
    from agents.grpo.config import RolloutConfig
    from agents.pipeline import make_envs, make_split
    from awm_gym.integrations.episodes import EpisodeHost

    cfg = TrainConfig(rollout=RolloutConfig(world_set=triage_path, worlds=("unusable_tasks",
                                                                            "triage_lab"),
                                            exclude=str(exclusions)),
                      split=SplitConfig(val_worlds=0.0, val_tasks=0.5))
    split = make_split(cfg.split, cfg.rollout)
    assert not set(split.pairs()) & EXPECTED
    # with and without split
    for envs in (make_envs(cfg.rollout, 2, split, None), make_envs(cfg.rollout, 2)):
        try:
            assert not set(envs.unwrapped.runtime.tasks) & EXPECTED
        finally:
            envs.close()
    assert envs.unwrapped.excluded_tasks == 9  # without the split: the env left them out
    awm_gym.register_worlds(triage_path, isolation="none")
    host = EpisodeHost("AWM/unusable_tasks-v0", capacity=1, exclude=str(exclusions))
    try:
        assert host.task_indices() == (8,)
    finally:
        host.close()


def test_a_changed_world_makes_the_file_stale_naming_it(triage_path: str, exclusions: Path,
                                                        tmp_path: Path, copy_world_set) -> None:
    def edit(name: str, row: dict) -> None:
        if name == "gen_tasks.jsonl" and row["scenario"] == "Unusable Tasks":
            row["tasks"][8] = "Upgrade Kim to platinum."

    changed = copy_world_set(triage_path, tmp_path / "changed", edit)
    with pytest.raises(ExclusionsError, match=re.escape("changed: 'unusable_tasks'")):
        gym.make_vec("AWM/mix-v0", num_envs=1, world_set=str(changed), exclude=str(exclusions))
    assert isinstance(load_exclusions(exclusions), Exclusions)


def test_a_contained_worker_env_honours_it(triage_path: str, exclusions: Path) -> None:
    envs = gym.make_vec("AWM/mix-v0", num_envs=2, world_set=triage_path, worlds=["triage_lab"],
                        exclude=str(exclusions), num_workers=1)
    try:
        assert envs.unwrapped.runtime.tasks == (("triage_lab", 1),)
        _, info = envs.reset(seed=3)
        assert info["task_idx"].tolist() == [1, 1]
    finally:
        envs.close()


def test_the_trl_and_openenv_bridges_leave_excluded_tasks_out(triage_path: str,
                                                              exclusions: Path) -> None:
    pytest.importorskip("datasets")
    pytest.importorskip("openenv")
    from awm_gym.integrations.openenv.environment import AWMEnvironment
    from awm_gym.integrations.trl import make_environment, task_dataset

    awm_gym.register_worlds(triage_path, isolation="none")
    env_class = make_environment("AWM/triage_lab-v0", capacity=1, exclude=str(exclusions))
    try:
        assert task_dataset(env_class, seeds=[0, 1])["task_idx"] == [1, 1]
        assert task_dataset(env_class, task_indices=[0, 1])["task_idx"] == [1]
    finally:
        env_class.host.close()
    env = AWMEnvironment("unusable_tasks", triage_path, awm_gym.EnvConfig(isolation="none"),
                         exclude=str(exclusions))
    try:
        assert {env.reset(seed=s).task_idx for s in range(5)} == {8}
    finally:
        env.close()


def test_awm_split_takes_the_file(triage_path: str, exclusions: Path, tmp_path: Path) -> None:
    out = tmp_path / "split.json"
    done = subprocess.run([sys.executable, "-m", "awm_gym.cli", "split", triage_path,
                           "--val-worlds", "0", "--val-tasks", "0.5", "--exclude",
                           str(exclusions), "--out", str(out)],
                          cwd=REPO, text=True, capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert not set(awm_gym.load_split(out, triage_path).pairs()) & EXPECTED
