"""The typed OpenEnv client of a served world: openenv-core's ``EnvClient`` over our models.

Example (against ``awm env start --world spotify --protocol openenv --port 8001``)::

    from awm_gym.integrations.openenv import AWMAction, AWMEnvClient

    with AWMEnvClient(base_url="http://127.0.0.1:8001").sync() as env:
        result = env.reset(seed=3, task_idx=0)        # result.observation.text: the task
        result = env.step(AWMAction(tool_call={"name": "list_playlists", "arguments": {}}))
        result.observation.text, result.reward, result.done
"""

from __future__ import annotations

from typing import Any

from awm_gym.integrations.openenv.distribution import missing_openenv

try:
    from openenv.core.client_types import StepResult
    from openenv.core.env_client import EnvClient
except ImportError as e:  # the one-line error that names the extra
    raise missing_openenv(e) from e

from awm_gym.integrations.openenv.models import AWMAction, AWMObservation, AWMState

__all__ = ["AWMEnvClient"]


class AWMEnvClient(EnvClient[AWMAction, AWMObservation, AWMState]):
    """One session (one world instance) on an OpenEnv-protocol world server.

    ``reset(seed=..., task_idx=...)`` and ``step(AWMAction(...))`` return openenv-core's
    ``StepResult`` whose ``observation`` is an :class:`AWMObservation` (text, flags, ``info``);
    ``state()`` returns the session's :class:`AWMState`. Use ``.sync()`` for blocking calls.
    """

    def _step_payload(self, action: AWMAction) -> dict[str, Any]:
        return action.model_dump(exclude_none=True, exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[AWMObservation]:
        observation = AWMObservation(**payload.get("observation", {}),
                                     reward=payload.get("reward"),
                                     done=bool(payload.get("done", False)))
        return StepResult(observation=observation, reward=payload.get("reward"),
                          done=bool(payload.get("done", False)))

    def _parse_state(self, payload: dict[str, Any]) -> AWMState:
        return AWMState(**payload)
