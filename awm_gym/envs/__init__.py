"""The environments: a runtime of world instances behind ``gym.make`` and ``gym.make_vec``.

``import awm_gym`` registers the worlds through :mod:`~awm_gym.envs.registration`; the runtime
(:mod:`~awm_gym.envs.runtime`), the process-wide prepared worlds (:mod:`~awm_gym.envs.prepared`)
and the envs (SQLAlchemy, the worlds' code) load when first used.
"""

from __future__ import annotations

from awm_gym.envs.config import EnvConfig, EpisodeConfig, ShardingConfig, coerce_workers
from awm_gym.envs.protocol import Runtime, StepOutcome
from awm_gym.envs.registration import (
    BUILTIN_WORLDS_DIR,
    MIX_NAME,
    NAMESPACE,
    get_world_set,
    register_worlds,
)
from awm_gym.lazy_exports import lazy_exports

__all__ = ["EnvConfig", "EpisodeConfig", "ShardingConfig", "coerce_workers", "Runtime",
           "StepOutcome",
           "BUILTIN_WORLDS_DIR", "MIX_NAME", "NAMESPACE", "get_world_set", "register_worlds",
           "WorldRuntime", "get_prepared_world",
           "get_world_of_set", "prepare_worlds", "probe_world", "probe_world_of_set",
           "world_is_cached", "AWMEnv", "AWMVectorEnv"]

__getattr__ = lazy_exports(__name__, {"runtime": ("WorldRuntime",),
                                      "prepared": ("get_prepared_world", "get_world_of_set",
                                                   "prepare_worlds", "probe_world",
                                                   "probe_world_of_set", "world_is_cached"),
                                      "env": ("AWMEnv",), "vector_env": ("AWMVectorEnv",)})
