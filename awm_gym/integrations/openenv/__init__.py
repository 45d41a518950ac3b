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


def missing_openenv(error: ImportError) -> ImportError:
    """The one-line error a module of this package raises when OpenEnv is not installed."""
    return ImportError(f"awm_gym.integrations.openenv needs OpenEnv ({error}); install it with "
                       "pip install 'awm-gym[openenv]' (or 'awm-gym[openenv-core]' beside vllm "
                       "or verifiers).")


def check_one_distribution() -> None:
    """Refuse an environment where ``openenv`` and ``openenv-core`` are both installed: both
    write the same ``openenv`` package, so whichever installed last wins file by file.

    Raises:
        AWMGymError: both are installed (the message gives the fix).
    """
    import importlib.metadata as md

    names = {(d.metadata["Name"] or "").lower() for d in md.distributions()}
    if {"openenv", "openenv-core"} <= names:
        from awm_gym.errors import AWMGymError

        raise AWMGymError(
            "openenv and openenv-core are both installed and write the same openenv package; "
            "keep one: pip uninstall -y openenv openenv-core, then pip install "
            "'awm-gym[openenv]' (today's OpenEnv) or 'awm-gym[openenv-core]' (the 0.3 line, "
            "beside vllm or verifiers: docs/integrations.md, OpenEnv).")


def _openenv_server(config: ServerConfig) -> ServedWorld:
    try:
        from awm_gym.integrations.openenv.server import OpenEnvWorldServer
    except ImportError as e:
        from awm_gym.errors import AWMGymError

        raise AWMGymError(f"--protocol openenv: {e}") from e
    return OpenEnvWorldServer(config)


register_server("openenv", _openenv_server)
