"""The policy protocol: what :class:`~awm_gym.World` needs from whatever chooses the actions.

A policy turns the World's batched ``infos`` into one text action per instance::

    policy.set_env(world.envs)      # once, when attached: the vector env (tools, world set)
    policy.set_seed(seed)           # before a run: makes sampling reproducible
    actions = policy.get_action(infos)

``infos`` is the vector env's latest batched info dict plus the keys the World adds (see
:mod:`awm_gym.info_keys`): ``observation``, ``task``, ``world``, ``task_idx``, ``seed``,
``active`` (needs an action now), ``episode_restarted`` (first action of a new episode: a
stateful policy must forget that instance's past) and ``episode_idx``. Each is an array with
one entry per instance. ``get_action`` returns a sequence of ``num_envs`` entries: a string for
every active instance; whatever it returns for inactive ones is ignored (the World sends None).

awm_gym defines the protocol and drives it; the policies themselves (oracle, random, LLM
policies, ``BasePolicy``) live in ``agents.policies`` and implement it.

Example:
    >>> class Echo:
    ...     name = "echo"
    ...     def set_env(self, env): pass
    ...     def set_seed(self, seed): pass
    ...     def get_action(self, infos):
    ...         return [f"You said: {o}" if a else None
    ...                 for o, a in zip(infos["observation"], infos["active"])]
    >>> isinstance(Echo(), Policy), policy_name(Echo())
    (True, 'echo')
    >>> check_policy(object())
    Traceback (most recent call last):
    ...
    awm_gym.errors.EnvUsageError: object lacks get_action, set_env, set_seed: a policy needs get_action(infos), set_env(env) and set_seed(seed) (see awm_gym.Policy; agents.policies.BasePolicy implements it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from awm_gym.errors import EnvUsageError

__all__ = ["Policy", "check_policy", "policy_name"]

_METHODS = ("get_action", "set_env", "set_seed")


@runtime_checkable
class Policy(Protocol):
    """What :class:`awm_gym.World` needs from a policy."""

    name: str

    def set_env(self, env: Any) -> None:
        """Attach the vector env the policy will act in (called by ``World.set_policy``)."""

    def set_seed(self, seed: int | None) -> None:
        """Seed the policy's own randomness (called by ``World.evaluate`` / ``record_dataset``)."""

    def get_action(self, infos: dict[str, Any]) -> Sequence[str | None]:
        """One action per instance; only entries where ``infos['active']`` is True are used."""


def check_policy(policy: Any) -> Policy:
    """``policy`` if it has the protocol's three methods, else an error naming the missing ones.

    ``name`` is optional here: a policy without one is named after its class (:func:`policy_name`).
    """
    missing = [m for m in _METHODS if not callable(getattr(policy, m, None))]
    if missing:
        raise EnvUsageError(f"{type(policy).__name__} lacks {', '.join(missing)}: a policy "
                            "needs get_action(infos), set_env(env) and set_seed(seed) (see "
                            "awm_gym.Policy; agents.policies.BasePolicy implements it).")
    return policy


def policy_name(policy: Any) -> str:
    """The name a policy's episodes are filed under: its ``name``, else its class name."""
    return str(getattr(policy, "name", type(policy).__name__))
