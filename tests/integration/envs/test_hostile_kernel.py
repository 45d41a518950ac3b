"""Issue 42, the kernel's side of containment: world code in a contained worker cannot queue work
through io_uring, act on the caller's process without a signal, read the caller's keyring, lift
its own limits, or keep host memory and disk past its scratch quota (``/dev/shm``, its log); a
verifier cannot rename the host, also under ``isolation="none"``. Each effect is judged from
outside the worker: a host listener, the caller's own limits and scheduling, the host's files
and names. The world is tests/fixtures/make_kernel_hostile_world.py."""

from __future__ import annotations

import ctypes
import json
import os
import resource
import socket
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import awm_gym  # noqa: F401 - registers AWM/mix-v0

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fixtures"))
from make_kernel_hostile_world import RENAME_TASK, write_kernel_hostile_world  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux containment")

QUOTA_MB, MEMORY_MB = 4, 1024
SECRET = "awm-caller-secret-42"
_KEYCTL = {"x86_64": 250, "aarch64": 219}.get(os.uname().machine)
_IOPRIO_GET = {"x86_64": 252, "aarch64": 31}.get(os.uname().machine)


def call(tool: str, **arguments: object) -> str:
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


ADD, COUNT = call("add_note", body="hello"), call("count_notes")
_libc = ctypes.CDLL(None, use_errno=True)


def _caller_key() -> bool:
    """Give this process (the caller) a session keyring of its own holding a "user" key with
    :data:`SECRET`, as a trainer's login session could hold a token. False where it cannot."""
    if _KEYCTL is None or _libc.syscall(_KEYCTL, 1, b"awm-test-caller") < 0:  # JOIN_SESSION
        return False
    return _libc.syscall(248 if _KEYCTL == 250 else 217, b"user", b"awm-test-secret",
                         SECRET.encode(), len(SECRET), -3) >= 0  # add_key into @s


@pytest.fixture(scope="module")
def keyed() -> bool:
    return _caller_key()  # before the workers start: they inherit the session keyring


@pytest.fixture(scope="module")
def envs(tmp_path_factory: pytest.TempPathFactory, keyed: bool):
    root = write_kernel_hostile_world(tmp_path_factory.mktemp("kernel"))
    envs = gym.make_vec("AWM/mix-v0", num_envs=2, world_set=str(root), tool_timeout_s=5.0,
                        max_episode_steps=100, scratch_quota_mb=QUOTA_MB,
                        worker_memory_mb=MEMORY_MB)
    envs.reset(seed=[0, 1], options={"task_idx": [0, 0]})
    yield envs
    envs.close()


def _worker(envs):  # noqa: ANN001, ANN202
    return envs.runtime._shards[0].worker


def _step(envs, hostile: str) -> tuple[str, str]:  # noqa: ANN001
    """Step ``hostile`` on instance 0 beside a ``count_notes``: (its observation, outcome); the
    neighbour reads what it would have read without it."""
    before = json.loads(envs.step([None, COUNT])[0][1])["result"]
    obs, reward, terminated, truncated, info = envs.step([hostile, COUNT])
    assert not terminated[0] and not truncated[0] and reward[0] == 0.0
    assert json.loads(obs[1])["result"] == before
    return obs[0], info["tool_outcome"][0]


def test_a_handler_cannot_reach_a_unix_socket_through_io_uring(envs, tmp_path: Path) -> None:  # noqa: ANN001
    """Before: ``IORING_OP_SOCKET`` + ``IORING_OP_CONNECT`` + ``IORING_OP_SEND`` reached a host
    listener (seccomp saw only ``io_uring_enter``)."""
    address = str(tmp_path / "host.sock")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(address)
    listener.listen()
    listener.setblocking(False)
    try:
        obs, outcome = _step(envs, call("uring_connect", address=address))
        assert outcome == "crash" and obs.startswith("Error: "), obs  # io_uring_setup: EPERM
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody connected
    finally:
        listener.close()


def _caller_state() -> dict[str, object]:
    state: dict[str, object] = {
        "cpu": resource.getrlimit(resource.RLIMIT_CPU),
        "affinity": os.sched_getaffinity(0),
        "nice": os.getpriority(os.PRIO_PROCESS, 0),
        "scheduler": os.sched_getscheduler(0),
    }
    if _IOPRIO_GET is not None:
        state["ioprio"] = _libc.syscall(_IOPRIO_GET, 1, 0)  # IOPRIO_WHO_PROCESS, self
    return state


def _restore(state: dict[str, object]) -> None:
    for undo in (lambda: resource.setrlimit(resource.RLIMIT_CPU, state["cpu"]),
                 lambda: os.sched_setaffinity(0, state["affinity"]),
                 lambda: os.setpriority(os.PRIO_PROCESS, 0, state["nice"]),
                 lambda: os.sched_setscheduler(0, state["scheduler"], os.sched_param(0)),
                 lambda: _libc.syscall(_IOPRIO_GET - 1, 1, 0, state["ioprio"])
                 if "ioprio" in state else None):
        try:
            undo()
        except (OSError, ValueError):
            pass


def test_a_handler_cannot_act_on_the_callers_process(envs) -> None:  # noqa: ANN001
    """Before (all one uid): the caller's ``RLIMIT_CPU`` was lowered (a trainer dies of
    SIGXCPU), and its CPU affinity, nice value, scheduling class (``SCHED_IDLE``) and I/O
    priority were changed by ``prlimit``, ``sched_setaffinity``, ``setpriority``,
    ``sched_setscheduler`` and ``ioprio_set`` on ``getppid()``."""
    before = _caller_state()
    try:
        obs, outcome = _step(envs, call("touch_caller"))
        after = _caller_state()
    finally:
        _restore(before)
    assert json.loads(obs)["result"] == f"caller {os.getpid()}: ", obs  # it aimed at us
    assert after == before


def test_a_handler_cannot_read_the_callers_session_keyring(envs, keyed: bool) -> None:  # noqa: ANN001
    """Before: a handler found and read the caller's key (the session keyring is inherited
    across fork, exec and a new user namespace)."""
    if not keyed:
        pytest.skip("this process cannot have a session keyring of its own")
    obs, outcome = _step(envs, call("read_keyring", description="awm-test-secret"))
    assert SECRET not in obs and outcome == "crash", obs


def test_a_handler_cannot_lift_its_memory_limit(envs) -> None:  # noqa: ANN001
    """Before: ``RLIMIT_AS`` had an unlimited hard limit, so a handler raised its soft limit
    and allocated past ``worker_memory_mb``."""
    obs, outcome = _step(envs, call("lift_memory_limit", megabytes=2 * MEMORY_MB))
    assert outcome == "crash" and obs.startswith("Error: "), obs
    limits = Path(f"/proc/{_worker(envs).proc.pid}/limits").read_text()
    line = next(x for x in limits.splitlines() if x.startswith("Max address space"))
    soft, hard = line.split()[3:5]
    assert soft == hard == str(MEMORY_MB * 2**20), line


def _size(path: str) -> int:
    return sum(f.stat().st_blocks * 512 for f in Path(path).rglob("*") if f.is_file())


def test_a_handlers_dev_shm_is_held_to_the_quota(envs) -> None:  # noqa: ANN001
    """Before: 64 MB written to the worker's ``/dev/shm`` area stayed in host memory under a
    4 MB quota. Now ``/dev/shm`` is a tmpfs of ``scratch_quota_mb`` in the worker's own mount
    namespace: the host's ``/dev/shm`` gets nothing, and the worker's copy fills at the quota."""
    worker = _worker(envs)
    obs, outcome = _step(envs, call("fill_shm", megabytes=64))
    written = int(json.loads(obs)["result"].split()[0])
    assert written <= QUOTA_MB, obs
    assert _size(worker.shm) == 0  # nothing on the host's /dev/shm


def test_a_handlers_log_output_is_held_to_the_quota(envs) -> None:  # noqa: ANN001
    """Before: a handler's stdout and stderr grew the worker's log on the host's disk to the
    per-file cap (``RLIMIT_FSIZE``), and the quota check never cleared it. Now the log a
    contained worker writes after start-up is on its scratch tmpfs: full at the quota, cleared
    with it, gone with the worker."""
    worker = _worker(envs)
    host_log = Path(worker.scratch) / "worker.log"
    obs, outcome = _step(envs, call("spam_log", megabytes=32))
    assert outcome in ("ok", "scratch_quota"), (outcome, obs)
    assert host_log.stat().st_size < 2**20 and b"y" * 4096 not in host_log.read_bytes()
    obs, outcome = _step(envs, call("spam_log", megabytes=1))
    assert outcome in ("ok", "scratch_quota")  # the worker lives, its log was cleared


def test_a_verifier_cannot_rename_the_host_in_process(tmp_path: Path) -> None:
    """``isolation="none"`` runs handlers in the caller, verifiers still in contained verifier
    workers. Before: a verifier run by a root caller changed the host's domain name."""
    root = write_kernel_hostile_world(tmp_path / "world")
    name = Path("/proc/sys/kernel/domainname")
    before = name.read_text().strip()
    envs = gym.make_vec("AWM/mix-v0", num_envs=1, world_set=str(root), isolation="none",
                        max_episode_steps=10)
    try:
        envs.reset(seed=[0], options={"task_idx": [RENAME_TASK]})
        envs.step([ADD])
        _, reward, terminated, _, info = envs.step(["Done."])
        after = name.read_text().strip()
    finally:
        envs.close()
        if name.read_text().strip() != before:
            _libc.setdomainname(before.encode(), len(before))
    assert terminated[0] and info["verifier_label"][0] == "complete", info
    assert after == before


def test_a_handler_cannot_hold_host_memory_in_a_memory_file(envs) -> None:  # noqa: ANN001
    """Before: ``memfd_create`` gave a handler a file in host memory that neither
    ``RLIMIT_AS`` (nothing mapped) nor the scratch quota (no path) holds: 64 MB stayed held
    across calls under a 4 MB quota. Judged from outside: the worker's descriptors."""
    obs, outcome = _step(envs, call("hold_memfd", megabytes=64))
    assert json.loads(obs)["result"].startswith("0 MB OSError errno 38"), obs
    fds = Path(f"/proc/{_worker(envs).proc.pid}/fd")
    assert not [p for p in fds.iterdir() if "memfd:" in os.readlink(p)]


def test_a_handler_cannot_reach_bpf_perf_events_or_userfaultfd(envs) -> None:  # noqa: ANN001
    """bpf, perf_event_open and userfaultfd: refused by the filter (EPERM, -1 each), whatever
    the host's sysctls would allow."""
    obs, outcome = _step(envs, call("kernel_interfaces"))
    assert json.loads(obs)["result"] == "-1/1 -1/1 -1/1", obs


def _sysv_segments() -> set[str]:
    lines = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    return {line.split()[1] for line in lines}  # shmid


def test_a_handlers_sysv_shared_memory_does_not_outlive_it(tmp_path: Path) -> None:
    """Before: a SysV segment (``shmget``, filled, detached) stayed in host memory after the
    worker and its env were gone, no quota holding it, and any process of the uid could attach
    it. Judged from outside: the host's segment table after the env closed."""
    root = write_kernel_hostile_world(tmp_path / "sysv")
    before = _sysv_segments()
    envs = gym.make_vec("AWM/mix-v0", num_envs=1, world_set=str(root), tool_timeout_s=5.0,
                        max_episode_steps=100)
    try:
        envs.reset(seed=[0], options={"task_idx": [0]})
        obs = envs.step([call("hold_sysv", megabytes=8)])[0][0]
    finally:
        envs.close()
    left = _sysv_segments() - before
    for shmid in left:  # clean up what an old tree leaves, after looking
        _libc.syscall({"x86_64": 31, "aarch64": 195}[os.uname().machine], int(shmid), 0, None)
    assert not left, f"{obs}: segments {left} outlived the env"
    assert json.loads(obs)["result"].startswith("0 MB shmget errno 1"), obs
