"""The kernel layers of awm_gym.containment on a plain install (no landlock/pyseccomp package):
each check runs in a child process, which the layers change for good (issue 23, items 2, 6, 7)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux kernel layers")

PRELUDE = textwrap.dedent('''
    import errno, os, signal, socket, sys, warnings
    sys.modules["landlock"] = None  # the sandbox extra's packages cannot be imported
    sys.modules["pyseccomp"] = None
    from awm_gym import containment
''')


def run_child(body: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(body)],
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path,
                          start_new_session=True, check=False)


def test_every_layer_is_active_without_the_sandbox_extra(tmp_path: Path) -> None:
    offered = {k: v for k, v in __import__("awm_gym.containment").containment
               .describe_layers().items() if "abi" in v or v == "on"}
    done = run_child(f'''
        report = containment.contain_this_process(containment.ContainmentPolicy(
            scratch_dir={str(tmp_path / "scratch")!r}, memory_mb=None))
        print("ACTIVE", sorted(report.active))
        for what, attempt in (("write", lambda: open({str(tmp_path / "out.txt")!r}, "w")),
                              ("socket", lambda: socket.socket()),
                              ("fork", os.fork)):
            try:
                attempt()
                print(what, "allowed")
            except PermissionError:
                print(what, "refused")
    ''', tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    active = done.stdout.split("ACTIVE", 1)[1].splitlines()[0]
    for layer in offered:
        assert layer in active, (layer, done.stdout)
    if {"landlock", "seccomp"} <= set(offered):
        assert "write refused" in done.stdout and not (tmp_path / "out.txt").exists()
        assert "socket refused" in done.stdout and "fork refused" in done.stdout


def test_the_seccomp_signal_rule_stops_signals_to_other_processes(tmp_path: Path) -> None:
    """Where the kernel lacks Landlock's signal scoping: the hand-written BPF filter alone."""
    done = run_child('''
        from types import SimpleNamespace
        k = containment._kernel
        if k.seccomp_arch() is None:
            print("SKIP")
            raise SystemExit(0)
        policy = SimpleNamespace(signals_helpers=False)
        k.install_filter(containment._signal_rules(policy, scoped=False))
        for target in (os.getppid(), 1, -os.getpgid(os.getppid()), -1):
            try:
                os.kill(target, 0)
                print(target, "allowed")
            except PermissionError:
                print(target, "refused")
        os.kill(os.getpid(), 0)
        print("self allowed")
    ''', tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    if "SKIP" in done.stdout:
        pytest.skip("no seccomp filter for this machine")
    assert "allowed" not in done.stdout.replace("self allowed", "")
    assert done.stdout.count("refused") == 4


def test_the_scratch_quota_caps_a_file(tmp_path: Path) -> None:
    done = run_child(f'''
        containment.contain_this_process(containment.ContainmentPolicy(
            scratch_dir={str(tmp_path / "scratch")!r}, memory_mb=None, file_size_mb=1))
        with open({str(tmp_path / "scratch" / "big")!r}, "wb") as f:
            try:
                f.write(b"x" * (2 * 2**20))
                f.flush()
                print("wrote 2 MB")
            except OSError as e:
                print("refused", errno.errorcode[e.errno])
    ''', tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused EFBIG" in done.stdout
    assert (tmp_path / "scratch" / "big").stat().st_size <= 2**20


def test_a_spawned_worker_starts_with_the_scrubbed_environment() -> None:
    from awm_gym.containment import scrubbed_environment

    env = scrubbed_environment("/scratch", {"PATH": "/bin", "OPENAI_API_KEY": "sk",
                                            "AWS_SECRET_ACCESS_KEY": "x", "LC_ALL": "C"})
    assert env == {"PATH": "/bin", "LC_ALL": "C", "HOME": "/scratch", "TMPDIR": "/scratch"}
