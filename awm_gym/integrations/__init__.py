"""Bridges to other ecosystems' environment, trainer and evaluation APIs, each an optional extra.

* :mod:`awm_gym.integrations.openenv`: an OpenEnv ``Environment``, server and client
  (``awm env start --protocol openenv``; ``openenv`` extra).
* :mod:`awm_gym.integrations.episodes`: what the trainer bridges share, one episode of a world
  driven by native tool calls (name + arguments) and scored by the world's own verifier.
* :mod:`awm_gym.integrations.trl`: TRL's ``GRPOTrainer(environment_factory=...)`` (``trl`` extra).
* :mod:`awm_gym.integrations.verifiers`: a ``verifiers`` environment for ``vf-eval`` and prime-rl
  (``verifiers`` extra).

Nothing here is imported by ``import awm_gym``; each bridge imports its library when it is used.
This package has no names of its own: import a bridge's module.
"""

from __future__ import annotations

__all__: list[str] = []
