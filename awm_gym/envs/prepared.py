"""The process-wide prepared worlds: each world's code runs once per process, its template once.

A world is prepared (its template database built or read from the cache, its code executed,
its tool catalogue read) the first time an env of this process uses it; every later env and
instance shares that copy. A world that cannot be prepared is tried once: the failure is
remembered and raised again at once. Code from outside the built-in set is first imported in
a probe subprocess (:mod:`awm_gym.tools.import_probe`).

Example:
    >>> import awm_gym
    >>> from awm_gym.envs import EnvConfig
    >>> world = get_prepared_world(awm_gym.get_world_set()["spotify"], EnvConfig())
    >>> world is get_prepared_world(awm_gym.get_world_set()["spotify"], EnvConfig())
    True
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from awm_gym.boundary import describe, reraise_as
from awm_gym.envs.config import EnvConfig
from awm_gym.errors import UnknownWorldError, WorldLoadError, WorldSkippedWarning
from awm_gym.tools.catalogue import CatalogueCache
from awm_gym.tools.host import PreparedWorld, load_host_on, prepare_world
from awm_gym.tools.import_probe import (
    is_builtin_world_dir,
    probe_marker,
    probe_world_import,
)
from awm_gym.worlds.clock import FrozenClock
from awm_gym.worlds.records import WorldDef
from awm_gym.worlds.template_db import TemplateCache
from awm_gym.worlds.world_set import WorldSet

__all__ = ["get_prepared_world", "get_world_of_set", "prepare_worlds", "probe_world",
           "probe_world_of_set", "world_is_cached"]

_PREPARED: dict[tuple[str, str], PreparedWorld] = {}
_FAILED: dict[tuple[str, str], str] = {}  # a world that cannot be prepared is tried once
_PREPARED_LOCK = threading.Lock()


def get_prepared_world(world: WorldDef, config: EnvConfig) -> PreparedWorld:
    """The process-wide prepared copy of ``world`` (its code runs once per process).

    Code from outside the built-in set is first imported in a subprocess with a timeout
    (:mod:`awm_gym.tools.import_probe`), so a world that hangs or exits at import raises a
    ``WorldLoadError`` naming it instead of hanging or ending this process.

    Raises:
        WorldLoadError: the world cannot be prepared (the message names it and the cause); the
            failure is remembered, so later calls raise at once.
    """
    key = (world.content_hash, config.clock)
    with _PREPARED_LOCK:
        prepared = _PREPARED.get(key)
        if prepared is None:
            if key in _FAILED:
                raise WorldLoadError(_FAILED[key])
            try:
                _probe(world, config)
                clock = None if config.clock is None else FrozenClock(config.clock)
                prepared = prepare_world(world, clock=clock,
                                         cache=TemplateCache(config.cache_dir),
                                         timeout_s=config.tool_timeout_s)
            except WorldLoadError as e:
                _FAILED[key] = str(e)
                raise
            _PREPARED[key] = prepared
        return prepared


def get_world_of_set(world_set: WorldSet, name: str, config: EnvConfig,
                     warm_hash: str | None = None) -> PreparedWorld:
    """Like :func:`get_prepared_world`, for world ``name`` of ``world_set``, without parsing its
    rows or executing its code when its template and catalogue are cached (and, for code from
    outside the built-in set, its import probe passed): those are then loaded when first
    read, and the code is executed when a tool is first called. Otherwise the world is
    prepared now, as :func:`get_prepared_world` does (and cached for next time).
    ``warm_hash``: the world's content hash when the caller already found it cached (a shard's
    parent sends those): then nothing is read until the world is used.

    Raises:
        WorldLoadError: as :func:`get_prepared_world`.
    """
    content_hash = world_set.content_hash(name) if warm_hash is None else warm_hash
    key = (content_hash, config.clock)
    with _PREPARED_LOCK:
        prepared = _PREPARED.get(key)
        if prepared is not None:
            return prepared
        if key in _FAILED:
            raise WorldLoadError(_FAILED[key])
        cache = TemplateCache(config.cache_dir)
        clock = None if config.clock is None else FrozenClock(config.clock)
        if warm_hash is not None or _is_cached(world_set, content_hash, config):
            def load_template() -> tuple[bytes, Any]:
                entry = cache.load(TemplateCache.key(content_hash, clock))
                if entry is None:  # gone, or changed since it was written: build it again
                    _probe(world_set[name], config)
                    rebuilt = prepare_world(world_set[name], clock=clock, cache=cache,
                                            timeout_s=config.tool_timeout_s)
                    return rebuilt.template, rebuilt.report
                return entry

            def load_catalogue() -> Any:
                catalogues = CatalogueCache(cache.directory)
                catalogue = catalogues.load(CatalogueCache.key(content_hash))
                return catalogue if catalogue is not None else prepared.host.catalogue

            def load_host(world: PreparedWorld) -> Any:
                wdef = world_set[name]
                with reraise_as(WorldLoadError,
                                lambda e: f"World {name!r} cannot be loaded: {describe(e)}"):
                    _probe(wdef, config)
                    return load_host_on(wdef, world.template, world.report,
                                        config.tool_timeout_s, world.catalogue)

            prepared = PreparedWorld(name, load_template=load_template,
                                     load_catalogue=load_catalogue, load_host=load_host)
            _PREPARED[key] = prepared
            return prepared
    return get_prepared_world(world_set[name], config)


def world_is_cached(world_set: WorldSet, name: str, config: EnvConfig) -> bool:
    """Whether world ``name`` can start without being built: its template and catalogue are
    cached and (code from outside the built-in set) its import probe passed."""
    return _is_cached(world_set, world_set.content_hash(name), config)


_CACHED: set[tuple[str, str, str | None, str]] = set()  # found complete: cache entries stay


def _is_cached(world_set: WorldSet, content_hash: str, config: EnvConfig) -> bool:
    memo = (content_hash, str(config.cache_dir), config.clock, world_set.root)
    if memo in _CACHED:
        return True
    builtin = is_builtin_world_dir(world_set.root)
    cache = TemplateCache(config.cache_dir)
    clock = None if config.clock is None else FrozenClock(config.clock)
    found = (cache.has(TemplateCache.key(content_hash, clock))
             and CatalogueCache(cache.directory).has(CatalogueCache.key(content_hash))
             and (builtin or probe_marker(cache.directory, content_hash).exists()))
    if found:
        _CACHED.add(memo)
    return found


def probe_world(world: WorldDef, config: EnvConfig) -> None:
    """Import-probe ``world`` now (:mod:`awm_gym.tools.import_probe`; built-in worlds are not
    probed). A failure is remembered: :func:`get_prepared_world` then raises it at once, without
    starting another probe (a contained worker probes before it gives up starting processes).

    Raises:
        WorldLoadError: the import hangs, exits or fails.
    """
    with _PREPARED_LOCK:
        key = (world.content_hash, config.clock)
        if key in _FAILED:
            raise WorldLoadError(_FAILED[key])
        try:
            _probe(world, config)
        except WorldLoadError as e:
            _FAILED[key] = str(e)
            raise


def probe_world_of_set(world_set: WorldSet, name: str, config: EnvConfig) -> None:
    """:func:`probe_world` for world ``name`` of ``world_set``; when its probe passed before
    (the marker in the cache) this reads neither the world's rows nor starts a process."""
    if is_builtin_world_dir(world_set.root):
        return
    content_hash = world_set.content_hash(name)
    if probe_marker(TemplateCache(config.cache_dir).directory, content_hash).exists():
        return
    probe_world(world_set[name], config)


def _probe(world: WorldDef, config: EnvConfig) -> None:
    if not is_builtin_world_dir(world.source_dir):
        probe_world_import(world.name, world.full_code, world.content_hash,
                           timeout_s=config.import_timeout_s,
                           cache_dir=TemplateCache(config.cache_dir).directory,
                           scratch_mb=config.scratch_quota_mb)


def prepare_worlds(world_set: Any, names: Sequence[str], config: EnvConfig,
                   warm: Mapping[str, str] | None = None) -> dict[str, PreparedWorld]:
    """Prepare every world of ``names``; one that cannot be prepared is a per-world problem.
    ``warm``: world -> content hash of the worlds the caller found cached (none read again).

    With several worlds, a world that fails is left out with a
    :class:`~awm_gym.errors.WorldSkippedWarning` naming it and the cause (``config.strict``:
    its :class:`~awm_gym.errors.WorldLoadError` is raised instead). A single world, or a set
    where none can be prepared, raises.
    """
    prepared: dict[str, PreparedWorld] = {}
    failed: list[str] = []
    for name in names:
        try:
            prepared[name] = get_world_of_set(world_set, name, config, (warm or {}).get(name))
        except (WorldLoadError, UnknownWorldError) as e:
            if config.strict or len(names) == 1:
                raise
            failed.append(str(e))
            warnings.warn(f"Leaving world {name!r} out of this env: {e} (pass strict=True to "
                          "raise instead).", WorldSkippedWarning, stacklevel=3)
    if not prepared:
        raise WorldLoadError(f"None of the {len(names)} worlds could be prepared: "
                             + " | ".join(failed))
    return prepared
