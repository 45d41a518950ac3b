"""Register worlds as Gymnasium ids: ``AWM/<world>-v0`` for each world, ``AWM/mix-v0`` for many.

The built-in world set registers at ``import awm_gym``; :func:`register_worlds` registers any
directory in the AWM format (the public AgentWorldModel-1K files, ``awm gen`` output).

Example:
    >>> import gymnasium as gym, awm_gym
    >>> "AWM/spotify-v0" in gym.registry
    True
"""

from __future__ import annotations

import logging
import os
import threading
import warnings
from typing import Any

from awm_gym.errors import UnknownWorldError, WorldSkippedWarning
from awm_gym.worlds.hub import resolve_world_set
from awm_gym.worlds.records import BUILTIN_WORLDS_DIR  # re-exported: the public name
from awm_gym.worlds.records import normalize_scenario_name
from awm_gym.worlds.template_db import default_cache_dir
from awm_gym.worlds.world_set import WorldSet, load_world_set

logger = logging.getLogger(__name__)

__all__ = ["register_worlds", "get_world_set", "BUILTIN_WORLDS_DIR", "NAMESPACE", "MIX_NAME"]

NAMESPACE = "AWM"
MIX_NAME = "mix"
REMOTE_NAME = "remote"
RESERVED_NAMES = (MIX_NAME, REMOTE_NAME)
"""World names whose ids ``AWM/mix-v0`` / ``AWM/remote-v0`` are taken by the package."""

_SETS: dict[str, WorldSet] = {}
_SETS_LOCK = threading.Lock()


MAX_LOADED_WORLDS = 64
"""Parsed worlds a world set keeps in memory (least recently used dropped, parsed again when
needed): what runs needs only each world's entry, template and catalogue, not its rows."""


def get_world_set(path: str | os.PathLike | None = None, *,
                  cache_dir: str | os.PathLike | None = None) -> WorldSet:
    """The world set at ``path`` (built-ins when None; a Hugging Face dataset id
    ``org/name[@revision]`` is fetched into the Hub cache first), indexed once per process and
    parsed world by world as worlds are used (``load_world_set(..., lazy=True)``); what a parse
    learns is cached in ``cache_dir``, by default the template cache directory
    (``$AWM_GYM_CACHE``, see :func:`~awm_gym.worlds.template_db.default_cache_dir`). A shard
    worker names its caller's cache: it starts with a scrubbed environment, where the default
    would be its empty scratch directory (every world parsed again at each start)."""
    key = os.path.realpath(resolve_world_set(path, argument="world_set") if path is not None
                           else BUILTIN_WORLDS_DIR)
    with _SETS_LOCK:
        world_set = _SETS.get(key)
        if world_set is None:
            world_set = _SETS[key] = load_world_set(  # logs the problems
                key, lazy=True, cache_dir=default_cache_dir() if cache_dir is None else cache_dir,
                max_loaded=MAX_LOADED_WORLDS)
        return world_set


def env_id(world: str, namespace: str = NAMESPACE) -> str:
    return f"{namespace}/{world}-v0"


def register_worlds(path: str | os.PathLike, *, namespace: str = NAMESPACE,
                    **env_defaults: Any) -> list[str]:
    """Register every world of the world set at ``path``; returns the ids registered.

    ``path`` is a directory or a Hugging Face dataset id, ``org/name[@revision]``
    (``register_worlds("Snowflake/AgentWorldModel-1K")``): the dataset's files are fetched into
    the Hub cache once (offline, the cached copy is used), see :mod:`awm_gym.worlds.hub`.

    ``env_defaults`` become the ids' default ``gym.make`` keyword arguments (fields of
    :class:`~awm_gym.envs.config.EnvConfig`), e.g. ``isolation="none"`` for a world set whose
    code you trust (it then runs in-process, uncontained; see docs/runtime.md).

    Each world becomes ``<namespace>/<world>-v0`` with a single-env entry point
    (:class:`~awm_gym.envs.env.AWMEnv`) and a batched vector entry point
    (:class:`~awm_gym.envs.vector_env.AWMVectorEnv`). Worlds with problems in required parts are left
    out (their problems are logged and listed in ``get_world_set(path).problems``).
    Re-registering an id replaces it.

    Raises:
        WorldSetFormatError: ``path`` is not a world set (a required file is missing).
    """
    import gymnasium as gym

    world_set = get_world_set(path)
    root = world_set.root
    taken = {(spec.namespace, spec.name) for spec in gym.registry.values()}
    ids = []
    for name in world_set.names():
        if name in RESERVED_NAMES:
            logger.warning("world %r in %s clashes with %s/%s-v0; use it through AWM/mix-v0 "
                           "with worlds=[%r]", name, root, namespace, name, name)
            continue
        gid = env_id(name, namespace)
        if gid in gym.registry:
            del gym.registry[gid]
        spec = dict(id=gid, entry_point="awm_gym.envs.env:AWMEnv",
                    vector_entry_point="awm_gym.envs.vector_env:AWMVectorEnv",
                    kwargs={**env_defaults, "world_set": root, "worlds": [name]},
                    disable_env_checker=True)
        if (namespace, name) in taken or gym.envs.registration.current_namespace is not None:
            gym.register(**spec)  # another version, or a plugin namespace: gym checks
        else:  # gym.register's own check scans the whole registry: O(n^2) for 1,000 worlds
            gym.registry[gid] = gym.envs.registration.EnvSpec(**spec)
        ids.append(gid)
    return ids


def resolve_worlds(world_set_path: str | None, worlds: Any) -> tuple[WorldSet, list[str]]:
    """Load the world set and check the requested world names (all worlds when None).

    One bad row costs one world: with ``worlds=None`` (``AWM/mix-v0``) or several names, a
    world the set cannot load is left out with a
    :class:`~awm_gym.errors.WorldSkippedWarning` naming its first problem (file, line, fix).

    Raises:
        UnknownWorldError: no world selected, a name the set does not define, or the one world
            asked for cannot be loaded (the message names its problem).
    """
    world_set = get_world_set(world_set_path)
    if worlds is None:
        for name in world_set.broken_names():
            _warn_left_out(world_set, name)
        return world_set, world_set.names()
    names = [worlds] if isinstance(worlds, str) else list(worlds)
    if not names:
        raise UnknownWorldError(f"No worlds selected from {world_set.root}; pass worlds=[...] "
                                f"with names from: {', '.join(world_set.names())}.")
    if len(names) == 1:
        return world_set, [world_set.entry(names[0]).name]
    resolved = []
    for name in names:
        try:
            resolved.append(world_set.entry(name).name)
        except UnknownWorldError:
            if normalize_scenario_name(name) not in world_set.broken_names():
                raise  # a name the set does not have is the caller's mistake
            _warn_left_out(world_set, name)
    if not resolved:
        raise UnknownWorldError(f"None of the worlds {names} of {world_set.root} can be loaded; "
                                "WorldSet.problems says why.")
    return world_set, resolved


def _warn_left_out(world_set: WorldSet, name: str) -> None:
    key = normalize_scenario_name(name)
    problems = world_set.problems_for(key)
    first = os.path.join(world_set.root, str(problems[0])) if problems else "no problem recorded"
    more = (f" ({len(problems) - 1} more: WorldSet.problems_for({key!r}))"
            if len(problems) > 1 else "")
    warnings.warn(f"Leaving world {key!r} out of this env: it cannot be loaded: {first}{more}",
                  WorldSkippedWarning, stacklevel=4)


def _register_builtins() -> None:
    import gymnasium as gym

    remote = env_id(REMOTE_NAME)  # a world served by `awm env start`; needs url=...
    if remote not in gym.registry:
        gym.register(id=remote, entry_point="awm_gym.remote:RemoteEnv",
                     vector_entry_point="awm_gym.remote:RemoteVectorEnv",
                     disable_env_checker=True)
    if not os.path.exists(os.path.join(BUILTIN_WORLDS_DIR, "gen_envs.jsonl")):
        return
    register_worlds(BUILTIN_WORLDS_DIR)
    mix = env_id(MIX_NAME)
    if mix not in gym.registry:
        gym.register(id=mix, entry_point="awm_gym.envs.env:AWMEnv",
                     vector_entry_point="awm_gym.envs.vector_env:AWMVectorEnv",
                     kwargs={"world_set": None, "worlds": None}, disable_env_checker=True)
