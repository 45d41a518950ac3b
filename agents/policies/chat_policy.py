"""A World-protocol policy that keeps each instance's chat and asks an LLM backend for turns.

Per instance it holds the episode's pinned prefix (system prompt, the world's tool catalogue,
the task) and its turns so far; each ``get_action`` renders every active instance's prompt with
:mod:`agents.chat_format` (the sliding window), samples all of them in one backend call, and
keeps the :class:`~agents.policies.sampling.Generation` of each instance in
``last_generations``: the prompt ids the model saw, the ids it sampled, their log-probabilities
and the finish reason. GRPO trains on exactly those.

Example:
    >>> from agents.policies import HFPolicy                       # doctest: +SKIP
    >>> policy = HFPolicy.from_pretrained("runs/main/model")       # doctest: +SKIP
    >>> world.set_policy(policy); world.evaluate(episodes=10, seed=0)   # doctest: +SKIP
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from awm_gym import info_keys as K
from awm_gym.vocab import Turn

from ..chat_format import (
    ChatFormatConfig,
    ChatRenderer,
    EpisodeContext,
    build_messages,
    tool_listing,
)
from .sampling import Backend, Generation, SamplingConfig

logger = logging.getLogger(__name__)

__all__ = ["ChatPolicy"]


class ChatPolicy:
    """Chat bookkeeping + one backend; the base of the HF, vLLM and OpenAI policies.

    Args:
        backend: what samples turns (:class:`~agents.policies.hf_policy.HFBackend`, ...).
        chat: the prompt format and window.
        sampling: the sampling settings the backend was built with (for the prompt budget).
        renderer: renders prompts to token ids; None when the backend renders them itself.
        context_length: the model's positions (prompt + completion), for the prompt budget.
        name: the policy's name in datasets and transcripts.
    """

    name: str

    def __init__(self, backend: Backend, chat: ChatFormatConfig, sampling: SamplingConfig,
                 renderer: ChatRenderer | None = None, context_length: int | None = None,
                 name: str = "chat") -> None:
        if renderer is not None:  # training and sampling must render the same bytes
            renderer.check_matches(chat, f"{type(self).__name__}(renderer=...)")
        self.backend = backend
        self.chat = chat
        self.sampling = sampling
        self.renderer = renderer
        self.end_ids: tuple[int, ...] = tuple(getattr(backend, "eos_ids", ()))
        """The backend's turn-ending ids, every one stripped from the decoded action."""
        self.context_length = context_length
        self.name = name
        self.env: Any = None
        self._rng = np.random.default_rng()
        self._episode_seeds: list[int] | None = None
        self._contexts: dict[int, EpisodeContext] = {}
        self._turns: dict[int, list[Turn]] = {}
        self._last_action: dict[int, str] = {}
        self._catalogues: dict[str, tuple[list[dict[str, Any]], str]] = {}
        self.last_generations: list[Generation | None] = []

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(name={self.name!r}, window={self.chat.history_turns}, "
                f"temperature={self.sampling.temperature})")

    # -- protocol ----------------------------------------------------------------------------
    def set_env(self, env: Any) -> None:
        """Attach the vector env (its runtime lists each world's tools)."""
        self.env = env
        self._catalogues.clear()

    def set_seed(self, seed: int | None) -> None:
        """Seed the per-call sampling seeds (None: fresh entropy)."""
        self._rng = np.random.default_rng(seed)

    def set_episode_seeds(self, seeds: Sequence[int] | None) -> None:
        """Give instance ``i``'s episode its own sampling seed ``seeds[i]`` (None: back to the
        per-call seeds of :meth:`set_seed`).

        Each turn of the episode then samples with a seed drawn from ``(seeds[i], turn)``, and a
        backend with ``per_request_seeds`` (transformers, vLLM on GPUs) draws each prompt's
        tokens with its own seed: an episode samples the same whatever else is in the batch,
        so an evaluation scores the same on 1 or N ranks. Other backends get one seed per call,
        the first prompt's.
        """
        self._episode_seeds = None if seeds is None else [int(s) for s in seeds]

    def _turn_seed(self, i: int) -> int:
        state = np.random.SeedSequence([self._episode_seeds[i], len(self._turns[i])])
        return int(state.generate_state(1)[0] & 0x7FFFFFFF)

    def get_action(self, infos: Mapping[str, Any]) -> list[str | None]:
        """One action per instance: sampled text for active instances, None for the others.

        ``infos`` needs ``observation``, ``active`` and ``episode_restarted``, and on a restart
        ``world`` and ``task`` (defaults to the observation, which is the task after a reset).
        """
        active = np.asarray(infos[K.ACTIVE], dtype=bool)
        restarted = np.asarray(infos[K.EPISODE_RESTARTED], dtype=bool)
        observations = infos[K.OBSERVATION]
        n = len(active)
        idx = np.flatnonzero(active).tolist()
        for i in idx:
            if restarted[i] or i not in self._contexts:
                task = infos[K.TASK][i] if K.TASK in infos else observations[i]
                self._start(i, str(infos[K.WORLD][i]), str(task))
            else:
                self._turns[i].append(Turn(self._last_action[i], str(observations[i])))
        seeds = None if self._episode_seeds is None else [self._turn_seed(i) for i in idx]
        generations = self.sample([self.messages(i) for i in idx], seeds)
        actions: list[str | None] = [None] * n
        self.last_generations = [None] * n
        for i, gen in zip(idx, generations, strict=True):
            actions[i] = gen.text
            self._last_action[i] = gen.text
            self.last_generations[i] = gen
        return actions

    # -- pieces reused by rollouts and tests ---------------------------------------------------
    def messages(self, i: int) -> list[dict[str, str]]:
        """The chat messages of instance ``i``'s next prompt."""
        return build_messages(self._contexts[i], self._turns[i], self.chat)

    def sample(self, messages: Sequence[Sequence[Mapping[str, str]]],
               seeds: Sequence[int] | None = None) -> list[Generation]:
        """Sample one turn per prompt; prompts over budget get ``prompt_too_long`` and no tokens.

        ``seeds``: one sampling seed per prompt (None: one seed for the call, from
        :meth:`set_seed`'s generator)."""
        if not messages:
            return []
        if self.renderer is None:
            prompt_ids: list[list[int] | None] = [None] * len(messages)
        else:
            prompt_ids = [self.renderer.prompt_ids(m) for m in messages]
        budget = (None if self.context_length is None
                  else self.sampling.prompt_budget(self.context_length))
        fits = [p is None or budget is None or len(p) <= budget for p in prompt_ids]
        todo = [k for k, ok in enumerate(fits) if ok]
        seed: int | list[int]
        if seeds is None:
            seed = int(self._rng.integers(2**31 - 1))
        elif getattr(self.backend, "per_request_seeds", False):
            seed = [int(seeds[k]) for k in todo]
        else:  # one seed per call: still fixed by the episodes, not by the call's order
            seed = int(seeds[todo[0]]) if todo else 0
        sampled = self.backend.generate([messages[k] for k in todo],
                                        [prompt_ids[k] for k in todo], seed,
                                        self.sampling) if todo else []
        out: list[Generation] = []
        it = iter(sampled)
        for k, ok in enumerate(fits):
            if ok:
                gen = next(it)
                if self.renderer is not None:  # token backends: decode here, one way for all
                    text = self.renderer.decode(gen.completion_ids, self.end_ids)
                    gen = Generation(gen.prompt_ids, gen.completion_ids, gen.logprobs,
                                     gen.finish_reason, text)
                out.append(gen)
            else:
                logger.debug("prompt of %d tokens over the budget of %s", len(prompt_ids[k]),
                             budget)
                out.append(Generation(tuple(prompt_ids[k] or ()), (), (), "prompt_too_long", ""))
        return out

    def _start(self, i: int, world: str, task: str) -> None:
        if world not in self._catalogues:
            if self.env is None:
                raise RuntimeError(f"{type(self).__name__}.get_action before set_env: attach the "
                                   "vector env with policy.set_env(envs) (World.set_policy does).")
            self._catalogues[world] = tool_listing(self.env, world)
        tools, text = self._catalogues[world]
        self._contexts[i] = EpisodeContext.create(self.chat, task, tools, text)
        self._turns[i] = []
        self._last_action.pop(i, None)

    def close(self) -> None:
        """Release the backend (an engine, a client)."""
        self.backend.close()
