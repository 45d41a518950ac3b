"""What each ``awm`` command of :mod:`awm_gym.cli` takes: one frozen dataclass per command.

The docstring under each field is the option's ``--help`` text (built by
:mod:`awm_gym.cli_config`); flags are the kebab-case field names (``num_envs`` is
``--num-envs``), with the snake_case spelling accepted too.

Example:
    >>> RunOptions().policy, RunOptions(worlds=("a,b", "c")).world_names
    ('oracle', ('a', 'b', 'c'))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from awm_gym.envs import coerce_workers
from awm_gym.errors import CommandLineError

__all__ = ["ListOptions", "CheckOptions", "DemoOptions", "SplitOptions", "RunOptions",
           "EvalOptions", "RecordOptions", "RenderOptions", "RescoreOptions"]


def _at_least(owner: object, name: str, low: int) -> None:
    value = getattr(owner, name)
    if value is not None and value < low:
        raise CommandLineError(f"--{name.replace('_', '-')} {value}: must be >= {low}.")


@dataclass(frozen=True)
class ListOptions:
    """``awm list``: the worlds of a world set and their Gymnasium ids."""

    path: str | None = None
    """World set directory, or a Hugging Face dataset id org/name[@revision] (default: the
    built-in worlds)."""


@dataclass(frozen=True)
class CheckOptions:
    """``awm check``: triage each world (errors, defects, info) and print one block per world
    as it is done. Exit status: 0 nothing worse than info, 1 a defect, 2 an error."""

    path: str | None = None
    """World set directory, or a Hugging Face dataset id org/name[@revision] (default: the
    built-in worlds)."""
    world: tuple[str, ...] = ()
    """Check only these worlds (default: all)."""
    details: bool = False
    """Print findings whole, with their details."""
    json: bool = False
    """Print one JSON object per world instead."""
    write_exclusions: str | None = None
    """Write the tasks with error or defect findings, with their reasons and the set's hash, to
    this file (give it to envs as exclude=FILE, awm train as --rollout.exclude FILE)."""
    verifier_timeout_s: float = 10.0
    """Seconds per verifier run."""
    tool_timeout_s: float = 10.0
    """Seconds per tool call."""


@dataclass(frozen=True)
class DemoOptions:
    """``awm demo``: replay reference solutions through a vector env."""

    path: str | None = None
    """World set directory, or a Hugging Face dataset id org/name[@revision] (default: the
    built-in worlds)."""
    world: str = "spotify"
    """World to run."""
    num_envs: int = 64
    """Instances."""

    def __post_init__(self) -> None:
        _at_least(self, "num_envs", 1)


@dataclass(frozen=True)
class SplitOptions:
    """``awm split``: write a train / val_tasks / val_worlds split of a world set as JSON
    (awm_gym.split_worlds; the format is in docs/world.md)."""

    path: str | None = None
    """World set directory, or a Hugging Face dataset id org/name[@revision] (default: the
    built-in worlds)."""
    val_worlds: float = 0.2
    """Fraction of worlds held out whole (at least one when > 0 and there are >= 2 worlds)."""
    val_tasks: float = 0.2
    """Fraction of each training world's tasks held out."""
    seed: int = 0
    """Ranks worlds and tasks; the same seed and set give the same split on any machine."""
    out: str | None = None
    """Where to write the split (default: PATH/split.json beside the world set; split.json in
    the current directory for the built-in worlds or a Hugging Face dataset id)."""
    exclude: str | None = None
    """An exclusion file (`awm check PATH --write-exclusions FILE`): its tasks are in no
    subset."""

    def __post_init__(self) -> None:
        for name in ("val_worlds", "val_tasks"):
            value = getattr(self, name)
            if not 0 <= value < 1:
                raise CommandLineError(f"--{name.replace('_', '-')} {value}: use a fraction in "
                                       "[0, 1) (0.2 holds out a fifth).")


@dataclass(frozen=True)
class RunOptions:
    """Which policy acts, on which instances (shared by ``awm eval``, ``record`` and ``render``)."""

    policy: str = "oracle"
    """oracle | random | module:Class."""
    policy_arg: tuple[str, ...] = ()
    """Policy constructor arguments as KEY=VALUE (values are read as JSON when they parse)."""
    worlds_dir: str | None = None
    """Register this world set first (a directory, or a Hugging Face dataset id
    org/name[@revision])."""
    worlds: tuple[str, ...] = ()
    """Worlds for AWM/mix-v0, comma- or space-separated (default: all)."""
    num_envs: int = 16
    """Instances run at once."""
    num_workers: int | str = "auto"
    """Worker processes: auto (one per core once each gets 64 instances), 0 (this process) or
    k >= 1."""
    backend: str = "local"
    """Where the workers run: local (processes here) | ray (Ray actors; see docs/runtime.md,
    'Ray')."""
    ray_address: str | None = None
    """The Ray cluster for --backend ray (None: a new local one)."""
    max_steps: int = 30
    """Turns per episode."""
    seed: int = 0
    """Episode k gets seed + k."""
    task_idx: int | None = None
    """Run only this task index."""
    world: str | None = None
    """Run only this world (of a mix)."""
    split: str | None = None
    """A split file (`awm split`): episodes draw only tasks of --subset, and results are
    reported per subset."""
    subset: Literal["train", "val_tasks", "val_worlds"] | None = None
    """The split's subset to run (default with --split: all three)."""
    exclude: str | None = None
    """An exclusion file (`awm check PATH --write-exclusions FILE`): its tasks are never run."""
    quiet: bool = False
    """No progress bar."""

    def __post_init__(self) -> None:
        for name in ("num_envs", "max_steps"):
            _at_least(self, name, 1)
        _at_least(self, "task_idx", 0)
        try:
            object.__setattr__(self, "num_workers", coerce_workers(self.num_workers,
                                                                   "--num-workers"))
        except ValueError as e:
            raise CommandLineError(str(e)) from None
        if self.subset is not None and self.split is None:
            raise CommandLineError(f"--subset {self.subset} needs --split FILE (write one with "
                                   "`awm split PATH`).")

    @property
    def world_names(self) -> tuple[str, ...]:
        """``worlds`` with commas split."""
        return tuple(w for item in self.worlds for w in item.split(",") if w)


@dataclass(frozen=True)
class EvalOptions:
    """``awm eval``: a policy on exactly N episodes (World.evaluate)."""

    env: str
    """Env id, e.g. AWM/spotify-v0 or AWM/mix-v0."""
    run: RunOptions = field(default_factory=RunOptions)
    """The policy and the instances."""
    episodes: int = 100
    """Episodes."""
    json: str | None = None
    """Also write the full result to this JSON file."""

    def __post_init__(self) -> None:
        _at_least(self, "episodes", 1)


@dataclass(frozen=True)
class RecordOptions:
    """``awm record``: rollouts as a Hugging Face dataset (World.record_dataset)."""

    env: str
    """Env id, e.g. AWM/spotify-v0 or AWM/mix-v0."""
    name: str
    """Dataset name (under --cache-dir) or a path."""
    run: RunOptions = field(default_factory=RunOptions)
    """The policy and the instances."""
    episodes: int = 100
    """Episodes."""
    cache_dir: str | None = None
    """Datasets directory (default: $AWM_GYM_DATASETS or ~/.cache/awm_gym/datasets)."""
    mode: Literal["error", "append", "overwrite"] = "error"
    """What to do when the dataset exists."""
    info_key: tuple[str, ...] = ()
    """Info keys stored per step (default: a useful set)."""

    def __post_init__(self) -> None:
        _at_least(self, "episodes", 1)


@dataclass(frozen=True)
class RenderOptions:
    """``awm render``: HTML transcripts of recorded or live episodes."""

    out: str
    """Output directory."""
    dataset: str | None = None
    """Render this recorded dataset (name or path)."""
    cache_dir: str | None = None
    """Datasets directory of --dataset."""
    episode: tuple[int, ...] = ()
    """Episode indices of --dataset (default: the first --max-episodes)."""
    env: str | None = None
    """Run live episodes of this env id instead."""
    max_episodes: int = 10
    """Episodes."""
    run: RunOptions = field(default_factory=RunOptions)
    """The policy and the instances (live episodes)."""

    def __post_init__(self) -> None:
        _at_least(self, "max_episodes", 1)
        if (self.dataset is None) == (self.env is None):
            raise CommandLineError("give --dataset NAME (recorded episodes) or --env ID with "
                                   "--policy P (live episodes), not both or neither.")


@dataclass(frozen=True)
class RescoreOptions:
    """``awm rescore``: replay each recorded episode's actions on its world, task and seed, score
    it with the verifiers as they are now, write the new rewards beside the old (a new dataset)
    and print the episodes whose outcome changed, and those whose replay diverged from the
    recording (not rescored). Reads `awm record` datasets and tables of rollouts (columns
    world, task_idx, seed and actions; see awm_gym.manager.rescore_source)."""

    dataset: str
    """The dataset: a name under --cache-dir, a directory, or a .parquet / .jsonl file."""
    world_set: str | None = None
    """World set to replay on (default: the one the dataset was recorded on, else the built-in
    worlds)."""
    out: str | None = None
    """Where the rescored dataset goes (default: DATASET-rescored beside it)."""
    mode: Literal["error", "overwrite"] = "error"
    """What to do when --out exists."""
    cache_dir: str | None = None
    """Datasets directory of a DATASET given by name."""
    num_envs: int = 16
    """Instances replaying at once."""
    isolation: Literal["auto", "process", "world", "none"] = "auto"
    """Where world code runs (EnvConfig.isolation): auto is contained for world sets on disk;
    none runs a world set you trust in this process."""
    max_steps: int | None = None
    """Step limit of the replay (default: the recording's, else the longest episode's)."""

    def __post_init__(self) -> None:
        for name in ("num_envs", "max_steps"):
            _at_least(self, name, 1)


@dataclass(frozen=True)
class DoctorOptions:
    """``awm doctor``: import each installed extra's entry points (transformers, trl, vllm,
    openenv, inspect, skyrl, verifiers, ray, peft, the sandbox layers; each integration through
    its awm_gym.integrations bridge), each in a fresh interpreter; report what is broken
    and the exact fix. Exit status 0 when everything installed imports, 1 otherwise."""

    only: tuple[str, ...] = ()
    """Check only these modules (e.g. --only transformers --only trl; empty: all)."""
