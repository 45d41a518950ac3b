"""``awm check`` for a world set from disk, in a contained worker process.

:func:`awm_gym.manager.check.iter_check` runs the checks of a world set it does not ship (any
path but the built-in set) here: a :class:`~awm_gym.envs.worker_process.WorkerProcess`
(``python -I``, scrubbed environment, its own pipes) that loads the world set, import-probes
its worlds, starts its verifier pool and then applies :mod:`awm_gym.containment` before any
world code runs, with the policy of a shard worker
(:func:`~awm_gym.envs.shard_worker.contain_world_worker`: no new socket of any family, no
thread, a scratch tmpfs of ``scratch_quota_mb``; the judge's network and threads only with the
judge). It reads one request ``(path, worlds, config)`` (a pickle: the caller is trusted) and
writes one JSON frame per world, the report in the shape of
:func:`awm_gym.manager.check.report_to_wire`, which the caller checks before use.

After each world it asks :mod:`awm_gym.envs.leftover_work` what the world's code left running
(a timer, a signal handler, a thread where threads are allowed): that is a
:data:`~awm_gym.manager.check.LEFT_RUNNING` finding of the world's report, and the worker ends
once it has sent it, so the caller checks the next worlds in a new one. A scratch directory
past its quota is a ``scratch_quota`` finding (its files are removed before the next world).
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import tempfile
import warnings
from dataclasses import replace

from awm_gym.envs import leftover_work, wire
from awm_gym.envs.prepared import probe_world_of_set
from awm_gym.envs.registration import get_world_set
from awm_gym.envs.shard_worker import contain_world_worker, receive_message
from awm_gym.envs.worker_process import open_worker_streams
from awm_gym.errors import UnknownWorldError, WorldLoadError
from awm_gym.manager.check import LEFT_RUNNING, check_one_guarded, report_to_wire
from awm_gym.manager.findings import Finding, Severity
from awm_gym.scoring.verifier_pool import VerifierPool


def _serve(request_fd: int, reply_fd: int, scratch: str, shm: str) -> None:
    requests, replies = open_worker_streams(request_fd, reply_fd)
    path, names, config = receive_message(requests)
    # the caller resolved its cache (iter_check): this scrubbed process's default would be its
    # empty scratch directory, where the world set would be indexed again
    world_set = get_world_set(path, cache_dir=config.cache_dir)
    for name in names:  # import-time hangs and exits, while this process may start the probe
        try:
            probe_world_of_set(world_set, name, config)
        except (WorldLoadError, UnknownWorldError):
            pass  # the check reports it
    tempfile.tempdir = scratch
    pool = VerifierPool(num_workers=config.verifier_workers, timeout_s=config.verifier_timeout_s,
                        state_dir=shm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the caller warns about missing layers
        fences = contain_world_worker(  # the rules of a shard worker that builds cold worlds
            world_set.root, config, scratch, functools.partial(pool.start, spawner=True),
            cache_writable=True, shm=shm)
    with pool:
        for name in names:
            fences.leftovers.begin()
            report = check_one_guarded(world_set, name, config, pool)
            left = fences.leftovers.found()
            if left is not None:  # its handlers may neither run nor cut the reply short now
                signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
                report = replace(report, findings=(*report.findings, _left_running(left)))
            if fences.quota.exceeded():  # what the world wrote is removed before the next
                report = replace(report, findings=(*report.findings, Finding(
                    Severity.DEFECT, "scratch_quota", fences.quota.message())))
            replies.write(wire.encode_json_frame(report_to_wire(report)))
            if left is not None:  # it would run on in the next world's check: the caller
                os._exit(leftover_work.EXIT_STATUS)  # checks the rest in a new process


def _left_running(left: str) -> Finding:
    """The finding of a world whose code left work running after its calls answered (``left``:
    what :meth:`~awm_gym.envs.leftover_work.LeftoverWork.found` named)."""
    return Finding(
        Severity.DEFECT, LEFT_RUNNING,
        f"a tool handler or the world's code left work running after its calls answered "
        f"({left}); in a contained env the action that does it ends its worker (restarted, "
        "the action reads that it left work running)")


if __name__ == "__main__":
    _serve(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4])
