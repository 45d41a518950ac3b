"""The policy protocol shared by :class:`awm_gym.World` and every policy in this package.

A policy turns the World's batched ``infos`` into one text action per instance::

    policy.set_env(world.envs)      # once, when attached: the vector env (tools, world set)
    policy.set_seed(seed)           # before a run: makes sampling reproducible
    actions = policy.get_action(infos)

``infos`` is the vector env's latest batched info dict plus the keys the World adds (see
:mod:`awm_gym.info_keys`): ``observation``, ``task``, ``world``, ``task_idx``, ``seed``,
``active`` (needs an action now), ``episode_restarted`` (first action of a new episode: a
stateful policy must forget that instance's past) and ``episode_idx``. Each is an array with
one entry per instance. ``get_action`` returns a sequence of ``num_envs`` entries: a string for
every active instance; whatever it returns for inactive ones is ignored (the World sends None).

Example:
    >>> class Parrot(BasePolicy):
    ...     name = "parrot"
    ...     def get_action(self, infos):
    ...         return [f"You said: {o}" if a else None
    ...                 for o, a in zip(infos["observation"], infos["active"])]
    >>> import numpy as np
    >>> Parrot().get_action({"observation": np.array(["hi", "x"], dtype=object),
    ...                      "active": np.array([True, False])})
    ['You said: hi', None]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

__all__ = ["Policy", "BasePolicy"]


@runtime_checkable
class Policy(Protocol):
    """What :class:`awm_gym.World` needs from a policy."""

    name: str

    def set_env(self, env: Any) -> None:
        """Attach the vector env the policy will act in (called by ``World.set_policy``)."""

    def set_seed(self, seed: int | None) -> None:
        """Seed the policy's own randomness (called by ``World.evaluate`` / ``record_dataset``)."""

    def get_action(self, infos: dict[str, Any]) -> Sequence[str | None]:
        """One action per instance; only entries where ``infos['active']`` is True are used."""


class BasePolicy:
    """Convenience base: stores the env and the seed; subclasses implement ``get_action``."""

    name = "base"

    def __init__(self) -> None:
        self.env: Any = None
        self.seed: int | None = None

    def set_env(self, env: Any) -> None:
        self.env = env

    def set_seed(self, seed: int | None) -> None:
        self.seed = seed

    def get_action(self, infos: dict[str, Any]) -> Sequence[str | None]:
        raise NotImplementedError(f"{type(self).__name__} must implement get_action(infos)")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
