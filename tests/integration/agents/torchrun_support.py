"""Run a script on two real ranks with ``torchrun --standalone --nproc_per_node 2`` (gloo on
CPU), from the repository root with it on ``PYTHONPATH`` and one torch thread a rank: the
multi-rank tests' one way to start their workers. Under pytest-xdist one such run at a time
across the test workers (a file lock): two at once put four ranks on the 2-core machine and a
rank was seen to abort in gloo (``terminate called without an active exception``).

Example:
    >>> torchrun_two_ranks("worker.py", "out").returncode      # doctest: +SKIP
    0
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def torchrun_two_ranks(script: Path | str, *args: str, timeout: int = 600
                       ) -> subprocess.CompletedProcess[str]:
    """``script args...`` on two ranks; its output captured (``done.stderr`` holds both
    ranks' tracebacks)."""
    env = dict(os.environ, OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node",
           "2", str(script), *args]
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run_id is None:  # one test process: nothing runs beside it
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO,
                              env=env)
    with open(Path(tempfile.gettempdir()) / f"awm-gym-torchrun-{run_id}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO,
                              env=env)
