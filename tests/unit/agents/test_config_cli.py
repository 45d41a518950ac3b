"""agents/config.py and cli.py (options from awm_gym.cli_config): validation, generated options,
round trips."""

from __future__ import annotations

import argparse
import re

import pytest

from agents.cli import add_subcommands, train_config_from_args
from agents.config import TrainConfig, config_from_dict, config_to_dict
from agents.errors import AgentConfigError
from agents.grpo.config import GRPOConfig, OptimConfig, RolloutConfig
from awm_gym.cli_config import add_config_arguments, config_from_args, field_docs


def _train_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="awm")
    add_subcommands(parser.add_subparsers(dest="command"))
    return parser.parse_args(["train", *argv])


def test_options_override_only_what_is_given():
    cfg = train_config_from_args(_train_args(
        "--grpo.clip-high", "0.3", "--rollout.worlds", "spotify", "gmail",
        "--chat.history-turns", "none", "--grpo.advantage", "mean",
        "--grpo.cut-turn", "penalty",
        "--model.tiny.hidden-size", "64"))
    default = TrainConfig()
    assert cfg.grpo.clip_high == 0.3 and cfg.grpo.clip_low == default.grpo.clip_low
    assert cfg.rollout.worlds == ("spotify", "gmail")
    assert cfg.chat.history_turns is None and cfg.chat.catalogue == default.chat.catalogue
    assert cfg.grpo.advantage.value == "mean" and cfg.grpo.cut_turn.value == "penalty"
    assert cfg.model.tiny.hidden_size == 64
    assert train_config_from_args(_train_args()) == default


def test_help_text_is_the_field_docstring():
    docs = field_docs(GRPOConfig)
    assert docs["clip_high"].startswith("The ratio may rise to")
    parser = argparse.ArgumentParser()
    add_config_arguments(parser, GRPOConfig())
    action = parser._option_string_actions["--kl-coef"]  # noqa: SLF001 - argparse has no getter
    assert action.help == docs["kl_coef"] + " (default: 0.0)"
    assert parser._option_string_actions["--advantage"].choices == ["group", "mean", "batch"]


def test_generated_options_still_validate():
    parser = argparse.ArgumentParser()
    add_config_arguments(parser, RolloutConfig())
    with pytest.raises(AgentConfigError, match=re.escape("group_size=1")):
        config_from_args(RolloutConfig(), parser.parse_args(["--group-size", "1"]))


@pytest.mark.parametrize("factory, text", [
    (lambda: RolloutConfig(group_size=1), "group_size=1"),
    (lambda: RolloutConfig(backend="tpu"), "backend='tpu'"),
    (lambda: GRPOConfig(clip_low=1.5), "clip_low=1.5"),
    (lambda: GRPOConfig(kl_coef=-1), "kl_coef=-1"),
    (lambda: GRPOConfig(cut_turn="drop"), "cut_turn='drop'"),
    (lambda: GRPOConfig(tis_cap=0.0), "tis_cap=0.0"),
    (lambda: OptimConfig(optimizer_steps_per_step=0), "optimizer_steps_per_step=0"),
])
def test_bad_values_name_the_field(factory, text):
    with pytest.raises(AgentConfigError, match=re.escape(text)):
        factory()


def test_config_round_trips_through_json_values():
    cfg = train_config_from_args(_train_args("--rollout.worlds", "spotify", "--grpo.steps", "3"))
    assert config_from_dict(TrainConfig, config_to_dict(cfg)) == cfg
    with pytest.raises(AgentConfigError, match="no field"):
        config_from_dict(GRPOConfig, {"clip": 0.2})


def test_warmup_schedule():
    optim = OptimConfig(lr=1.0, warmup_steps=4)
    assert [optim.lr_at(s) for s in range(6)] == [0.25, 0.5, 0.75, 1.0, 1.0, 1.0]


def test_a_sampler_precision_other_than_the_trainers_is_an_error_unless_allowed():
    from agents.config import ModelConfig
    from agents.policies.vllm_policy import VLLMEngineConfig
    from agents.precision import DTypeMismatchError

    with pytest.raises(DTypeMismatchError, match=re.escape("--model.allow-dtype-mismatch")):
        TrainConfig(vllm=VLLMEngineConfig(dtype="bfloat16"))
    allowed = TrainConfig(model=ModelConfig(allow_dtype_mismatch=True),
                          vllm=VLLMEngineConfig(dtype="bfloat16"))
    assert allowed.model.dtype.value == "float32"
    both = train_config_from_args(_train_args("--model.dtype", "bfloat16", "--vllm.dtype", "bf16"))
    assert both.model.dtype.value == "bfloat16"


def test_the_split_options():
    from agents.config import SplitConfig

    default = TrainConfig().split
    assert default.is_enabled and (default.val_worlds, default.val_tasks, default.seed) == (
        0.2, 0.2, 0)
    off = train_config_from_args(_train_args("--split.val-worlds", "0", "--split.val-tasks", "0"))
    assert not off.split.is_enabled
    given = train_config_from_args(_train_args("--split.path", "s.json", "--split.val-worlds",
                                               "0", "--split.val-tasks", "0"))
    assert given.split.is_enabled and given.split.path == "s.json"
    with pytest.raises(AgentConfigError, match=re.escape("SplitConfig.val_tasks=1.0")):
        SplitConfig(val_tasks=1.0)
    from agents.evaluate import EvalConfig

    with pytest.raises(AgentConfigError, match=re.escape("val_episodes_per_task=0")):
        EvalConfig(val_episodes_per_task=0)


def test_the_catalogue_job_options_give_the_documented_run():
    from agents.chat_format import CatalogueMode
    from agents.config import CATALOGUE_JOB_ARGS

    cfg = train_config_from_args(_train_args(*CATALOGUE_JOB_ARGS))
    assert cfg.rollout.worlds is None and cfg.chat.catalogue is CatalogueMode.COMPACT
    assert cfg.model.tiny.max_position_embeddings == 4096
    assert (cfg.sft.epochs, cfg.grpo.steps, cfg.rollout.groups_per_step) == (3, 6, 2)
    assert (cfg.eval.episodes_per_task, cfg.eval.val_episodes_per_task) == (2, 6)
    default = TrainConfig()  # the main job: spotify, no catalogue
    assert default.rollout.worlds == ("spotify",) and default.chat.catalogue is CatalogueMode.NONE
