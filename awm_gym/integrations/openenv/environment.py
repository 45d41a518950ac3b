"""One instance of an AWM world as an OpenEnv ``Environment`` (openenv-core's own base class).

:class:`AWMEnvironment` is what ``awm env start --protocol openenv`` serves, one per session, and
what a user can also run in-process. Every observation and reward comes from the same runtime as
``gym.make("AWM/<world>-v0")``: same seed and actions, same bytes. Actions are
:class:`~awm_gym.integrations.openenv.models.AWMAction` (raw text or a structured tool call);
a malformed action is an observation with reward -1.0, never an error (AWM's rule), while a
``step`` outside an episode is a usage error (in-process it raises; served, the client gets an
``EXECUTION_ERROR`` reply naming it).

Two ways to run an instance:

- in-process (``AWMEnvironment("spotify")``): the env owns a one-instance runtime and runs it on
  the calling thread (``reset`` / ``step``, or their async forms);
- served: :mod:`awm_gym.integrations.openenv.server` gives each session an instance of one
  shared runtime whose calls run on the server's main thread (tool timeouts need it), through
  ``reset_async`` / ``step_async``, which openenv-core's server awaits.

Example:
    >>> env = AWMEnvironment("spotify")
    >>> obs = env.reset(seed=3, task_idx=0)
    >>> obs.task_idx, obs.done, env.state.step_count
    (0, False, 0)
    >>> obs = env.step(AWMAction(text="I cannot do this."))   # a final answer: verified
    >>> obs.done, obs.info["verifier_label"], obs.reward
    (True, 'others', 0.0)
    >>> obs.verdict.label, obs.verdict.scored, obs.verdict.success     # typed, on the wire too
    ('others', True, False)
    >>> sorted(name for name, _ in env.rubric.named_rubrics())
    ['code', 'judge']
    >>> [s["name"] for s in env.list_splits()]       # OpenEnv's task API (TaskProvider)
    ['all', 'train', 'val_tasks']
    >>> spec = env.get_task("val_tasks", 1)
    >>> env.reset(seed=0, split="val_tasks", index=1).task_idx == spec["task_idx"]
    True
    >>> env.close()

OpenEnv's task API (openenv 0.10's ``TaskProvider``: ``list_splits``, ``list_tasks``,
``num_tasks``, ``get_task``, ``get_task_range``) answers from the world's
:class:`~awm_gym.integrations.openenv.tasks.WorldTasks`: the tasks in splits ``all``,
``train``, ``val_tasks``, ``val_worlds`` (as ``awm train`` splits them); ``reset(split=...,
index=...)`` starts the ``index``-th task of a split. openenv 0.10's server serves the methods
under ``/<env name>/splits`` etc.; on openenv-core 0.3 they are plain methods.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from awm_gym.integrations.openenv.distribution import missing_openenv

try:
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import EnvironmentMetadata
except ImportError as e:  # the one-line error that names the extra
    raise missing_openenv(e) from e

from awm_gym.envs.config import EnvConfig
from awm_gym.envs.protocol import StepOutcome
from awm_gym.errors import EnvUsageError
from awm_gym.integrations.episodes import episode_result
from awm_gym.integrations.openenv.mcp import EpisodeTools
from awm_gym.integrations.openenv.models import AWMAction, AWMObservation, AWMState, AWMVerdict
from awm_gym.integrations.openenv.rubric import rubric_for
from awm_gym.integrations.openenv.tasks import WorldTasks
from awm_gym.worlds.splits import Split

__all__ = ["AWMEnvironment", "InstanceBackend"]


class InstanceBackend(Protocol):
    """Where an :class:`AWMEnvironment`'s instance lives (in-process, or a served slot)."""

    world: str
    config: EnvConfig
    title: str
    tools_text: str
    tools: list[dict[str, Any]]
    """The world's tools as MCP lists them (``name``, ``description``, ``inputSchema``)."""
    tasks: WorldTasks
    """The world's tasks and splits (OpenEnv's task API)."""

    def reset(self, seed: int, task_idx: int | None) -> tuple[str, dict[str, Any]]: ...
    def step(self, action: str) -> StepOutcome: ...
    async def reset_async(self, seed: int, task_idx: int | None) -> tuple[str, dict[str, Any]]: ...
    async def step_async(self, action: str) -> StepOutcome: ...
    def close(self) -> None: ...


class _LocalBackend:
    """A one-instance runtime owned by the env, run on the caller's thread."""

    def __init__(self, world: str, worlds_dir: str | None, config: EnvConfig,
                 exclude: str | None = None, split: Split | str | None = None) -> None:
        from awm_gym.envs.env import AWMEnv  # the in-process env's runtime, built its way
        from awm_gym.envs.registration import resolve_worlds

        world_set, [self.world] = resolve_worlds(worlds_dir, [world])
        self._env = AWMEnv(world_set=worlds_dir, worlds=[self.world], exclude=exclude,
                           **_config_kwargs(config))
        self.runtime, self.config = self._env.runtime, self._env.config
        self.title = self.world
        self.tools_text = self.runtime.tools_text(self.world)
        self.tools = self.runtime.tools(self.world)
        if isinstance(split, str):
            from awm_gym.worlds.splits import load_split

            split = load_split(split, world_set)
        self.tasks = WorldTasks.of(self.world, world_set, split, exclude)

    def reset(self, seed: int, task_idx: int | None) -> tuple[str, dict[str, Any]]:
        [(obs, info)] = self.runtime.reset([0], [seed], [task_idx], [None])
        return obs, info

    def step(self, action: str) -> StepOutcome:
        [out] = self.runtime.step([0], [action])
        return out

    async def reset_async(self, seed: int, task_idx: int | None) -> tuple[str, dict[str, Any]]:
        return self.reset(seed, task_idx)

    async def step_async(self, action: str) -> StepOutcome:
        return self.step(action)

    def close(self) -> None:
        self._env.close()


def _config_kwargs(config: EnvConfig) -> dict[str, Any]:
    return {name: getattr(config, name) for name in EnvConfig.__dataclass_fields__}


class AWMEnvironment(Environment[AWMAction, AWMObservation, AWMState]):
    """One instance of one world, as OpenEnv's ``Environment``.

    Args:
        world: the world to run (``awm list`` shows them).
        worlds_dir: its world set directory; None for the built-in worlds.
        config: episode limits, timeouts and rewards (an :class:`~awm_gym.EnvConfig`); None for
            the defaults.
        backend: where the instance lives; None runs one in this process (the server passes
            its own).
        exclude: an exclusion file (``awm check PATH --write-exclusions FILE``): its tasks are
            never drawn, and pinning one is refused (the in-process backend only).
        split: the :class:`~awm_gym.worlds.splits.Split` (or split file) whose subsets the task
            API lists; None: ``awm train``'s default split of the world set (the in-process
            backend only; a server passes its own).

    ``reset(seed=..., task_idx=..., episode_id=...)``: the seed picks the task unless
    ``task_idx`` pins it (None draws a seed from the env's own generator);
    ``reset(split=..., index=...)`` pins the ``index``-th task of a split instead.
    ``step(action)`` returns an :class:`AWMObservation` with ``reward``, ``done``, the
    in-process ``info`` and, on the step that ends the episode, its ``verdict``.
    ``mcp_client`` serves OpenEnv's ``/mcp`` routes (``tools/list``, ``tools/call``: a call is a
    turn of the episode), which OpenEnv's ``MCPToolClient`` speaks.
    """

    SUPPORTS_CONCURRENT_SESSIONS = True
    """Each session has its own instance (own database, clock and episode): sessions share
    nothing mutable."""

    backend: InstanceBackend

    def __init__(self, world: str = "spotify", worlds_dir: str | None = None,
                 config: EnvConfig | None = None, *,
                 backend: InstanceBackend | None = None, exclude: str | None = None,
                 split: Split | str | None = None) -> None:
        if backend is None:
            backend = _LocalBackend(world, worlds_dir, config or EnvConfig(), exclude, split)
        self.backend = backend
        super().__init__(rubric=rubric_for(backend.config))
        self.mcp_client = EpisodeTools(self)
        """What OpenEnv's server answers ``/mcp`` ``tools/list`` and ``tools/call`` with: the
        world's tools, each call a turn of this episode (:mod:`.mcp`)."""
        self._rng = np.random.default_rng()
        self._state = AWMState(world=backend.world)
        self._closed = False

    def __repr__(self) -> str:
        return (f"AWMEnvironment({self.backend.world!r}, episode={self._state.episodes}, "
                f"step={self._state.step_count})")

    # -- reset --------------------------------------------------------------------------------
    def _begin(self, seed: int | None, episode_id: str | None) -> int:
        self._check_open()
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)
                                 or seed < 0):
            raise EnvUsageError(f"reset(seed={seed!r}): use a non-negative int, or None.")
        self._reset_rubric()
        return int(self._rng.integers(0, 2**31 - 1)) if seed is None else seed

    def _started(self, seed: int, episode_id: str | None, obs: str, info: dict[str, Any]
                 ) -> AWMObservation:
        self._state = AWMState(
            episode_id=episode_id or uuid.uuid4().hex, step_count=0, world=self.backend.world,
            task_idx=int(info.get("task_idx", -1)), seed=seed, task=obs, episode_active=True,
            episodes=self._state.episodes + 1, last_reward=None)
        return AWMObservation(text=obs, done=False, reward=None, world=self.backend.world,
                              task_idx=self._state.task_idx, step=0,
                              tools_text=self.backend.tools_text, info=info)

    def _task_of(self, task_idx: int | None, split: str | None, index: int | None,
                 kwargs: dict[str, Any]) -> int | None:
        _no_extra(kwargs, "reset", _RESET_ARGS)
        if split is None and index is None:
            return task_idx
        if task_idx is not None or split is None or index is None:
            raise EnvUsageError(f"reset(task_idx={task_idx!r}, split={split!r}, index={index!r})"
                                ": pin a task either by task_idx, or by split and index "
                                "together (list_splits() names the splits).")
        try:
            return self.backend.tasks.task_idx(split, index)
        except IndexError as e:
            raise EnvUsageError(f"reset(): {e}") from None

    def reset(self, seed: int | None = None, episode_id: str | None = None,
              task_idx: int | None = None, split: str | None = None, index: int | None = None,
              **kwargs: Any) -> AWMObservation:
        """Start an episode; the observation's ``text`` is the task."""
        task_idx = self._task_of(task_idx, split, index, kwargs)
        seed = self._begin(seed, episode_id)
        obs, info = self.backend.reset(seed, task_idx)
        return self._started(seed, episode_id, obs, info)

    async def reset_async(self, seed: int | None = None, episode_id: str | None = None,
                          task_idx: int | None = None, split: str | None = None,
                          index: int | None = None, **kwargs: Any) -> AWMObservation:
        """:meth:`reset` for the server's event loop (the instance's work runs elsewhere)."""
        task_idx = self._task_of(task_idx, split, index, kwargs)
        seed = self._begin(seed, episode_id)
        obs, info = await self.backend.reset_async(seed, task_idx)
        return self._started(seed, episode_id, obs, info)

    # -- step ---------------------------------------------------------------------------------
    def _action_text(self, action: Any) -> str:
        self._check_open()
        if isinstance(action, dict):
            action = AWMAction.model_validate(action)
        if not isinstance(action, AWMAction):
            raise EnvUsageError(f"step(action): expected an AWMAction, got "
                                f"{type(action).__name__}; wrap the text: AWMAction(text=...).")
        if not self._state.episode_active:
            what = ("before the first reset" if self._state.episodes == 0 else
                    f"after episode {self._state.episodes} ended (autoreset is disabled)")
            raise EnvUsageError(f"step() {what}: call reset(...) first.")
        return action.as_text()

    def _stepped(self, action: AWMAction, out: StepOutcome) -> AWMObservation:
        done = bool(out.terminated or out.truncated)
        state = self._state
        state.step_count += 1
        state.episode_active = not done
        observation = AWMObservation(
            text=out.observation, done=done, reward=float(out.reward),
            terminated=bool(out.terminated), truncated=bool(out.truncated),
            world=self.backend.world, task_idx=state.task_idx, step=state.step_count,
            info=dict(out.info))
        observation.reward = self._apply_rubric(action, observation)
        state.last_reward = float(observation.reward)
        if done:
            observation.verdict = AWMVerdict.from_outcome(
                episode_result(out).label, observation.reward, observation.info)
        return observation

    def step(self, action: AWMAction, timeout_s: float | None = None,
             **kwargs: Any) -> AWMObservation:
        """Apply one action; ``timeout_s`` is not used (``EnvConfig.tool_timeout_s`` bounds each
        tool call)."""
        text = self._action_text(action)
        return self._stepped(action, self.backend.step(text))

    async def step_async(self, action: AWMAction, timeout_s: float | None = None,
                         **kwargs: Any) -> AWMObservation:
        """:meth:`step` for the server's event loop."""
        text = self._action_text(action)
        return self._stepped(action, await self.backend.step_async(text))

    # -- OpenEnv's task API (TaskProvider): side-effect free, works on a fresh env -----------
    def list_splits(self) -> list[dict[str, Any]]:
        """The world's splits: ``{"name", "type", "num_tasks", "description"}`` each."""
        return self.backend.tasks.list_splits()

    def list_tasks(self, split: str) -> list[dict[str, Any]]:
        """Every task spec of ``split`` (``id``, ``index``, ``task_idx``, ``task``, ``reset``)."""
        return self.backend.tasks.list_tasks(split)

    def num_tasks(self, split: str) -> int:
        """How many tasks ``split`` holds."""
        return self.backend.tasks.num_tasks(split)

    def get_task(self, split: str, index: int) -> dict[str, Any]:
        """The ``index``-th task spec of ``split`` (IndexError outside it)."""
        return self.backend.tasks.get_task(split, index)

    def get_task_range(self, split: str, start: int | None = None, stop: int | None = None
                       ) -> list[dict[str, Any]]:
        """The task specs of ``split[start:stop]``."""
        return self.backend.tasks.get_task_range(split, start, stop)

    # -- the rest -----------------------------------------------------------------------------
    @property
    def state(self) -> AWMState:
        """The session's episode bookkeeping (a copy)."""
        return self._state.model_copy()

    def get_metadata(self) -> EnvironmentMetadata:
        from awm_gym import __version__

        backend = self.backend
        return EnvironmentMetadata(
            name=f"awm-gym/{backend.world}",
            description=(f"Agent World Model world '{backend.world}' ({backend.title}): "
                         f"{len(backend.tasks.texts)} tasks. Actions are the model's text (or a "
                         "tool call); observations are the task, then each tool's result text; a "
                         "final answer is verified by the task's verifier."),
            version=__version__, author="awm-gym")

    def close(self) -> None:
        """Give the instance back. Safe to call twice."""
        if not self._closed:
            self._closed = True
            self.backend.close()

    def _check_open(self) -> None:
        if self._closed:
            raise EnvUsageError("this AWMEnvironment is closed; make a new one.")


_RESET_ARGS = ("seed", "episode_id", "task_idx", "split", "index")


def _no_extra(kwargs: dict[str, Any], method: str, valid: Sequence[str]) -> None:
    if kwargs:
        raise EnvUsageError(f"{method}(): unknown arguments {sorted(kwargs)}; valid: "
                            f"{', '.join(valid)}.")
