"""Time a shard worker's start phase by phase, and the trip of a ``list_tools`` reply back.

The probe starts itself again as a shard worker is started (``python -I``, the scrubbed
environment of :func:`awm_gym.containment.scrubbed_environment`, the package entered without its
``__init__``) and times, in that process: the interpreter's start (spawn to the first line),
the imports of ``awm_gym.envs.shard_worker``, the world set's index, the probes of the worlds the
caller did not find warm, the verifier pool, the kernel layers (``--contained``: rlimits, the
environment, Landlock, seccomp, the audit hook; ``kernel_layers_s`` is 0 without them),
the :class:`~awm_gym.envs.runtime.WorldRuntime` over every world, and the init reply's frame;
then a reset and two ``list_tools`` steps of ``--n`` instances, and the step reply encoded and
decoded as it is sent (catalogues as references) and as it was before (catalogue texts). One
JSON object on stdout, seconds and bytes.

    AWM_GYM_CACHE=/tmp/awm-cache python tests/benchmarks/worker_start_probe.py \\
        --world-set /tmp/awm-1k --n 512 --contained
"""

from __future__ import annotations

import time

_T0 = time.perf_counter()
_WALL0 = time.time()

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402

LIST_TOOLS = '<tool_call>{"name": "list_tools", "arguments": {}}</tool_call>'


def caller(opts: argparse.Namespace) -> dict:
    """Index the set as the caller does, then start the worker-like child and read its phases."""
    import awm_gym
    from awm_gym.containment import scrubbed_environment
    from awm_gym.envs.registration import get_world_set
    from awm_gym.worlds.template_db import default_cache_dir

    world_set = get_world_set(opts.world_set)
    names = world_set.names()
    warm = {name: world_set.content_hash(name) for name in names} if opts.warm else {}
    home = os.path.dirname(os.path.dirname(os.path.abspath(awm_gym.__file__)))
    with tempfile.TemporaryDirectory(prefix="awm-world-") as scratch:
        spec = os.path.join(scratch, "spec.json")
        with open(spec, "w") as f:
            json.dump({"root": world_set.root, "names": names, "warm": warm, "home": home,
                       "cache": str(default_cache_dir()), "n": opts.n,
                       "contained": opts.contained}, f)
        started = time.time()
        done = subprocess.run([sys.executable, "-I", os.path.abspath(__file__), "--child", spec,
                               str(started)], capture_output=True, text=True, timeout=600,
                              env=scrubbed_environment(scratch), check=False)
        wall = time.time() - started
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out.update(process_wall_s=wall, worlds=len(names), warm_sent=bool(warm),
               load=" ".join(f"{x:.2f}" for x in os.getloadavg()))
    return out


def child(spec_path: str, started: float) -> dict:
    """The worker side (this process was started as a shard worker is)."""
    with open(spec_path) as f:
        spec = json.load(f)
    t: dict[str, float] = {"interpreter_s": _WALL0 - started}
    last = [time.perf_counter()]

    def mark(name: str) -> None:
        now = time.perf_counter()
        t[name] = now - last[0]
        last[0] = now

    sys.path.insert(0, spec["home"])
    import importlib.util  # as worker_command(runs_package_init=False) enters the package

    sys.modules["awm_gym"] = importlib.util.module_from_spec(importlib.util.find_spec("awm_gym"))
    last[0] = time.perf_counter()
    from awm_gym.envs import shard_worker, wire
    from awm_gym.envs.config import EnvConfig
    from awm_gym.envs.prepared import probe_world_of_set
    from awm_gym.envs.registration import get_world_set
    from awm_gym.envs.runtime import WorldRuntime
    from awm_gym.envs.worker_process import shared_memory_area
    from awm_gym.scoring.verifier_pool import VerifierPool

    mark("imports_s")
    names, warm, n = spec["names"], spec["warm"], spec["n"]
    config = EnvConfig(cache_dir=spec["cache"], max_episode_steps=10**9, verifier_workers=1)
    scratch, shm = os.environ["HOME"], shared_memory_area()
    world_set = get_world_set(spec["root"], cache_dir=config.cache_dir)
    mark("world_set_index_s")
    for name in names:
        if name not in warm:
            probe_world_of_set(world_set, name, config)
    mark("world_probes_s")
    tempfile.tempdir = scratch
    pool = VerifierPool(num_workers=1, timeout_s=config.verifier_timeout_s, state_dir=shm)
    pool_s = [0.0]
    last[0] = time.perf_counter()  # (the pool object's own setup is not counted)

    def start_pool() -> None:
        started_at = time.perf_counter()
        pool.start()
        pool_s[0] = time.perf_counter() - started_at

    if spec["contained"]:  # the layers, with the pool started between them as a worker does
        report = shard_worker.contain_world_worker(spec["root"], config, scratch, start_pool,
                                                   False, shm=shm).report
    else:
        start_pool()
        report = None
    mark("kernel_layers_s")
    t["verifier_pool_s"] = pool_s[0]
    t["kernel_layers_s"] -= pool_s[0]
    runtime = WorldRuntime(world_set, names, n, config, verifier_pool=pool, warm=warm)
    mark("world_runtime_s")
    frame = wire.encode_reply("init", "ok", (report, list(runtime.worlds), []))
    mark("init_reply_s")
    t["init_reply_bytes"] = len(frame)
    t["start_total_s"] = time.perf_counter() - _T0 + t["interpreter_s"]
    indices = list(range(n))
    runtime.reset(indices, indices, [None] * n, [None] * n)
    mark("first_reset_s")
    runtime.step(indices, [LIST_TOOLS] * n)
    mark("list_tools_s")
    outcomes = runtime.step(indices, [LIST_TOOLS] * n)
    mark("list_tools_again_s")
    referred = [o if o.observation is not runtime.tools_text(o.info["world"]) else  # as
                dataclasses.replace(o, observation=wire.CatalogueRef(o.info["world"]))  # sent
                for o in outcomes]
    for label, batch in (("texts", outcomes), ("refs", referred)):
        start = time.perf_counter()
        frame = wire.encode_reply("step", "ok", batch)
        encoded = time.perf_counter()
        json_size, blob_size, _ = wire.REPLY_HEADER.unpack(frame[:wire.REPLY_HEADER.size])
        wire.decode_reply("step", frame[wire.REPLY_HEADER.size:], json_size, blob_size)
        t[f"step_reply_{label}_bytes"] = len(frame)
        t[f"step_reply_{label}_encode_s"] = encoded - start
        t[f"step_reply_{label}_decode_s"] = time.perf_counter() - encoded
    pool.close()
    return t


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(child(sys.argv[2], float(sys.argv[3]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world-set", required=True)
    parser.add_argument("--n", type=int, default=512, help="instances of the worker's shard")
    parser.add_argument("--contained", action=argparse.BooleanOptionalAction, default=True,
                        help="apply the kernel layers (the default runtime's workers do)")
    parser.add_argument("--warm", action=argparse.BooleanOptionalAction, default=True,
                        help="send the content hashes of warm worlds, as the caller does")
    print(json.dumps(caller(parser.parse_args())))


if __name__ == "__main__":
    main()
