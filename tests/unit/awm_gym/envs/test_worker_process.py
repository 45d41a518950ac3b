"""How a worker that may run world code is started and ended (issue 23)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest

from awm_gym.envs.worker_process import WorkerProcess, worker_command

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX pipes")


def test_a_worker_that_fails_to_start_has_its_log_said_and_its_areas_removed(
        caplog: pytest.LogCaptureFixture) -> None:
    worker = WorkerProcess("awm_gym.no_such_module", contained=True)
    assert worker.proc.wait(timeout=60) != 0
    assert worker.replies.read() == b""  # nothing on the reply pipe: its output went to the log
    with caplog.at_level(logging.WARNING, logger="awm_gym.envs.worker_process"):
        worker.kill()
    assert "No module named awm_gym.no_such_module" in caplog.text
    assert not os.path.exists(worker.scratch) and not os.path.exists(worker.shm)
    worker.kill()  # twice is fine


@pytest.mark.parametrize("runs_package_init", [True, False])
def test_a_shard_worker_skips_the_package_face(runs_package_init: bool) -> None:
    # awm_gym/__init__ imports Gymnasium and NumPy and registers the built-in worlds: half of a
    # worker's imports, none of which a shard worker uses (issue 33)
    command = worker_command("awm_gym.info_keys", runs_package_init=runs_package_init)
    command[4] += ("; import awm_gym.envs.shard_worker; print(sorted(m for m in "
                   "('gymnasium', 'numpy', 'sqlalchemy') if m in sys.modules))")
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    loaded = done.stdout.strip().splitlines()[-1]
    assert loaded == ("['gymnasium', 'numpy']" if runs_package_init else "[]")
