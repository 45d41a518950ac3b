"""``AWM/remote-v0``: the Gymnasium env and vector env over a world server's sessions.

The same training code runs against local or remote worlds: these classes are
:class:`~awm_gym.envs.env.AWMEnv` and :class:`~awm_gym.envs.vector_env.AWMVectorEnv` with a
:class:`~awm_gym.remote.runtime.RemoteRuntime` in place of the in-process runtime, so reset
options (``seed``, ``task_idx``, ``reset_mask``), the checks on them, autoreset-disabled stepping
and batched infos are the in-process code, and ``config`` is the server's ``EnvConfig``.

Example (with ``awm env start --world spotify --port 8001`` running)::

    env = gym.make("AWM/remote-v0", url="http://127.0.0.1:8001")
    obs, info = env.reset(seed=0)
    envs = gym.make_vec("AWM/remote-v0", num_envs=64, url="http://127.0.0.1:8001")
"""

from __future__ import annotations

from typing import Any

from awm_gym.envs.env import AWMEnv
from awm_gym.envs.vector_env import AWMVectorEnv
from awm_gym.errors import EnvUsageError
from awm_gym.remote.runtime import RemoteRuntime

__all__ = ["RemoteEnv", "RemoteVectorEnv"]


def _require_url(url: Any) -> str:
    if not isinstance(url, str) or not url:
        raise EnvUsageError(f"url={url!r}: AWM/remote-v0 needs the address `awm env start` "
                            "printed, e.g. gym.make('AWM/remote-v0', url='http://127.0.0.1:8001').")
    return url


class RemoteEnv(AWMEnv):
    """One session of a world server as a ``gymnasium.Env`` (the API of ``AWM/<world>-v0``).

    Args:
        url: the server's address (``http://host:port``).
        connect_timeout_s: limit for opening the session.
        message_timeout_s: limit for each reply; past it the episode ends truncated with
            ``info["worker_error"]`` and the next reset opens a new session.
        auth_token: the server's token (``awm env start --auth-token``), sent as
            ``Authorization: Bearer <token>``.
    """

    def __init__(self, url: str | None = None, *, connect_timeout_s: float = 10.0,
                 message_timeout_s: float = 300.0, auth_token: str | None = None) -> None:
        self._attach(RemoteRuntime(_require_url(url), 1, connect_timeout_s=connect_timeout_s,
                                   message_timeout_s=message_timeout_s, auth_token=auth_token))

    def __repr__(self) -> str:
        return f"RemoteEnv({self.runtime.worlds[0]} at {self.runtime.url})"


class RemoteVectorEnv(AWMVectorEnv):
    """``num_envs`` sessions of a world server as one ``VectorEnv`` (the API of
    ``gym.make_vec("AWM/<world>-v0")``); each step sends every action before reading any reply.

    Args:
        num_envs: sessions to open.
        url: the server's address (``http://host:port``).
        connect_timeout_s: as for :class:`RemoteEnv`.
        message_timeout_s: as for :class:`RemoteEnv`.
        auth_token: as for :class:`RemoteEnv`.
    """

    def __init__(self, num_envs: int = 1, url: str | None = None, *,
                 connect_timeout_s: float = 10.0, message_timeout_s: float = 300.0,
                 auth_token: str | None = None) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise EnvUsageError(f"num_envs={num_envs!r}: must be a positive int.")
        self._attach(RemoteRuntime(_require_url(url), num_envs,
                                   connect_timeout_s=connect_timeout_s,
                                   message_timeout_s=message_timeout_s, auth_token=auth_token),
                     num_envs)

    def __repr__(self) -> str:
        return (f"RemoteVectorEnv({self.runtime.worlds[0]} at {self.runtime.url}, "
                f"num_envs={self.num_envs})")
