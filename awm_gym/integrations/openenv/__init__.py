"""AWM worlds on OpenEnv, with openenv-core itself (``pip install "awm-gym[openenv]"``).

- :class:`AWMEnvironment`: one world instance as OpenEnv's ``Environment`` (typed
  :class:`AWMAction` / :class:`AWMObservation` / :class:`AWMState`, ``rubric`` from our scoring,
  ``SUPPORTS_CONCURRENT_SESSIONS``), usable in-process;
- ``awm env start --protocol openenv``: served by openenv-core's ``create_app``
  (:class:`~awm_gym.integrations.openenv.server.OpenEnvWorldServer`);
- :class:`AWMEnvClient`: openenv-core's ``EnvClient`` for it.

See docs/server.md, "OpenEnv".

Example:
    >>> from awm_gym.integrations.openenv import AWMEnvironment, AWMAction
    >>> env = AWMEnvironment("spotify")
    >>> env.reset(seed=0, task_idx=1).task_idx
    1
    >>> env.close()
"""

from __future__ import annotations

from awm_gym.integrations.openenv.client import AWMEnvClient
from awm_gym.integrations.openenv.environment import AWMEnvironment
from awm_gym.integrations.openenv.models import AWMAction, AWMObservation, AWMState, ToolCallSpec
from awm_gym.integrations.openenv.rubric import AWMRubric, rubric_for

__all__ = ["AWMEnvironment", "AWMEnvClient", "AWMAction", "AWMObservation", "AWMState",
           "ToolCallSpec", "AWMRubric", "rubric_for"]
