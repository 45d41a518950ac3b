"""Verifier workers cannot signal their caller, and nothing they start outlives the pool
(issue 17, item 5). Real worker processes; the hostile verifiers run inside a separate Python
process in its own session, so that without the containment only that process dies, never the
test run."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

SCRIPT = textwrap.dedent('''
    import os, sqlite3, sys
    from awm_gym.scoring.verifier_pool import VerifierPool, VerifyJob
    code, contained = sys.argv[1].replace("CALLER_PID", str(os.getpid())), sys.argv[2] == "contained"
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (x)")
    db = conn.serialize()
    pool = VerifierPool(num_workers=1, timeout_s=20, contained=contained)
    [result] = pool.run([VerifyJob(code, "verify_task_completion", "code", db, db, "done")])
    pool.close()
    print("caller alive:", result.label, result.error_kind)
''')


def run_hostile(code: str, tmp_path: Path, contained: bool = True, **extra_env: str
                ) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO), **extra_env)
    return subprocess.run([sys.executable, "-c", SCRIPT, code,
                           "contained" if contained else "bare"], capture_output=True, text=True,
                          timeout=120, env=env, cwd=tmp_path, start_new_session=True,
                          errors="replace")


@pytest.mark.timeout(150)
def test_a_verifier_that_kills_its_process_group_does_not_kill_the_caller(tmp_path) -> None:
    code = textwrap.dedent('''
        def verify_task_completion(initial_db_path, final_db_path, final_answer=None):
            import os, signal
            os.killpg(0, signal.SIGKILL)
    ''')
    done = run_hostile(code, tmp_path)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "caller alive: verifier_error crash" in done.stdout


@pytest.mark.timeout(150)
def test_a_child_a_verifier_forked_is_gone_after_close(tmp_path) -> None:
    pid_file = tmp_path / "child.pid"
    code = textwrap.dedent(f'''
        def verify_task_completion(initial_db_path, final_db_path, final_answer=None):
            import os, time
            pid = os.fork()
            if pid == 0:
                time.sleep(300)
                os._exit(0)
            with open({str(pid_file)!r}, "w") as f:
                f.write(str(pid))
            return {{"result": "complete"}}
    ''')
    refused = run_hostile(code, tmp_path)  # contained (the default): fork is refused
    assert refused.returncode == 0, refused.stderr[-2000:]
    assert "caller alive: verifier_error exception" in refused.stdout
    assert not pid_file.exists()
    done = run_hostile(code, tmp_path, contained=False)  # without it, the process group holds
    assert done.returncode == 0, done.stderr[-2000:]
    assert "caller alive: complete" in done.stdout
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _is_running(child):
        time.sleep(0.1)
    alive = _is_running(child)
    if alive:
        os.kill(child, 9)  # clean up what the old code left behind
    assert not alive, f"the verifier's child {child} survived the pool's close()"


def _is_running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.timeout(150)
def test_a_verifier_cannot_signal_the_pools_process(tmp_path) -> None:
    code = textwrap.dedent('''
        def verify_task_completion(initial_db_path, final_db_path, final_answer=None):
            import os, signal
            os.kill(CALLER_PID, signal.SIGTERM)
            return {"result": "complete"}
    ''')
    done = run_hostile(code, tmp_path)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "caller alive: verifier_error exception" in done.stdout


@pytest.mark.timeout(150)
def test_a_forged_pickle_from_a_verifier_is_never_loaded(tmp_path) -> None:
    marker = tmp_path / "forged-pickle-ran"
    code = textwrap.dedent(f'''
        def verify_task_completion(initial_db_path, final_db_path, final_answer=None):
            import os, pickle, struct

            class Forged:
                def __reduce__(self):
                    return (open, ({str(marker)!r}, "w"))

            data = pickle.dumps(("done", "complete", None, None, Forged(), 0.0))
            for fd in {{0, 1, 2}} | {{int(n) for n in os.listdir("/proc/self/fd")}}:
                for frame in (struct.pack("!i", len(data)) + data, data):
                    try:
                        os.write(fd, frame)
                    except OSError:
                        pass
            return {{"result": "complete"}}
    ''')
    done = run_hostile(code, tmp_path)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert not marker.exists()
    assert "caller alive: verifier_error crash" in done.stdout


@pytest.mark.timeout(150)
def test_a_verifiers_environment_block_holds_no_secret(tmp_path) -> None:
    code = textwrap.dedent('''
        def verify_task_completion(initial_db_path, final_db_path, final_answer=None):
            with open("/proc/self/environ", "rb") as f:
                leaked = b"sk-do-not-leak" in f.read()
            return {"result": "others" if leaked else "complete"}
    ''')
    done = run_hostile(code, tmp_path, AWM_TEST_SECRET="sk-do-not-leak")
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "caller alive: complete" in done.stdout


@pytest.mark.timeout(150)
@pytest.mark.parametrize("attack", ["thread", "unix"])
def test_a_verifier_starts_no_thread_and_opens_no_unix_socket(tmp_path, attack: str) -> None:
    """Issue 31, items 2 and 4, in a verifier worker: a thread that would spin after the
    verification answered, a unix socket of the host. Before: both worked, the verifier said
    complete and the thread spun on in the worker."""
    import socket

    path = tmp_path / "host.sock"
    body = ("    import threading\n"
            "    threading.Thread(target=lambda: [0 for _ in iter(int, 1)], daemon=True).start()\n"
            if attack == "thread" else
            "    import socket\n"
            f"    socket.socket(socket.AF_UNIX).connect({str(path)!r})\n")
    code = ("def verify_task_completion(initial_db_path, final_db_path, final_answer=None):\n"
            + body + "    return {'result': 'complete'}\n")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.listen()
    listener.setblocking(False)
    try:
        done = run_hostile(code, tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]
        assert "caller alive: verifier_error exception" in done.stdout, done.stdout
        with pytest.raises(BlockingIOError):
            listener.accept()
    finally:
        listener.close()
