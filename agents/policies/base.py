"""``BasePolicy``: a convenience base for policies on awm_gym's policy protocol.

The protocol itself (:class:`awm_gym.Policy`: ``name``, ``set_env(env)``, ``set_seed(seed)``,
``get_action(infos)``, and what ``infos`` holds) is defined in :mod:`awm_gym.manager.policy`,
next to the World that drives it; it is re-exported here as ``agents.policies.Policy``.

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
from typing import Any

from awm_gym.manager import Policy

__all__ = ["Policy", "BasePolicy"]


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
