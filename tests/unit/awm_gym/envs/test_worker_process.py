"""How a worker that may run world code is started and ended (issue 23)."""

from __future__ import annotations

import logging
import os
import sys

import pytest

from awm_gym.envs.worker_process import WorkerProcess

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
