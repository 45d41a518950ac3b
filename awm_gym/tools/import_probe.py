"""Import a world's generated code once in a short-lived subprocess before running it in-process.

A world's ``full_code`` runs at module level when it is loaded (:func:`~awm_gym.tools.host.
load_world_module`). Code that loops forever there would hang ``gym.make_vec`` and ``awm check``
for good, and ``os._exit(5)`` would end the caller with no message (issue 17, item 5). So before
the in-process ``exec``, :func:`probe_world_import` loads the same code the same way in a child
process (its own session, so a signal to its process group cannot reach the caller) with a
timeout. A hang, an exit or a crash there becomes a :class:`~awm_gym.errors.WorldLoadError` that
names the world and what happened, and the code never runs in the caller.

The child is contained (:mod:`awm_gym.containment`: no files outside the Python installation, no
socket of any family, no threads, no processes, no secrets, a scratch tmpfs of the scratch
quota) before the world's code runs: code that starts a thread or opens a socket at import fails
its probe, as it would fail to load in a contained worker. The probe is paid once per world
content: a passing probe leaves a marker
``<template cache>/import-ok/<content hash>``, so later processes skip it. Built-in worlds
(``awm_gym/worlds/builtin``, reviewed code) are not probed. A probe costs one Python start that
imports fastapi and SQLAlchemy (about 1-2 s of CPU).

What the probe cannot catch: code whose import behaves differently the second time (a file or
clock it reads) or that misbehaves only when a tool is called; tool calls have their own timeout
(``EnvConfig.tool_timeout_s``) and ``num_workers >= 1`` isolates crashes during calls.

Example:
    >>> try:  # code that imports but defines no app fails as it would in-process
    ...     probe_world_import("w", "x = 1", "hash-x", timeout_s=60.0)
    ... except WorldLoadError as e:
    ...     print(str(e)[:48])
    World 'w': its generated code defines no FastAPI
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import uuid
import warnings
from pathlib import Path

from awm_gym.containment import ContainmentPolicy, contain_this_process
from awm_gym.errors import WorldLoadError
from awm_gym.tools.db_routing import DatabaseSlot
from awm_gym.tools.host import load_world_module
from awm_gym.worlds.clock import DEFAULT_FROZEN_NOW, FrozenClock

logger = logging.getLogger(__name__)

__all__ = ["probe_world_import", "is_builtin_world_dir"]

_BUILTIN_DIR = os.path.realpath(Path(__file__).parents[1] / "worlds" / "builtin")
_PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])


def is_builtin_world_dir(source_dir: str) -> bool:
    """Whether ``source_dir`` is the built-in world set shipped with awm_gym."""
    return os.path.realpath(source_dir) == _BUILTIN_DIR


def probe_marker(cache_dir: str | os.PathLike, content_hash: str) -> Path:
    """The file a passing probe of the code with ``content_hash`` leaves in ``cache_dir``."""
    return Path(cache_dir) / "import-ok" / content_hash


def probe_world_import(name: str, full_code: str, content_hash: str, *, timeout_s: float,
                       cache_dir: str | os.PathLike | None = None,
                       scratch_mb: int | None = None) -> None:
    """Load ``full_code`` in a child process; raise if that hangs, exits or fails.

    Args:
        name: the world's name (for messages).
        full_code: its generated module source.
        content_hash: the world's content hash (the marker's name).
        timeout_s: how long the child may take (its Python start included).
        cache_dir: where passing probes leave markers; None probes every time.
        scratch_mb: the child's scratch directory is a tmpfs of this size (and no file past
            it), as a contained worker's (``EnvConfig.scratch_quota_mb``); None: no limit.

    Raises:
        WorldLoadError: the import did not finish in ``timeout_s``, ended the process, or
            raised (the message says which, with the world's own error text).
    """
    marker = probe_marker(cache_dir, content_hash) if cache_dir is not None else None
    if marker is not None and marker.exists():
        return
    nonce = uuid.uuid4().hex  # the child's verdict line; the world's code cannot forge it
    payload = json.dumps({"name": name, "code": full_code, "nonce": nonce,
                          "cpu_s": max(1, int(timeout_s) + 1), "scratch_mb": scratch_mb}).encode()
    env = dict(os.environ)  # the child imports this very awm_gym tree, whatever sys.path says
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_PARENT, env.get("PYTHONPATH")) if p)
    process = subprocess.Popen(
        [sys.executable, "-m", "awm_gym.tools.import_probe"], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, env=env)
    try:
        stdout, stderr = process.communicate(payload, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        raise WorldLoadError(
            f"World {name!r}: importing its generated code did not finish within "
            f"{timeout_s:g} s (a loop or a blocking call at module level?). Fix the code, or "
            "raise EnvConfig.import_timeout_s if the machine is only slow.") from None
    finally:
        _kill_group(process)  # whatever the import left running in its session goes too
    verdict = _verdict(stdout.decode("utf-8", "replace"), nonce)
    detail = stderr.decode("utf-8", "replace").strip()
    if verdict is None:  # the process ended before the child could say how the load went
        code = process.returncode
        how = (f"was killed by {_signal_name(-code)}" if code < 0 else
               f"ended the process with exit code {code} (sys.exit, os._exit or a crash)")
        tail = f" Its stderr ended: {detail[-300:]}" if detail else ""
        raise WorldLoadError(f"World {name!r}: importing its generated code {how}; it must not "
                             f"exit at import.{tail}")
    if verdict:
        raise WorldLoadError(verdict)
    if marker is not None:
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:
            logger.debug("could not write the import marker %s", marker, exc_info=True)


def _verdict(stdout: str, nonce: str) -> str | None:
    """The child's verdict: "" (loaded), the load error's text, or None (no verdict line)."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(nonce + " "):
            body = line[len(nonce) + 1:]
            return "" if body == "ok" else body.removeprefix("error ")
    return None


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _probe_main() -> None:
    """The child: load the world from the JSON on stdin and print the verdict line."""
    request = json.loads(sys.stdin.buffer.read())
    out = os.fdopen(os.dup(1), "w")  # our verdict channel, whatever the world does to sys.stdout
    slot = DatabaseSlot(sqlite3.connect(":memory:"))
    import fastapi  # noqa: F401 - what the world's code imports, loaded before containment
    import sqlalchemy.orm  # noqa: F401

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the caller reports missing layers
        scratch_mb = request.get("scratch_mb")
        contain_this_process(ContainmentPolicy(  # a CPU limit too: an orphaned loop dies
            scratch_dir=tempfile.mkdtemp(prefix="awm-probe-"), memory_mb=4096,
            cpu_s=int(request.get("cpu_s", 120)), file_size_mb=scratch_mb,
            scratch_fs_mb=scratch_mb,  # what a contained worker loading it allows, no more:
            blocks_threads=True, socket_families=()))  # an import never needs either
    try:
        load_world_module(request["name"], request["code"], slot, FrozenClock(DEFAULT_FROZEN_NOW))
        verdict = "ok"
    except WorldLoadError as e:
        verdict = "error " + str(e).replace("\n", " ")
    sys.stdout.flush()
    out.write(f"\n{request['nonce']} {verdict}\n")
    out.flush()
    os._exit(0)  # skip interpreter teardown: the world's threads or atexit hooks cannot hang it


if __name__ == "__main__":
    _probe_main()
