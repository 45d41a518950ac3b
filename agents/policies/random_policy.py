"""``RandomPolicy``: seeded random turns (tool calls, malformed text, final answers).

For fuzzing worlds and as a baseline. Each turn is, with the given probabilities, a final answer
(random words), a malformed action (one of several broken ``<tool_call>`` shapes: the env must
answer it with reward -1 and end the episode) or a well-formed call of a random tool of the
instance's world. Arguments are drawn from the tool's input schema: right types most of the time,
sometimes missing or wrong, so the tools' validation paths are exercised too.

Reproducible whatever the batch: each episode's randomness comes from ``(policy seed, episode
seed)``, so an episode's actions do not depend on ``num_envs`` or on which instance runs it.

Example:
    >>> from awm_gym import World
    >>> world = World("AWM/spotify-v0", num_envs=4, verbose=0)
    >>> world.set_policy(RandomPolicy(seed=0, p_final=0.0, p_malformed=1.0))
    >>> result = world.evaluate(episodes=4, seed=0, eval_keys=["format_error"])
    >>> result["mean_reward"], result["format_error"]
    (-1.0, [True, True, True, True])
    >>> world.close()
"""

from __future__ import annotations

import random
import string
from collections.abc import Sequence
from typing import Any

from awm_gym import info_keys as K
from awm_gym.tools import format_tool_call

from .base import BasePolicy

__all__ = ["RandomPolicy", "MALFORMED_SHAPES"]

MALFORMED_SHAPES = (
    '<tool_call>{"name": "%s", "arguments": ',          # unclosed block
    '<tool_call>{"arguments": {}}</tool_call>',          # no name
    # call_tool without a tool_name (an unknown tool is not malformed: AWM answers it)
    '<tool_call>{"name": "call_tool", "arguments": {"arguments": "{}"}}</tool_call>',
    '<tool_call>{"name": "%s", "arguments": [1, 2]}</tool_call>',  # arguments not an object
    "<tool_call>]]]</tool_call>",                        # not JSON at all
)
"""Broken turns the env must score as format errors (``%s`` takes a tool name)."""

_WORDS = ("done", "the", "answer", "is", "task", "complete", "42", "yes", "no", "playlist")


def _rand_value(rng: random.Random, schema: dict[str, Any], depth: int = 0) -> Any:
    kind = schema.get("type")
    if "enum" in schema and schema["enum"]:
        return rng.choice(schema["enum"])
    if isinstance(kind, list):
        kind = rng.choice(kind)
    if "anyOf" in schema and schema["anyOf"]:
        return _rand_value(rng, rng.choice(schema["anyOf"]), depth)
    if kind == "integer":
        return rng.choice([rng.randint(1, 12), rng.randint(-3, 500)])
    if kind == "number":
        return round(rng.uniform(-10, 100), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array":
        items = schema.get("items", {}) if depth < 2 else {"type": "string"}
        return [_rand_value(rng, items, depth + 1) for _ in range(rng.randint(0, 3))]
    if kind == "object" and depth < 2:
        props = schema.get("properties", {})
        return {k: _rand_value(rng, v, depth + 1) for k, v in props.items() if rng.random() < 0.7}
    if kind == "null":
        return None
    return "".join(rng.choice(string.ascii_lowercase + " ") for _ in range(rng.randint(1, 12)))


def random_arguments(rng: random.Random, schema: dict[str, Any], p_invalid: float
                     ) -> dict[str, Any]:
    """Arguments for an input schema: every required field, some optional ones, and with
    probability ``p_invalid`` one field dropped or given a wrong type."""
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    args = {name: _rand_value(rng, sub) for name, sub in props.items()
            if name in required or rng.random() < 0.3}
    if props and rng.random() < p_invalid:
        name = rng.choice(sorted(props))
        if name in args and rng.random() < 0.5:
            del args[name]
        else:
            args[name] = rng.choice([{"nested": True}, "not-a-number", -1, [None]])
    return args


class RandomPolicy(BasePolicy):
    """Random turns; see the module docstring.

    Args:
        seed: the policy's seed (``World.evaluate`` / ``record_dataset`` set it to their seed).
        p_final: probability that a turn is a final answer.
        p_malformed: probability that a turn is malformed.
        p_invalid_args: probability that a tool call's arguments break the schema.
    """

    name = "random"

    def __init__(self, seed: int | None = None, p_final: float = 0.15, p_malformed: float = 0.05,
                 p_invalid_args: float = 0.2) -> None:
        super().__init__()
        for field, p in (("p_final", p_final), ("p_malformed", p_malformed),
                         ("p_invalid_args", p_invalid_args)):
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"RandomPolicy.{field}={p}: a probability in [0, 1].")
        if p_final + p_malformed > 1.0:
            raise ValueError(f"RandomPolicy: p_final + p_malformed = {p_final + p_malformed} > 1.")
        self.seed = seed
        self.p_final, self.p_malformed, self.p_invalid_args = p_final, p_malformed, p_invalid_args
        self._rngs: dict[int, random.Random] = {}
        self._tools: dict[str, list[dict[str, Any]]] = {}

    def _tools_of(self, world: str) -> list[dict[str, Any]]:
        if world not in self._tools:
            self._tools[world] = self.env.runtime.tools(world)
        return self._tools[world]

    def turn(self, rng: random.Random, world: str) -> str:
        """One random turn for an instance of ``world``."""
        tools = self._tools_of(world)
        draw = rng.random()
        if draw < self.p_final:
            return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 8)))
        tool = rng.choice(tools)
        if draw < self.p_final + self.p_malformed:
            shape = rng.choice(MALFORMED_SHAPES)
            return shape % tool["name"] if "%s" in shape else shape
        return format_tool_call(tool["name"], random_arguments(rng, tool["inputSchema"],
                                                             self.p_invalid_args))

    def get_action(self, infos: dict[str, Any]) -> Sequence[str | None]:
        if self.env is None:
            raise RuntimeError("RandomPolicy needs its env: attach it with world.set_policy().")
        actions: list[str | None] = []
        for i, active in enumerate(infos[K.ACTIVE]):
            if not active:
                actions.append(None)
                continue
            if infos[K.EPISODE_RESTARTED][i] or i not in self._rngs:
                self._rngs[i] = random.Random(f"{self.seed}/{int(infos[K.SEED][i])}")
            actions.append(self.turn(self._rngs[i], str(infos[K.WORLD][i])))
        return actions
