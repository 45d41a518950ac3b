"""What the Gymnasium envs need from a runtime, and what a runtime returns per step.

Three runtimes satisfy :class:`Runtime`: :class:`~awm_gym.envs.runtime.WorldRuntime` (instances
in this process), :class:`~awm_gym.envs.shards.ShardedRuntime` (instances in worker processes)
and :class:`~awm_gym.remote.runtime.RemoteRuntime` (instances on a world server).
:class:`~awm_gym.envs.vector_env.AWMVectorEnv` and :class:`~awm_gym.envs.env.AWMEnv` talk to
nothing else.

Example:
    >>> import gymnasium as gym, awm_gym
    >>> envs = gym.make_vec("AWM/spotify-v0", num_envs=2)
    >>> isinstance(envs.runtime, Runtime)
    True
    >>> envs.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from awm_gym.envs.config import EnvConfig

__all__ = ["Runtime", "StepOutcome"]


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """What one instance returns from a step."""

    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Runtime(Protocol):
    """N instances of one or more worlds: reset, step, tools, databases, close.

    ``indices`` address instances ``0..num_instances-1``; every list argument and result is
    aligned with ``indices``. Actions are raw model text (``None`` is never passed: the vector
    env filters instances that are not stepped).
    """

    config: EnvConfig
    num_instances: int
    worlds: tuple[str, ...]
    tasks: tuple[tuple[str, int], ...]
    """Every ``(world, task_idx)`` a reset may pick (a split's subset narrows it)."""

    def reset(self, indices: Sequence[int], seeds: Sequence[int | None],
              task_idx: Sequence[int | None], worlds: Sequence[str | None]
              ) -> list[tuple[str, dict[str, Any]]]:
        """Start a new episode on each instance; ``(task text, info)`` per instance."""
        ...

    def step(self, indices: Sequence[int], actions: Sequence[Any]) -> list[StepOutcome]:
        """Apply one action per instance; one outcome per instance, in order."""
        ...

    def tools_text(self, world: str) -> str:
        """The ``list_tools`` reply of ``world``."""
        ...

    def tools(self, world: str) -> list[dict[str, Any]]:
        """``world``'s tools as MCP lists them (``name``, ``description``, ``inputSchema``)."""
        ...

    def instance_world(self, i: int) -> tuple[str, int]:
        """``(world, task_idx)`` of instance ``i``'s current episode (``("", -1)`` before)."""
        ...

    def snapshot(self, i: int) -> bytes | None:
        """Instance ``i``'s database as bytes, None where it cannot be read from here."""
        ...

    def template(self, world: str) -> bytes | None:
        """``world``'s initial database as bytes (what every reset starts from), None where it
        cannot be read from here. With :meth:`snapshot` it gives an episode's database diff."""
        ...

    def close(self) -> None:
        """Release every instance and worker. Safe to call twice."""
        ...
