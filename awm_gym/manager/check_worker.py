"""``awm check`` for a world set from disk, in a contained worker process.

:func:`awm_gym.manager.check.iter_check` runs the checks of a world set it does not ship (any
path but the built-in set) here: a :class:`~awm_gym.envs.worker_process.WorkerProcess`
(``python -I``, scrubbed environment, its own pipes) that loads the world set, import-probes
its worlds, starts its verifier pool and then applies :mod:`awm_gym.containment` before any
world code runs, exactly as a shard worker does. It reads one request ``(path, worlds,
config)`` (a pickle: the caller is trusted) and writes one JSON frame per world, the report in
the shape of :func:`awm_gym.manager.check.report_to_wire`, which the caller checks before use.
"""

from __future__ import annotations

import os
import sys
import tempfile
import warnings

from awm_gym import containment
from awm_gym.envs import wire
from awm_gym.envs.prepared import probe_world_of_set
from awm_gym.envs.registration import get_world_set
from awm_gym.envs.scratch_quota import ScratchQuota
from awm_gym.envs.shard_worker import receive_message
from awm_gym.envs.worker_process import open_worker_streams
from awm_gym.errors import UnknownWorldError, WorldLoadError
from awm_gym.scoring.verifier_pool import VerifierPool
from awm_gym.worlds.template_db import default_cache_dir


def _serve(request_fd: int, reply_fd: int, scratch: str, shm: str) -> None:
    from awm_gym.manager.check import check_one_guarded, report_to_wire

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
    cache = str(config.cache_dir or default_cache_dir())
    os.makedirs(cache, exist_ok=True)
    pool = VerifierPool(num_workers=config.verifier_workers, timeout_s=config.verifier_timeout_s,
                        state_dir=shm)
    policy = containment.ContainmentPolicy(
        scratch_dir=scratch, memory_mb=config.sharding.worker_memory_mb,
        read_paths=(os.path.realpath(world_set.root), cache), write_paths=(cache, shm),
        blocks_network=config.judge is None, file_size_mb=config.scratch_quota_mb,
        signals_helpers=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the caller warns about missing layers
        containment.contain_this_process(policy, pool.start)
    quota = ScratchQuota(scratch, config.scratch_quota_mb)
    with pool:
        for name in names:
            report = check_one_guarded(world_set, name, config, pool)
            replies.write(wire.encode_json_frame(report_to_wire(report)))
            quota.exceeded()  # past the quota, what the world wrote is removed before the next


if __name__ == "__main__":
    _serve(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4])
