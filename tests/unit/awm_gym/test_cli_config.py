"""awm_gym/cli_config.py: options from dataclasses, one convention for every ``awm`` command."""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import pytest

from awm_gym.cli_config import CommandParser, add_config_arguments, config_from_args, field_docs
from awm_gym.llm_endpoint import LLMEndpoint
from awm_gym.scoring.judge import JudgeConfig


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True)
class Inner:
    batch_size: int = 8
    """Items per batch."""
    extra: Mapping[str, object] | None = None
    """A JSON object."""


@dataclass(frozen=True)
class Outer:
    path: str
    """Where to read."""
    num_envs: int = 4
    """Instances."""
    names: tuple[str, ...] = ()
    """Worlds."""
    ids: tuple[int, ...] = ()
    """Indices."""
    color: Color = Color.RED
    """A color."""
    mode: Literal["error", "append"] = "error"
    """What to do."""
    limit: int | None = 3
    """A cap (none: no cap)."""
    quiet: bool = False
    """No bar."""
    inner: Inner = field(default_factory=Inner)
    """The inner part."""
    flat: Inner = field(default_factory=lambda: Inner(batch_size=2))
    """A flattened part."""

    def __post_init__(self) -> None:
        if self.num_envs < 1:
            raise ValueError(f"Outer.num_envs={self.num_envs}: must be >= 1.")


def _parse(*argv: str, **kwargs: object) -> Outer:
    parser = CommandParser(prog="demo")
    add_config_arguments(parser, Outer, positional={"path"}, flatten={"flat"},
                         names={"flat.batch_size": "flat-batch"}, **kwargs)
    return config_from_args(Outer, parser.parse_args(list(argv)))


def test_kebab_flags_snake_aliases_sections_and_types() -> None:
    cfg = _parse("data", "--num_envs", "7", "--names", "a", "b", "--names", "c", "--ids", "1",
                 "2", "--color", "blue", "--mode", "append", "--limit", "none", "--quiet",
                 "--inner-batch-size", "5", "--inner.extra", '{"k": [1]}', "--flat-batch", "9")
    assert cfg == Outer(path="data", num_envs=7, names=("a", "b", "c"), ids=(1, 2),
                        color=Color.BLUE, mode="append", limit=None, quiet=True,
                        inner=Inner(batch_size=5, extra={"k": [1]}), flat=Inner(batch_size=9))
    assert _parse("data") == Outer(path="data")


def test_help_is_the_docstring_and_hides_aliases(capsys: pytest.CaptureFixture[str]) -> None:
    parser = CommandParser(prog="demo")
    add_config_arguments(parser, Outer, positional={"path"}, aliases={"num_envs": ["--envs"]})
    text = " ".join(parser.format_help().split())
    assert "--num-envs NUM_ENVS Instances. (default: 4)" in text
    assert "--num_envs" not in text and "--envs" not in text
    assert "--inner.batch-size INNER_BATCH_SIZE Items per batch. (default: 8)" in text
    assert config_from_args(Outer, parser.parse_args(["p", "--envs", "2"])).num_envs == 2


def test_subclass_docs_win_and_inherited_fields_are_documented() -> None:
    docs = field_docs(JudgeConfig)
    assert docs["timeout_s"] == "Wall-clock limit of one judgement, retries included."
    assert docs["base_url"] == field_docs(LLMEndpoint)["base_url"]


def test_usage_errors_and_bad_values_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        _parse("data", "--color", "green")
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("demo: error: argument --color: invalid choice: 'green'")
    assert err.count("\n") == 1
    with pytest.raises(ValueError, match=re.escape("Outer.num_envs=0")):
        _parse("data", "--num-envs", "0")


def test_a_required_option_accepts_its_snake_spelling() -> None:
    @dataclass(frozen=True)
    class Needs:
        world_name: str

    parser = CommandParser(prog="demo")
    add_config_arguments(parser, Needs)
    assert config_from_args(Needs, parser.parse_args(["--world_name", "w"])).world_name == "w"
    assert config_from_args(Needs, parser.parse_args(["--world-name", "w"])).world_name == "w"


def test_two_modules_add_commands_to_one_group() -> None:
    from awm_gym.cli_config import command_group
    from awm_gym.remote.cli import add_subcommands as add_check
    from awm_gym.server.cli import add_subcommands as add_start

    parser = CommandParser(prog="awm")
    sub = parser.add_subparsers(dest="command")
    add_start(sub)
    add_check(sub)
    assert set(command_group(sub, "env").choices) == {"start", "check"}
    assert parser.parse_args(["env", "check"]).env_command == "check"
    assert parser.parse_args(["env", "start", "--world", "spotify"]).env_command == "start"
    with pytest.raises(KeyError, match="command group 'nope': add it to COMMAND_GROUPS"):
        command_group(sub, "nope")
