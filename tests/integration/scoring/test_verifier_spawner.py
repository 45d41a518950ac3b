"""A verifier pool in a process that may open no socket any more (a contained shard worker,
issue 31, item 2) still replaces the workers its verifiers hang: the replacements come from its
spawner (awm_gym/scoring/verifier_spawner.py), over a socketpair made before containment, not
from a new connection to multiprocessing's forkserver. Real processes; the containment is
applied in a separate Python process (it cannot be undone)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

SCRIPT = textwrap.dedent('''
    import socket, sqlite3, sys, tempfile
    from awm_gym import containment
    from awm_gym.scoring.verifier_pool import VerifierPool, VerifyJob
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (x)")
    db = conn.serialize()
    head = "def verify_task_completion(a, b, final_answer=None):\\n"
    ok, hang = head + "    return {'result': 'complete'}\\n", head + "    while True: pass\\n"
    shm, scratch = tempfile.mkdtemp(dir="/dev/shm"), tempfile.mkdtemp()
    tempfile.tempdir = scratch  # the forkserver's socket goes there, as in a shard worker
    pool = VerifierPool(num_workers=1, timeout_s=1.0, state_dir=shm)
    report = containment.contain_this_process(containment.ContainmentPolicy(
        scratch_dir=scratch, memory_mb=None, socket_families=(), blocks_threads=True,
        signals_helpers=True, write_paths=(shm,)), lambda: pool.start(spawner=True))
    print("seccomp:", report.active.get("seccomp"))
    try:
        socket.socket(socket.AF_UNIX).close()
        print("socket: opened")
    except OSError:
        print("socket: refused")
    for code in (hang, ok, hang, ok):
        [result] = pool.run([VerifyJob(code, "verify_task_completion", "code", db, db)])
        print("label:", result.label, result.error_kind)
    pool.close()
''')


@pytest.mark.skipif(not sys.platform.startswith("linux") or not os.path.isdir("/dev/shm"),
                    reason="Linux containment")
def test_hung_verifier_workers_are_replaced_without_new_sockets(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=180, env=dict(os.environ, PYTHONPATH=str(REPO)), cwd=tmp_path,
                         start_new_session=True, errors="replace")
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    if "sockets(none)" not in lines[0]:
        pytest.skip(f"no seccomp here: {lines[0]}")
    assert lines[1:] == ["socket: refused", "label: verifier_error timeout", "label: complete None",
                         "label: verifier_error timeout", "label: complete None"]
