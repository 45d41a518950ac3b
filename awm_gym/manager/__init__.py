"""The manager: the World (rollouts, evaluation, recording, transcripts) and ``awm check``.

Only the :class:`Policy` protocol loads with ``import awm_gym``; the rest when first used.
"""

from __future__ import annotations

from awm_gym.lazy_exports import lazy_exports
from awm_gym.manager.policy import Policy

__all__ = ["Policy", "World", "Episode", "check_world", "summarize_episodes", "load_episodes",
           "write_transcripts", "rescore_dataset", "DatasetWriter", "replay_settings",
           "world_set_dir"]

__getattr__ = lazy_exports(__name__, {
    "world": ("World",), "episode": ("Episode",), "check": ("check_world",),
    "evaluation": ("summarize_episodes",),
    "recording": ("load_episodes", "DatasetWriter", "replay_settings", "world_set_dir"),
    "transcripts": ("write_transcripts",), "rescore": ("rescore_dataset",)})
