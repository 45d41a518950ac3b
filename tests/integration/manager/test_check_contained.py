"""``awm check`` runs a world set's code contained by default (issue 23, item 8): a GET tool
that writes outside its scratch directory and reads the caller's secrets, called by the
check's read-tool probe, is refused; the report comes back whole (a checked JSON frame)."""

from __future__ import annotations

import dataclasses

import sys
from pathlib import Path

import pytest

from awm_gym.envs.config import EnvConfig
from awm_gym.manager.check import check_world, report_from_wire, report_to_wire

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fixtures"))
from make_hostile_world import WORLD, write_hostile_world  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux containment")


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    marker = tmp_path / "marker"
    monkeypatch.setenv("AWM_TEST_SECRET", "sk-do-not-leak")
    monkeypatch.setenv("AWM_GYM_CACHE", str(tmp_path / "cache"))
    return write_hostile_world(tmp_path / "world", marker=str(marker)), marker


def _config(**kw: object) -> EnvConfig:
    return EnvConfig(max_episode_steps=1000, tool_timeout_s=2.0, verifier_timeout_s=5.0, **kw)


def test_check_contains_a_hostile_world_by_default(hostile) -> None:  # noqa: ANN001
    root, marker = hostile
    [report] = check_world(str(root), config=_config())
    assert report.world == WORLD and report.tools_probed > 0
    assert not Path(str(marker) + ".status").exists()  # the GET tool's write was refused
    failed = [f for f in report.all_findings if f.kind == "tool_fails_on_seed_arguments"]
    assert any(f.tool == "lab_status" for f in failed), report.summary(verbose=True)
    # the digest is the caller's own (computed from the rows here, never taken from the worker)
    assert report_from_wire(report_to_wire(report)) == dataclasses.replace(report, digest="")


def test_without_containment_the_same_tool_writes_and_reads_secrets(hostile) -> None:  # noqa: ANN001
    root, marker = hostile  # what the check did before issue 23, and does on isolation="none"
    check_world(str(root), config=_config(isolation="none"))
    assert Path(str(marker) + ".status").read_text() == "sk-do-not-leak"


def test_a_forged_report_is_refused() -> None:
    with pytest.raises(ValueError, match="not a world report"):
        report_from_wire({"world": "x", "findings": [], "tasks": "no"})
    with pytest.raises(ValueError, match="not a finding"):
        report_from_wire({"world": "x", "findings": [{"severity": "fatal"}], "tasks": [],
                          "inserts_failed": 0, "tables_failed": 0, "tools_probed": 0,
                          "template_failures": []})
