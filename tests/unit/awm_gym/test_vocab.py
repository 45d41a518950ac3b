"""awm_gym/vocab.py: one set of words, written on every wire exactly as the old strings were."""

from __future__ import annotations

import enum
import json
import pickle
import re

import pyarrow as pa
import pytest

from awm_gym import vocab
from awm_gym.cli_config import CommandParser, add_config_arguments, config_from_args
from awm_gym.envs.config import EnvConfig
from awm_gym.errors import SplitError
from awm_gym.scoring import verifier_worker
from awm_gym.vocab import (
    GENERATION_MODES,
    JUDGE_LABELS,
    SCORING_MODES,
    VERIFIER_KINDS,
    JudgeLabel,
    ToolOutcome,
    VerifierLabel,
    VerifierMode,
    coerce_enum,
)
from synth.config import SynthConfig
from synth.errors import SynthConfigError

# The strings recorded datasets, transcripts, metrics and the server protocol carry. A member
# renamed or removed here changes what is on disk and on the wire: this table must not move.
WIRE_STRINGS: dict[type[enum.Enum], set[str]] = {
    VerifierMode: {"auto", "code", "sql", "both"},
    VerifierLabel: {"complete", "others", "awaiting_judge", "verifier_error", "no_verifier"},
    JudgeLabel: {"complete", "incomplete", "agent_error", "server_error", "judge_error"},
    ToolOutcome: {"ok", "http_error", "input_invalid", "timeout", "crash", "unknown_tool",
                  "worker_died", "worker_timed_out", "scratch_quota"},
}


def test_every_enum_of_the_vocabulary_is_pinned():
    defined = {v for v in vars(vocab).values() if isinstance(v, type)
               and issubclass(v, enum.Enum) and v.__module__ == vocab.__name__ and len(v)}
    assert defined == set(WIRE_STRINGS)


@pytest.mark.parametrize("kind", list(WIRE_STRINGS), ids=lambda k: k.__name__)
def test_every_member_round_trips_as_its_old_string(kind):
    assert {m.value for m in kind} == WIRE_STRINGS[kind]
    for member in kind:
        old = member.value
        assert json.dumps(member) == json.dumps(old)
        assert json.dumps({member: [member]}) == json.dumps({old: [old]})
        back = json.loads(json.dumps(member))
        assert type(back) is str and back == member and kind(back) is member
        assert str(member) == f"{member}" == old and repr(member) == repr(old)
        assert hash(member) == hash(old) and {old: 1}[member] == 1
        assert pickle.loads(pickle.dumps(member)) is member
        assert pa.array([member], type=pa.large_string()).to_pylist() == [old]


def test_judge_labels_are_the_four_awm_answers():
    assert [str(label) for label in JUDGE_LABELS] == ["complete", "incomplete", "agent_error",
                                                     "server_error"]
    assert set(vocab.JUDGE_REWARDS) == set(JUDGE_LABELS)


def test_mode_subsets_and_kinds():
    assert VERIFIER_KINDS == (VerifierMode.CODE, VerifierMode.SQL)
    assert VerifierMode.BOTH not in SCORING_MODES and VerifierMode.AUTO not in GENERATION_MODES
    assert VerifierMode.BOTH.kinds == VerifierMode.AUTO.kinds == VERIFIER_KINDS
    assert VerifierMode.CODE.kinds == (VerifierMode.CODE,)


def test_the_stdlib_verifier_worker_speaks_the_same_strings():
    # The worker runs without awm_gym; its plain strings must stay the vocabulary's.
    assert set(verifier_worker._MODES) == {m.value for m in VERIFIER_KINDS}
    assert verifier_worker._CODE_LABELS == {VerifierLabel.COMPLETE, VerifierLabel.OTHERS}


def test_coerce_names_the_field_and_lists_the_allowed_values():
    with pytest.raises(ValueError, match=re.escape(
            "EnvConfig.verifier_mode='both': choose one of 'auto', 'code', 'sql'.")):
        coerce_enum(VerifierMode, "both", field="EnvConfig.verifier_mode", allowed=SCORING_MODES)
    with pytest.raises(SplitError, match=re.escape(
            "subset=3: choose one of 'ok', 'crash'.")):
        coerce_enum(ToolOutcome, 3, field="subset", error=SplitError,
                    allowed=[ToolOutcome.OK, ToolOutcome.CRASH])
    with pytest.raises(ValueError, match=re.escape(
            "mode='fast': choose one of 'code', 'sql' (or 'pure')")):
        coerce_enum(VerifierMode, "fast", field="mode", allowed=VERIFIER_KINDS,
                    aliases={"pure": "code"})


def test_coerce_accepts_members_values_and_aliases():
    assert coerce_enum(VerifierMode, VerifierMode.SQL, field="m") is VerifierMode.SQL
    assert coerce_enum(VerifierMode, "sql", field="m") is VerifierMode.SQL
    assert coerce_enum(VerifierMode, "pure", field="m", aliases={"pure": "code"}) \
        is VerifierMode.CODE


def test_configs_coerce_modes_with_their_own_choices():
    assert EnvConfig(verifier_mode="sql").verifier_mode is VerifierMode.SQL
    assert SynthConfig(verifier_mode="both").verifier_modes == VERIFIER_KINDS
    with pytest.raises(SynthConfigError, match=re.escape(
            "SynthConfig.verifier_mode='auto': choose one of 'code', 'sql', 'both'.")):
        SynthConfig(verifier_mode="auto")


def test_cli_offers_only_the_fields_own_choices(capsys):
    parser = CommandParser(prog="demo")
    add_config_arguments(parser, EnvConfig())
    cfg = config_from_args(EnvConfig(), parser.parse_args(["--verifier-mode", "code"]))
    assert cfg.verifier_mode is VerifierMode.CODE
    with pytest.raises(SystemExit):
        parser.parse_args(["--verifier-mode", "both"])
    assert "choose from 'auto', 'code', 'sql'" in capsys.readouterr().err
