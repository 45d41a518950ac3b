"""Bridges to other trainers and evaluation harnesses, each an optional extra.

* :mod:`awm_gym.integrations.episodes`: what every bridge shares, one episode of a world driven
  by native tool calls (name + arguments) and scored by the world's own verifier.
* :mod:`awm_gym.integrations.trl`: TRL's ``GRPOTrainer(environment_factory=...)`` (``trl`` extra).
* :mod:`awm_gym.integrations.verifiers`: a ``verifiers`` environment for ``vf-eval`` and prime-rl
  (``verifiers`` extra).

Nothing here is imported by ``import awm_gym``; each bridge imports its library when it is used.
"""

from __future__ import annotations
