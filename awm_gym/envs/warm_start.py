"""What a sharded env's caller knows of its worlds' cache, so that its workers need not find out.

Before a :class:`~awm_gym.envs.shards.ShardedRuntime` starts its local workers, the caller reads
each world's content hash and checks that its template, catalogue and import probe are in the
template cache (:func:`warm_worlds`, building the cold ones first in builder processes). The
workers get that map in their init request and load a warm world when it is first used, without
reading or checking anything for it at start (a worker once parsed all 1,000 worlds of a set to
learn what the caller already knew: 13.9 s of its 15 s start). A ``list_tools`` observation
comes back from a worker as a :class:`~awm_gym.envs.wire.CatalogueRef`; :class:`CatalogueTexts`
puts the text back from the same cache, once per content.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from awm_gym.boundary import best_effort
from awm_gym.envs.config import EnvConfig
from awm_gym.envs.prepared import world_is_cached
from awm_gym.errors import UnknownWorldError, WorldLoadError
from awm_gym.tools.catalogue import CatalogueCache
from awm_gym.worlds.template_db import TemplateCache
from awm_gym.worlds.world_set import WorldSet

logger = logging.getLogger(__name__)

__all__ = ["CatalogueTexts", "warm_worlds"]

WORLDS_PER_BUILDER = 4
"""Fewest cold worlds worth a builder process of their own."""


def _cache_state(world_set: WorldSet, worlds: Sequence[str], config: EnvConfig
                 ) -> tuple[dict[str, str], list[str]]:
    """``(warm, cold)``: world -> content hash of the worlds that can start from the cache, and
    one world of each content that cannot (worlds whose rows cannot be read are in neither:
    the shard reports them)."""
    warm: dict[str, str] = {}
    cold: dict[str, str] = {}  # content hash -> a world with that content
    for name in worlds:
        try:
            content_hash = world_set.content_hash(name)
            if world_is_cached(world_set, name, config):
                warm[name] = content_hash
            else:
                cold.setdefault(content_hash, name)
        except (WorldLoadError, UnknownWorldError):
            pass
    return warm, list(cold.values())


def warm_worlds(world_set: WorldSet, worlds: Sequence[str], config: EnvConfig, contained: bool,
                start_builder: Callable[[tuple[Any, ...], range], Any]) -> dict[str, str]:
    """Build the worlds that are not cached yet, then return world -> content hash of every
    world that starts from the cache.

    The cold worlds (one per content) are built in several local worker processes at once (one
    per core), each contained like a shard and started by ``start_builder(spec, range(1))`` (a
    :class:`~awm_gym.envs.shards.Shard`), so that the shards then start from the cache. A world
    that cannot be built is left for the shards, which report it as usual.
    """
    warm, cold = _cache_state(world_set, worlds, config)
    count = min(os.cpu_count() or 1, len(cold) // WORLDS_PER_BUILDER)
    if count < 2 and not (contained and cold):  # contained: tool calls never run where the
        return warm  # cache is writable, so a builder builds even one cold world
    count = max(count, 1)
    logger.info("building %d worlds in %d processes", len(cold), count)
    builders = [start_builder((world_set.root, list(cold[k::count]), config, contained, None,
                               True, {}), range(1)) for k in range(count)]
    for builder in builders:
        try:  # a world that cannot be built is the shard's to report
            with best_effort("a builder process", log=logger):
                builder.reply(time.monotonic() + 3600)
        finally:
            builder.close()
    warm.update(_cache_state(world_set, [w for w in worlds if w not in warm], config)[0])
    return warm


class CatalogueTexts:
    """The ``list_tools`` texts a caller puts back in place of a worker's
    :class:`~awm_gym.envs.wire.CatalogueRef`: read once per content from the template cache of
    ``cache_dir`` for the worlds of ``warm`` (world -> content hash), else asked of a worker once
    per world.

    Args:
        warm: world -> content hash of the worlds whose catalogue the cache holds.
        cache_dir: the template cache the local workers read (None: the default one).
    """

    def __init__(self, warm: Mapping[str, str], cache_dir: str | None) -> None:
        self._warm, self._cache_dir = warm, cache_dir
        self._texts: dict[tuple[str, str], str] = {}  # ("hash" | "world", key) -> text

    def __repr__(self) -> str:
        return f"CatalogueTexts(warm={len(self._warm)}, held={len(self._texts)})"

    def text(self, world: str, ask: Callable[[str], str]) -> str:
        """``world``'s text; ``ask(world)`` gets it from a worker where this cache cannot."""
        content_hash = self._warm.get(world)
        key = ("world", world) if content_hash is None else ("hash", content_hash)
        text = self._texts.get(key)
        if text is None:
            catalogue = None if content_hash is None else CatalogueCache(
                TemplateCache(self._cache_dir).directory).load(CatalogueCache.key(content_hash))
            text = self._texts[key] = ask(world) if catalogue is None else catalogue.text
        return text
