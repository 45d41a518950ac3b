"""awm_gym: Agent World Model worlds as fast, batched Gymnasium environments.

Importing the package registers the built-in worlds (``AWM/spotify-v0``, ``AWM/mix-v0``).

Example:
    >>> import gymnasium as gym, awm_gym
    >>> env = gym.make("AWM/spotify-v0")
    >>> obs, info = env.reset(seed=0)
    >>> isinstance(obs, str)
    True
    >>> env.close()
"""

from __future__ import annotations

import logging

from awm_gym.envs.config import EnvConfig
from awm_gym.envs.registration import BUILTIN_WORLDS_DIR, get_world_set, register_worlds
from awm_gym.manager.policy import Policy
from awm_gym.errors import (
    AWMGymError,
    EnvUsageError,
    ExclusionsError,
    SplitError,
    SplitMismatchWarning,
    ToolHostError,
    UnknownWorldError,
    VerifierError,
    WorldLoadError,
    WorldSetFormatError,
    WorldSkippedWarning,
)
from awm_gym.scoring.rewards import RewardConfig
from awm_gym.worlds.exclusions import Exclusions, load_exclusions
from awm_gym.worlds.splits import Split, Subset, load_split, split_worlds, world_set_hash
from awm_gym.worlds.world_set import WorldSet, load_world_set, normalize_scenario_name

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "AWMGymError", "BUILTIN_WORLDS_DIR", "EnvConfig", "EnvUsageError", "RewardConfig",
    "ToolHostError", "UnknownWorldError", "VerifierError", "WorldLoadError", "WorldSet",
    "WorldSetFormatError", "WorldSkippedWarning", "get_world_set", "load_world_set", "normalize_scenario_name",
    "register_worlds", "check_world", "World", "Split", "SplitError", "SplitMismatchWarning",
    "Subset", "load_split", "split_worlds", "world_set_hash", "Exclusions", "ExclusionsError",
    "load_exclusions", "Policy",
]

__version__ = "0.1.0"


def __getattr__(name: str):  # noqa: ANN202 - PEP 562: keep `import awm_gym` light
    if name == "World":
        from awm_gym.manager.world import World

        return World
    raise AttributeError(f"module 'awm_gym' has no attribute {name!r}")


def check_world(*args, **kwargs):  # noqa: ANN002, ANN003 - thin lazy alias, see awm_gym.manager.check
    """Check a world set; see :func:`awm_gym.manager.check.check_world`."""
    from awm_gym.manager.check import check_world as _check_world

    return _check_world(*args, **kwargs)


from awm_gym.envs.registration import _register_builtins  # noqa: E402

_register_builtins()
