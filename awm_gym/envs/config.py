"""Configuration of an environment: episode limits, timeouts, verifiers, rewards and the clock.

Built once at the edge (``gym.make`` / ``gym.make_vec`` keyword arguments, or the CLI) and passed
down; nothing below reads environment variables. :class:`EnvConfig` is built from flat keyword
arguments (one per field, as ``make_vec`` takes them) and nests three frozen parts that the
components read: :attr:`EnvConfig.episode` (:class:`EpisodeConfig`: limits of one episode),
:attr:`EnvConfig.sharding` (:class:`ShardingConfig`: where instances and world code run) and
:attr:`EnvConfig.scoring` (:class:`~awm_gym.scoring.scorer.ScoringConfig`: verifiers, judge,
rewards). Each part checks its own fields.

Example:
    >>> EnvConfig(max_episode_steps=10).rewards.format_error
    -1.0
    >>> EnvConfig(max_episode_steps=10, num_workers=2).episode.max_episode_steps
    10
    >>> EnvConfig(num_workers=2, isolation="process").sharding.isolation
    'process'
    >>> EnvConfig(verifier_mode="both")
    Traceback (most recent call last):
    ...
    ValueError: EnvConfig.verifier_mode='both': choose one of 'auto', 'code', 'sql'.
    >>> EnvConfig(judge={"base_url": "http://127.0.0.1:8000/v1", "model": "judge"}).judge.model
    'judge'
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from awm_gym.errors import EnvUsageError
from awm_gym.scoring.judge import JudgeConfig
from awm_gym.scoring.rewards import RewardConfig
from awm_gym.scoring.rubrics import Rubric
from awm_gym.scoring.scorer import ScoringConfig
from awm_gym.vocab import SCORING_MODES, VerifierMode
from awm_gym.worlds.clock import parse_instant

__all__ = ["EnvConfig", "EpisodeConfig", "ShardingConfig", "Isolation", "Backend",
           "UnknownToolMode", "Workers", "coerce_workers", "env_config_from"]

Isolation = Literal["auto", "process", "world", "none"]
"""Where world code runs (see :attr:`EnvConfig.isolation`)."""
Backend = Literal["local", "ray"]
"""Where shards run (see :attr:`EnvConfig.backend`)."""
Workers = int | Literal["auto"]
"""How many shards (see :attr:`EnvConfig.num_workers`): ``"auto"`` or an int >= 0."""
UnknownToolMode = Literal["observe", "format_error"]
"""What a call to a tool the world does not have is (see :attr:`EnvConfig.unknown_tool`)."""


def coerce_workers(value: Any, name: str = "EnvConfig.num_workers") -> int | str:
    """``value`` as a worker count: ``"auto"``, or an int >= 0 (a string of digits, as a
    command line gives it, is read as one); anything else raises ValueError naming ``name``.

    Example:
        >>> coerce_workers("auto"), coerce_workers("2"), coerce_workers(0)
        ('auto', 2, 0)
        >>> coerce_workers(-1)
        Traceback (most recent call last):
        ...
        ValueError: EnvConfig.num_workers=-1: use 'auto' (one shard per core once the batch is \
large enough to pay for it) or an int >= 0 (0 = run in the caller's process).
    """
    if isinstance(value, str):
        text = value.strip().lower()
        value = "auto" if text == "auto" else int(text) if text.isdigit() else value
    if value == "auto" or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return value
    raise ValueError(f"{name}={value!r}: use 'auto' (one shard per core once the batch is "
                     "large enough to pay for it) or an int >= 0 (0 = run in the caller's "
                     "process).")


def _check_choice(name: str, value: Any, choices: Any) -> None:
    if value not in get_args(choices):
        raise ValueError(f"EnvConfig.{name}={value!r}: choose one of "
                         f"{', '.join(map(repr, get_args(choices)))}.")


@dataclass(frozen=True)
class EpisodeConfig:
    """The limits of one episode, as the runtime reads them (the fields of :class:`EnvConfig`
    of the same names document them).

    Example:
        >>> EpisodeConfig(max_episode_steps=0)
        Traceback (most recent call last):
        ...
        ValueError: EnvConfig.max_episode_steps=0: must be >= 1.
    """

    max_episode_steps: int = 30
    max_text_length: int = 100_000
    max_action_chars: int = 100_000
    tool_timeout_s: float = 10.0
    unknown_tool: UnknownToolMode = "observe"
    record_timings: bool = False

    def __post_init__(self) -> None:
        _check_choice("unknown_tool", self.unknown_tool, UnknownToolMode)
        for name in ("max_episode_steps", "max_text_length", "max_action_chars"):
            if getattr(self, name) < 1:
                raise ValueError(f"EnvConfig.{name}={getattr(self, name)}: must be >= 1.")
        if not self.tool_timeout_s > 0:
            raise ValueError(f"EnvConfig.tool_timeout_s={self.tool_timeout_s}: must be > 0 "
                             "seconds.")


@dataclass(frozen=True)
class ShardingConfig:
    """Where instances and world code run: shards, their backend, containment (the fields of
    :class:`EnvConfig` of the same names document them).

    Example:
        >>> ShardingConfig(num_workers="2").num_workers
        2
        >>> ShardingConfig(backend="ray")
        Traceback (most recent call last):
        ...
        ValueError: EnvConfig.backend='ray' with num_workers='auto': each shard is a Ray actor, \
so set num_workers >= 1 (e.g. one per node or core).
    """

    num_workers: Workers = "auto"
    backend: Backend = "local"
    ray_address: str | None = None
    isolation: Isolation = "auto"
    worker_memory_mb: int | None = 4096
    import_timeout_s: float = 60.0
    local_processes: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "num_workers", coerce_workers(self.num_workers))
        _check_choice("isolation", self.isolation, Isolation)
        if isinstance(self.local_processes, bool) or not isinstance(self.local_processes, int) \
                or self.local_processes < 1:
            raise ValueError(f"EnvConfig.local_processes={self.local_processes!r}: must be an "
                             "int >= 1 (the processes on this machine that each make an env, "
                             "e.g. torchrun's LOCAL_WORLD_SIZE).")
        self._check_backend()
        if self.worker_memory_mb is not None and self.worker_memory_mb < 256:
            raise ValueError(f"EnvConfig.worker_memory_mb={self.worker_memory_mb}: must be >= 256 "
                             "(MB), or None for no limit.")
        if not self.import_timeout_s > 0:
            raise ValueError(f"EnvConfig.import_timeout_s={self.import_timeout_s}: must be > 0 "
                             "seconds.")

    def _check_backend(self) -> None:
        _check_choice("backend", self.backend, Backend)
        if self.backend == "local":
            if self.ray_address is not None:
                raise ValueError(f"EnvConfig.ray_address={self.ray_address!r} is only read with "
                                 "backend='ray'; pass backend='ray' (and num_workers >= 1) or "
                                 "drop ray_address.")
            return
        if self.num_workers == "auto" or self.num_workers < 1:
            raise ValueError(f"EnvConfig.backend='ray' with num_workers={self.num_workers!r}: each "
                             "shard is a Ray actor, so set num_workers >= 1 (e.g. one per node "
                             "or core).")
        try:
            import ray  # noqa: F401 - only checks that the optional extra is there
        except ImportError as e:
            raise ValueError("EnvConfig.backend='ray' needs the ray package, which is not "
                             'installed: pip install "awm-gym[ray]".') from e

    def is_contained(self, world_set_root: str, builtin_root: str) -> bool:
        """Whether world code of the set at ``world_set_root`` runs in contained workers."""
        if self.isolation == "auto":
            return os.path.realpath(world_set_root) != os.path.realpath(builtin_root)
        return self.isolation in ("process", "world")


@dataclass(frozen=True)
class EnvConfig:
    """How instances of a world behave."""

    max_episode_steps: int = 30
    """Turns before truncation (AWM's agent default: 30)."""
    tool_timeout_s: float = 10.0
    """Wall-clock limit of one tool call (fastapi_mcp's own HTTP timeout is 10 s)."""
    verifier_timeout_s: float = 10.0
    """Wall-clock limit of one verifier run."""
    import_timeout_s: float = 60.0
    """Limit for first importing a world's code in a probe subprocess (Python start included);
    a world that hangs or exits at import fails with a WorldLoadError naming it. Paid once per
    world content; built-in worlds are not probed."""
    verifier_workers: int = 2
    """Worker processes that run verifiers (started on first use)."""
    num_workers: Workers = "auto"
    """Worker processes to shard instances over (vector env only). ``"auto"`` (default): for
    trusted code, one shard per core once there are 64 instances per shard (at least two
    shards; fewer instances run in the caller's process, where a pipe round trip would cost
    more than a second core saves), for contained code one worker per 32 instances up to one
    per core (:func:`awm_gym.envs.vector_env.shard_count`). 0 runs everything in the caller's
    process (trusted code only); k >= 1 isolates crashes and lets instances use k cores. A
    string of digits is read as an int. See docs/benchmarks/containment.md, 'Worker count'."""
    local_processes: int = 1
    """Processes on this machine that each make an env like this one and share its cores (a
    data-parallel trainer's ranks on the node, torchrun's LOCAL_WORLD_SIZE): ``num_workers``
    "auto" counts ``cores // local_processes`` cores (at least 1), so 8 ranks on 16 cores start
    2 workers each, not 16. Explicit worker counts are taken as they are."""
    backend: Backend = "local"
    """Where the ``num_workers`` shards run: 'local' (processes on this machine) or 'ray' (one
    Ray actor per shard, placed anywhere in the Ray cluster at ``ray_address``; needs
    ``pip install "awm-gym[ray]"``; see docs/runtime.md, 'Ray')."""
    ray_address: str | None = None
    """The Ray cluster for ``backend='ray'`` (``"auto"``, ``"ray://head:10001"``,
    ``"head:6379"``), joined with ``ray.init(address=...)`` when this process is not connected
    to Ray yet; a process already connected (your own ``ray.init``) keeps its cluster. None: the
    connected cluster, else a new local one."""
    isolation: Isolation = "auto"
    """Where world code runs: 'process' (tool handlers in contained worker processes: see
    docs/runtime.md, 'Untrusted code'; the worlds of a multi-world env share them), 'world'
    (contained too, and each world in worker processes of its own, so no world can reach
    another world's databases: ``num_workers`` is then per world, "auto" one each; costs one
    worker and one verifier process per world), 'none' (in the caller's process, the fast path
    for code you trust), or 'auto' ('none' for the built-in worlds, 'process' for world sets
    loaded from disk)."""
    worker_memory_mb: int | None = 4096
    """Address-space limit of each contained worker process (None: no limit)."""
    scratch_quota_mb: int = 1024
    """Most a contained worker's scratch directory may hold: one file past it fails with
    ``EFBIG`` (``RLIMIT_FSIZE``), and all files together past it are removed after the action
    that crossed it, which reads an error (``tool_outcome="scratch_quota"``)."""
    verifier_mode: VerifierMode = field(default=VerifierMode.AUTO,
                                        metadata={"choices": SCORING_MODES})
    """'code' (pure-code verifiers), 'sql' (evidence for an LLM judge), or 'auto' (code if the
    task has one, else sql); a string is accepted and coerced."""
    clock: str | None = None
    """Every world's base time, 'YYYY-MM-DD HH:MM:SS' (UTC): seed rows see it and each episode's
    clock starts at it on reset. None: per world, the latest timestamp in its seed rows'
    "when it happened" columns rounded up to the hour, never before 2026-01-01 12:00:00
    (docs/worlds.md, "The clock")."""
    clock_step_s: float = 1.0
    """Seconds the clock advances before each tool call (0: it stays at the base time for the
    whole episode). Same seed and actions give the same times on any machine and day."""
    cache_dir: str | None = None
    """Template database cache; None means $AWM_GYM_CACHE or ~/.cache/awm_gym."""
    max_text_length: int = 100_000
    """Longest observation or action the spaces accept, in characters."""
    max_action_chars: int = 100_000
    """Longest action parsed, in characters. A longer one is a malformed action (reward
    ``rewards.format_error``, the episode terminates) whose observation names this limit; it is
    decided before any parsing, so no turn costs more than this much work."""
    record_timings: bool = False
    """Add ``tool_time_s`` / ``verify_time_s`` to ``info`` (off by default: timings differ
    between runs, and Gymnasium's checker requires deterministic infos)."""
    rewards: RewardConfig = field(default_factory=RewardConfig)
    """Reward per outcome."""
    judge: JudgeConfig | None = None
    """The LLM judge for sql-mode verifiers (a ``JudgeConfig`` or a dict of its fields). None:
    sql-mode episodes end ``awaiting_judge``, unscored. Set: they are judged in one batch per
    step and rewarded by ``rewards.judge_table``."""
    unknown_tool: UnknownToolMode = "observe"
    """A call to a tool the world does not have. 'observe' (AWM's agent): the observation is
    AWM's ``Error: ...`` text, reward 0, the episode goes on, ``info["tool_outcome"]`` is
    ``unknown_tool``. 'format_error': a malformed action (``rewards.format_error``, the episode
    ends)."""
    strict: bool = False
    """A multi-world env (``AWM/mix-v0``, ``worlds=[...]``) leaves out a world that cannot be
    prepared, with a ``WorldSkippedWarning`` naming it and the cause; ``strict=True`` raises its
    ``WorldLoadError`` instead. A single-world env always raises."""
    world_weights: Mapping[str, float] | None = None
    """How a seed picks an instance's world in a multi-world env (``AWM/mix-v0``): with weights
    (world name -> weight >= 0; worlds not named get 0), a world in proportion to its weight,
    then one of its tasks uniformly. None: uniformly over the tasks of all worlds. Stored as a
    sorted tuple of ``(name, weight)`` pairs."""
    rubric: Rubric | None = None
    """A reward composition (``awm_gym.scoring.rubrics``) replacing the default label -> reward
    mapping for final answers; it may combine the code verifier, the judge and format checks."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "verifier_mode", VerifierMode.coerce(self.verifier_mode))
        object.__setattr__(self, "num_workers", coerce_workers(self.num_workers))
        _ = self.episode, self.sharding  # each part checks its own fields
        if self.verifier_workers < 1:
            raise ValueError(f"EnvConfig.verifier_workers={self.verifier_workers}: must be >= 1.")
        if self.scratch_quota_mb < 1:
            raise ValueError(f"EnvConfig.scratch_quota_mb={self.scratch_quota_mb}: must be >= 1 "
                             "(MB).")
        if self.clock is not None:
            parse_instant(self.clock, "EnvConfig.clock")
        if not self.clock_step_s >= 0:
            raise ValueError(f"EnvConfig.clock_step_s={self.clock_step_s}: must be >= 0 seconds "
                             "(0 keeps the clock at the base time for the whole episode).")
        if not self.verifier_timeout_s > 0:
            raise ValueError(f"EnvConfig.verifier_timeout_s={self.verifier_timeout_s}: must be > 0 "
                             "seconds.")
        if self.world_weights is not None:
            object.__setattr__(self, "world_weights", _weights(self.world_weights))
        if isinstance(self.judge, Mapping):
            object.__setattr__(self, "judge", JudgeConfig(**_judge_fields(self.judge)))
        if self.judge is not None and not isinstance(self.judge, JudgeConfig):
            raise ValueError(f"EnvConfig.judge: expected a JudgeConfig or a dict of its fields, "
                             f"got {type(self.judge).__name__}.")
        if self.rubric is not None:
            if not isinstance(self.rubric, Rubric):
                raise ValueError(f"EnvConfig.rubric: expected an awm_gym.scoring.rubrics.Rubric, "
                                 f"got {type(self.rubric).__name__}.")
            if "judge" in self.rubric.requires and self.judge is None:
                raise ValueError("EnvConfig.rubric uses the LLM judge but EnvConfig.judge is None;"
                                 " pass judge=JudgeConfig(base_url=..., model=...).")

    @property
    def episode(self) -> EpisodeConfig:
        """The part of this config that one episode's limits read."""
        return EpisodeConfig(max_episode_steps=self.max_episode_steps,
                             max_text_length=self.max_text_length,
                             max_action_chars=self.max_action_chars,
                             tool_timeout_s=self.tool_timeout_s, unknown_tool=self.unknown_tool,
                             record_timings=self.record_timings)

    @property
    def sharding(self) -> ShardingConfig:
        """The part of this config that says where instances and world code run."""
        return ShardingConfig(num_workers=self.num_workers, backend=self.backend,
                              ray_address=self.ray_address, isolation=self.isolation,
                              worker_memory_mb=self.worker_memory_mb,
                              import_timeout_s=self.import_timeout_s,
                              local_processes=self.local_processes)

    @property
    def scoring(self) -> ScoringConfig:
        """The part of this config that scoring reads."""
        return ScoringConfig(verifier_mode=self.verifier_mode, rewards=self.rewards,
                             rubric=self.rubric, judge=self.judge,
                             verifier_workers=self.verifier_workers,
                             verifier_timeout_s=self.verifier_timeout_s,
                             record_timings=self.record_timings)


def _weights(weights: Any) -> tuple[tuple[str, float], ...]:
    pairs = weights.items() if isinstance(weights, Mapping) else weights
    try:
        out = tuple(sorted((str(name), float(weight)) for name, weight in pairs))
    except (TypeError, ValueError) as e:
        raise ValueError(f"EnvConfig.world_weights={weights!r}: give a mapping of world name -> "
                         "weight (a number >= 0), e.g. {'spotify': 2.0, 'notion': 1.0}.") from e
    bad = [(n, w) for n, w in out if not (w >= 0 and math.isfinite(w))]
    if bad or not any(w > 0 for _, w in out):
        raise ValueError(f"EnvConfig.world_weights: weights must be finite numbers >= 0, at "
                         f"least one of them > 0; got {dict(bad or out)}.")
    return out


def _judge_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    known = JudgeConfig.__dataclass_fields__
    unknown = sorted(set(fields) - set(known))
    if unknown:
        raise ValueError(f"EnvConfig.judge: unknown field(s) {unknown}; JudgeConfig has "
                         f"{', '.join(known)}.")
    return dict(fields)


def env_config_from(options: Mapping[str, Any]) -> EnvConfig:
    """The :class:`EnvConfig` of an env's keyword options; an unknown option is an
    :class:`~awm_gym.errors.EnvUsageError` that lists the valid ones.

    Example:
        >>> env_config_from({"max_episode_steps": 4}).max_episode_steps
        4
        >>> env_config_from({"max_steps": 4})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        awm_gym.errors.EnvUsageError: ...unexpected keyword argument 'max_steps'. Valid options are the fields of awm_gym.EnvConfig: ...
    """
    try:
        return EnvConfig(**options)
    except TypeError as e:
        raise EnvUsageError(f"{e}. Valid options are the fields of awm_gym.EnvConfig: "
                            f"{', '.join(EnvConfig.__dataclass_fields__)}.") from e
