"""AWM worlds on OpenEnv, with OpenEnv itself (``pip install "awm-gym[openenv]"``).

- :class:`AWMEnvironment`: one world instance as OpenEnv's ``Environment`` (typed
  :class:`AWMAction` / :class:`AWMObservation` / :class:`AWMState`, ``rubric`` from our scoring,
  ``SUPPORTS_CONCURRENT_SESSIONS``), usable in-process;
- ``awm env start --protocol openenv``: served by openenv-core's ``create_app``
  (:class:`~awm_gym.integrations.openenv.server.OpenEnvWorldServer`), which importing this
  package registers with :func:`awm_gym.server.register_server` (the ``awm`` command does);
- :class:`AWMEnvClient`: OpenEnv's ``EnvClient`` for it;
- :class:`WorldTasks`: the world's tasks and train / validation splits behind OpenEnv 0.10's
  task API (``list_splits``, ``list_tasks``, ...; ``reset(split=..., index=...)``).

Runs on ``openenv`` 0.10 (the ``openenv`` extra) and on ``openenv-core`` 0.3 (the
``openenv-core`` extra, which shares an environment with vLLM and verifiers); the task API's
routes and ``openenv validate`` exist on 0.10 only.

See docs/server.md, "OpenEnv".

Example:
    >>> from awm_gym.integrations.openenv import AWMEnvironment, AWMAction
    >>> env = AWMEnvironment("spotify")
    >>> env.reset(seed=0, task_idx=1).task_idx
    1
    >>> env.close()
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from awm_gym.integrations.openenv.distribution import check_one_distribution, missing_openenv
from awm_gym.lazy_exports import lazy_exports
from awm_gym.server.registry import register_server

if TYPE_CHECKING:
    from awm_gym.server.config import ServerConfig
    from awm_gym.server.registry import ServedWorld

__all__ = ["AWMEnvironment", "AWMEnvClient", "AWMAction", "AWMObservation", "AWMState",
           "AWMVerdict", "ToolCallSpec", "AWMRubric", "rubric_for", "WorldTasks",
           "check_one_distribution", "missing_openenv"]

# openenv-core loads when a name is first used: importing this package only registers the server
__getattr__ = lazy_exports(__name__, {
    "client": ("AWMEnvClient",), "environment": ("AWMEnvironment",),
    "models": ("AWMAction", "AWMObservation", "AWMState", "AWMVerdict", "ToolCallSpec"),
    "rubric": ("AWMRubric", "rubric_for"), "tasks": ("WorldTasks",)})


def _openenv_server(config: ServerConfig) -> ServedWorld:
    try:
        from awm_gym.integrations.openenv.server import OpenEnvWorldServer
    except ImportError as e:
        from awm_gym.errors import AWMGymError

        raise AWMGymError(f"--protocol openenv: {e}") from e
    return OpenEnvWorldServer(config)


register_server("openenv", _openenv_server)
