"""``awm check`` runs a world set's code contained by default (issue 23, item 8): a GET tool
that writes outside its scratch directory and reads the caller's secrets, called by the
check's read-tool probe, is refused; the report comes back whole (a checked JSON frame)."""

from __future__ import annotations

import dataclasses
import os
import socket
import sys
import textwrap
from pathlib import Path

import pytest

from awm_gym.envs.config import EnvConfig
from awm_gym.manager.check import check_world, report_from_wire, report_to_wire
from awm_gym.manager.findings import Severity

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


# -- issue 31's rules in the check worker: sockets, threads, the scratch tmpfs, leftover work ----

def _check(root: Path, **kw: object) -> list:
    return check_world(str(root), config=_config(verifier_workers=1, **kw))


def _solution_failures(report, tool: str) -> list:  # noqa: ANN001
    return [f for f in report.all_findings if f.kind == "solution_failed" and f.tool == tool]


@pytest.fixture
def unix_listener(tmp_path: Path):
    """A listening unix socket of the host (a vLLM engine's IPC socket, Ray's raylet)."""
    path = tmp_path / "host.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.listen()
    listener.setblocking(False)
    yield str(path), listener
    listener.close()


def test_a_handler_the_check_calls_cannot_reach_a_unix_socket_of_the_host(
        tmp_path: Path, unix_listener) -> None:  # noqa: ANN001
    """Before: the reference solution's call connected and sent data."""
    address, listener = unix_listener
    root = write_hostile_world(tmp_path / "world", solution_calls=[
        ("unix_connect", {"address": address})])
    [report] = _check(root)
    with pytest.raises(BlockingIOError):
        listener.accept()  # nobody connected
    [failed] = _solution_failures(report, "unix_connect")
    assert "PermissionError" in failed.message, failed.message


def test_import_time_code_cannot_reach_a_unix_socket_of_the_host(tmp_path: Path,
                                                                unix_listener) -> None:  # noqa: ANN001
    """Before: both the import probe and the check worker's load connected."""
    address, listener = unix_listener
    root = write_hostile_world(tmp_path / "world", import_code=textwrap.dedent(f"""
        try:
            _s = socket.socket(socket.AF_UNIX)
            _s.connect({address!r})
            _s.sendall(b"from the import")
        except OSError:
            pass  # refused: the world loads on
    """))
    [report] = _check(root)
    assert report.load_error is None, report.load_error
    with pytest.raises(BlockingIOError):
        listener.accept()


def test_a_handler_the_check_calls_cannot_start_a_thread(tmp_path: Path) -> None:
    """Before: two threads spun in the check worker for the rest of the check."""
    root = write_hostile_world(tmp_path / "world", solution_calls=[
        ("spin_threads", {"threads": 2})])
    [report] = _check(root)
    [failed] = _solution_failures(report, "spin_threads")
    assert "can't start new thread" in failed.message, failed.message


def test_import_time_code_cannot_start_a_thread(tmp_path: Path) -> None:
    """Before: the import started a spinning thread, in the probe and in the check worker."""
    root = write_hostile_world(tmp_path / "world", import_code=(
        "import threading\n"
        "threading.Thread(target=lambda: [None for _ in iter(int, 1)], daemon=True).start()\n"))
    [report] = _check(root)
    assert "can't start new thread" in (report.load_error or ""), report.summary(verbose=True)


def _has_user_namespaces() -> bool:
    """Whether an unprivileged process may have a user and mount namespace (the scratch tmpfs)."""
    import ctypes

    pid = os.fork()
    if pid == 0:  # CLONE_NEWUSER | CLONE_NEWNS (os.unshare is Python 3.12+)
        os._exit(ctypes.CDLL(None, use_errno=True).unshare(0x10000000 | 0x00020000) != 0)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


def test_one_call_the_check_makes_cannot_write_past_the_scratch_quota(tmp_path: Path) -> None:
    """40 files of 256 KB in one call with a 1 MB quota, each under the per-file cap. Before:
    all 10 MB were written (the quota was measured once the world's check was over)."""
    if not _has_user_namespaces():
        pytest.skip("no unprivileged user namespaces here: no scratch tmpfs (warned)")
    root = write_hostile_world(tmp_path / "world", solution_calls=[
        ("fill_many", {"files": 40, "kilobytes": 256, "strict": True})])
    [report] = _check(root, scratch_quota_mb=1)
    [failed] = _solution_failures(report, "fill_many")
    assert "No space left on device" in failed.message, failed.message


def test_work_a_handler_leaves_running_is_a_finding_and_the_next_world_is_checked(
        tmp_path: Path) -> None:
    """A POSIX timer whose handler runs world code every 50 ms after the call answered. Before:
    it ran on through the rest of the check, unreported."""
    root = write_hostile_world(tmp_path / "world", solution_calls=[("spin_on_timer", {})],
                               more_worlds=["other_lab"])
    hostile, other = _check(root)
    assert (hostile.world, other.world) == (WORLD, "other_lab")
    [left] = [f for f in hostile.findings if f.kind == "work_left_running"]
    assert "a timer still armed" in left.message and left.severity >= Severity.DEFECT
    assert other.tools_probed > 0 and not [f for f in other.all_findings
                                           if f.kind in ("check_failed", "work_left_running")]
