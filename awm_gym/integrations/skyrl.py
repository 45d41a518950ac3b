"""AWM worlds as a SkyRL environment (``skyrl-gym``; ``pip install "awm-gym[skyrl]"``).

SkyRL's generator builds one environment per rollout from a dataset row,
``skyrl_gym.make(row["env_class"], env_config=..., extras=row)``, then calls ``init(prompt)``
and ``step(model_text)`` until ``done``, synchronously, text in and text out. :class:`AWMTextEnv`
is that environment for any world: each step's text is the action the in-process env takes (the
model writes ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` to call a tool, and a
reply without a tool call is its final answer), so the world's own parser, tools, step limit and
verifier decide the observation and the reward:

=========================================  ========================================  ==========
the model writes                           the env returns                            reward
=========================================  ========================================  ==========
a tool call                                the tool's result as a user message        0.0
a malformed tool call                      done (format error)                        -1.0
a final answer                             done; the task's verifier scored it        1.0 / 0.0
nothing final by ``max_turns``             done, ``truncated``                        0.0
=========================================  ========================================  ==========

An episode the verifier cannot score (crash, timeout) gets the reward table's ``unscored`` value
(0.0) with ``metadata["reward_valid"] = False`` and the metric ``awm/reward_valid`` 0: SkyRL has
no "no reward" value, so filter on it. The environments of one process share one batched
runtime per (gym id, capacity, env kwargs) (:func:`~awm_gym.integrations.episodes.shared_host`):
one template database and verifier pool, an instance per open episode.

Use:

1. ``register()`` in SkyRL's entry point (it registers ``"awm_gym"`` with skyrl-gym; call it
   where SkyRL's Ray entrypoint runs, as its own envs are);
2. a dataset from :func:`dataset_rows` (``prompt`` with the tools in the system message, since
   SkyRL passes no per-sample tool schema to the chat template, ``env_class``, ``reward_spec``
   and the episode's ``world`` / ``task_idx`` / ``seed`` in ``extra_info``);
3. the env's settings under SkyRL's ``environment.skyrl_gym.awm_gym`` config: ``gym_id``,
   ``capacity``, ``env_kwargs`` (any :class:`awm_gym.EnvConfig` field), ``max_turns``.

Example:
    >>> import skyrl_gym
    >>> register()
    >>> [row] = dataset_rows("AWM/spotify-v0", task_indices=[2],
    ...                      tool_names=["list_followed_artists"])
    >>> env = skyrl_gym.make("awm_gym", env_config={"capacity": 2}, extras=row)
    >>> prompt, info = env.init(row["prompt"])
    >>> out = env.step('<tool_call>{"name": "list_followed_artists", "arguments": {}}</tool_call>')
    >>> out["done"], "Kiro Nakamura" in out["observations"][0]["content"]
    (False, True)
    >>> out = env.step("Kiro Nakamura, with 5,410,000 monthly listeners.")
    >>> out["done"], out["reward"], out["metadata"]["label"]
    (True, 1.0, 'complete')
    >>> env.close()
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

try:
    from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput
except ImportError as e:  # the one-line error that names the extra
    raise ImportError(f"awm_gym.integrations.skyrl needs skyrl-gym ({e}); install it with "
                      "pip install 'awm-gym[skyrl]'.") from e

from awm_gym import info_keys as K
from awm_gym.errors import EnvUsageError
from awm_gym.integrations.episodes import (DEFAULT_INSTRUCTIONS, EpisodeResult, ToolEpisode,
                                           function_tools, shared_host)

__all__ = ["AWMTextEnv", "ENV_CLASS", "dataset_rows", "register", "system_prompt"]

ENV_CLASS = "awm_gym"
"""The id :func:`register` gives the env in skyrl-gym's registry (a row's ``env_class``)."""

_SETTINGS = ("gym_id", "capacity", "env_kwargs", "max_turns")


def register(env_id: str = ENV_CLASS) -> None:
    """Register :class:`AWMTextEnv` with skyrl-gym as ``env_id`` (a second call is a no-op)."""
    import skyrl_gym

    if env_id not in skyrl_gym.registry:
        skyrl_gym.register(id=env_id, entry_point=f"{__name__}:AWMTextEnv")


def system_prompt(tools: Sequence[Mapping[str, Any]], instructions: str = DEFAULT_INSTRUCTIONS
                  ) -> str:
    """The system message: the instructions, the tools as JSON function specs in a ``<tools>``
    block and how to call one (Qwen/Hermes' own format, which the world's parser reads).

    Args:
        tools: OpenAI function tools (:func:`~awm_gym.integrations.episodes.function_tools`).
        instructions: what comes first.
    """
    specs = "\n".join(json.dumps(t, ensure_ascii=False) for t in tools)
    return (f"{instructions}\n\n# Tools\n\nYou may call one function per turn. The functions, "
            f"as JSON schemas, are inside <tools></tools>:\n<tools>\n{specs}\n</tools>\n\n"
            "To call one, reply with a JSON object of its name and arguments inside "
            '<tool_call></tool_call>, e.g. <tool_call>{"name": "<function-name>", "arguments": '
            "{}}</tool_call>. Reply without a tool call to give your final answer.")


def dataset_rows(gym_id: str = "AWM/spotify-v0", task_indices: Iterable[int] | None = None,
                 seeds: Iterable[int] = (0,), world: str | None = None,
                 tool_names: Sequence[str] | None = None, description_lines: int | None = 1,
                 capacity: int = 64, env_kwargs: Mapping[str, Any] | None = None,
                 env_class: str = ENV_CLASS) -> list[dict[str, Any]]:
    """SkyRL dataset rows, one per (task, seed) of one world (write them to Parquet for SkyRL).

    Args:
        gym_id: a registered id (``AWM/<world>-v0``, ``AWM/mix-v0`` with ``world``).
        task_indices: which tasks (None: every task the host may open, so a split's subset and
            ``env_kwargs["exclude"]`` are honoured).
        seeds: one row per seed per task.
        world: the world of a many-world id (None: its only world).
        tool_names: offer only these tools in the prompt (None: all; spotify's 63 take ~12k
            tokens).
        description_lines: lines of each tool description to keep (None: all).
        capacity: the host's capacity (as the env's config must give it).
        env_kwargs: the host's env options (as the env's config must give them).
        env_class: the id the env is registered under.

    Returns:
        ``[{"prompt", "env_class", "reward_spec", "extra_info"}, ...]``.
    """
    host = shared_host(gym_id, capacity, env_kwargs)
    if world is None and len(host.worlds) != 1:
        raise EnvUsageError(f"dataset_rows({gym_id!r}): it has {len(host.worlds)} worlds; pass "
                            f"world= one of {', '.join(host.worlds)}.")
    name = world or host.worlds[0]
    tools = function_tools(host.tools(name), tool_names, description_lines)
    system = system_prompt(tools)
    allowed = host.task_indices(name)
    chosen = allowed if task_indices is None else tuple(task_indices)
    for t in chosen:
        if t not in allowed:
            raise EnvUsageError(f"task_indices: task {t} of {name!r} is not one this host may "
                                f"open (its split subset or exclusions leave it out); it may "
                                f"open {list(allowed)}.")
    texts = host.runtime.world_set[name].tasks
    return [{"prompt": [{"role": "system", "content": system},
                        {"role": "user", "content": texts[t]}],
             "env_class": env_class,
             "reward_spec": {"method": "env", "ground_truth": None},
             "extra_info": {"gym_id": gym_id, "world": name, "task_idx": t, "seed": s}}
            for t in chosen for s in seeds]


def _as_dict(config: Any) -> dict[str, Any]:
    if config is None:
        return {}
    if not isinstance(config, Mapping):  # SkyRL passes an omegaconf DictConfig
        from omegaconf import OmegaConf

        config = OmegaConf.to_container(config, resolve=True)
    return dict(config)


class AWMTextEnv(BaseTextEnv):
    """One rollout of an AWM world for SkyRL (see the module doc).

    Args:
        env_config: the env's settings (SkyRL's ``environment.skyrl_gym.awm_gym``): ``gym_id``
            (default ``AWM/spotify-v0``), ``capacity`` (64), ``env_kwargs`` ({}), ``max_turns``
            (None: the world's ``max_episode_steps``).
        extras: the dataset row: its ``extra_info`` (or the row itself) gives ``world``,
            ``task_idx``, ``seed`` and optionally ``gym_id``; ``max_turns`` too.
    """

    def __init__(self, env_config: Any = None, extras: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        config = _as_dict(env_config)
        unknown = sorted(set(config) - set(_SETTINGS))
        if unknown:
            raise EnvUsageError(f"AWMTextEnv env_config: unknown keys {unknown}; it takes "
                                f"{', '.join(_SETTINGS)}.")
        row = dict(extras or {})
        info = dict(row.get("extra_info") or {}) or row
        gym_id = info.get("gym_id") or config.get("gym_id") or "AWM/spotify-v0"
        self.host = shared_host(gym_id, int(config.get("capacity", 64)),
                                config.get("env_kwargs"))
        self.world: str | None = info.get("world")
        self.task_idx: int | None = info.get("task_idx")
        self.seed: int | None = info.get("seed")
        max_turns = row.get("max_turns", config.get("max_turns"))
        self.max_turns = int(max_turns) if max_turns is not None else (
            self.host.config.max_episode_steps)
        self.episode: ToolEpisode | None = None

    def __repr__(self) -> str:
        return f"AWMTextEnv({self.episode or self.host.env_id}, max_turns={self.max_turns})"

    def init(self, prompt: list[dict[str, str]]) -> tuple[list[dict[str, str]], dict[str, Any]]:
        """Open the row's episode; returns the prompt unchanged and the episode's ids."""
        if self.episode is not None:
            self.episode.close()
        self.turns = 0
        self.episode = self.host.open(self.task_idx, self.seed, self.world)
        return prompt, {K.WORLD: self.episode.world, K.TASK_IDX: self.episode.task_idx}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        """Apply the model's text; the next user message is the tool's result."""
        if self.episode is None:
            raise EnvUsageError("AWMTextEnv.step() before init(prompt): SkyRL calls init first.")
        self.turns += 1
        outcome = self.episode.act(action)
        if self.episode.result is None and self.turns >= self.max_turns:
            self.episode.finish(None)                   # out of turns: truncated
        result = self.episode.result
        if result is None:
            return BaseTextEnvStepOutput(
                observations=[{"role": "user", "content": outcome.observation}], reward=0.0,
                done=False, metadata={K.TOOL_OUTCOME: outcome.info.get(K.TOOL_OUTCOME)},
                postprocessed_action=None)
        return BaseTextEnvStepOutput(observations=[], reward=float(result.reward), done=True,
                                     metadata=_metadata(result), postprocessed_action=None)

    def get_metrics(self) -> dict[str, Any]:
        """``awm/success``, ``awm/reward_valid``, ``awm/format_error``, ``awm/truncated``,
        ``awm/turns`` of the episode."""
        result = self.episode.result if self.episode is not None else None
        if result is None:
            return {"awm/turns": self.turns}
        return {"awm/success": float(result.success),
                "awm/reward_valid": float(result.reward_valid),
                "awm/format_error": float(result.label == "format_error"),
                "awm/truncated": float(result.label == "truncated"), "awm/turns": self.turns}

    def close(self) -> None:
        """Give the instance back (safe to call twice)."""
        if self.episode is not None:
            self.episode.close()


def _metadata(result: EpisodeResult) -> dict[str, Any]:
    return {"label": result.label, "reward_valid": result.reward_valid,
            "success": result.success,
            K.VERIFIER_ERROR: result.info.get(K.VERIFIER_ERROR)}
