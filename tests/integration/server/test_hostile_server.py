"""``awm env start`` contains a world set from disk by default (issue 23, item 8): a served
hostile world (tests/fixtures/make_hostile_world.py) whose handlers and verifiers read files
outside their scratch directory, read the server's secrets, write outside scratch, signal the
server or end their process gets an error result; the server stays up and answers the next
request, and the session's database is intact.

The server is a real ``awm env start`` process on 127.0.0.1. It writes the world set itself,
with its own pid as the pid the verifier signals, before it starts serving."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import gymnasium as gym
import httpx
import pytest
from mcp import ClientSession

import awm_gym  # noqa: F401 - registers AWM/remote-v0
from awm_gym.server.process import _READY
from awm_gym.tools.mcp_compat import client_streams, result_is_error

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
SECRET = "sk-do-not-leak"
CONTENTS = "top-secret-file-contents"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux containment")

_LAUNCH = f"""
import os, sys
sys.path.insert(0, {str(FIXTURES)!r})
from make_hostile_world import write_hostile_world
root, marker = sys.argv[1], sys.argv[2]
write_hostile_world(root, marker=marker, caller_pid=os.getpid())
from awm_gym.cli import main
sys.exit(main(["env", "start", "--world", "hostile_lab", "--worlds-dir", root, "--port", "0",
               "--tool-timeout", "2", "--verifier-timeout", "5", "--max-episode-steps", "100",
               "--max-sessions", "4", *sys.argv[3:]]))
"""


class HostileServer:
    """``awm env start`` on the hostile world in a child process (its pid is the verifier's
    target); ``url`` once it serves."""

    def __init__(self, tmp: Path, *extra: str) -> None:
        self.tmp = tmp
        env = dict(os.environ, AWM_TEST_SECRET=SECRET, AWM_GYM_CACHE=str(tmp / "cache"),
                   PYTHONUNBUFFERED="1")
        self.process = subprocess.Popen(
            [sys.executable, "-c", _LAUNCH, str(tmp / "world"), str(tmp / "marker"), *extra],
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env, cwd=tmp)
        line: list[str] = []
        reader = threading.Thread(target=lambda: line.append(self.process.stdout.readline()),
                                  daemon=True)
        reader.start()
        reader.join(180)
        match = _READY.match(line[0]) if line else None
        if match is None:
            self.close()
            raise AssertionError(f"the server did not start: {line!r}")
        self.url = match.group(1)

    def alive(self) -> bool:
        """The server process runs and answers ``/health``."""
        if self.process.poll() is not None:
            return False
        return httpx.get(self.url + "/health", timeout=30).json()["status"] == "ok"

    def close(self) -> int | None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()
        return self.process.returncode


@pytest.fixture(scope="module")
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("hostile-server")
    (tmp / "secret.txt").write_text(CONTENTS)  # outside any scratch directory (and the cwd)
    return tmp


@pytest.fixture(scope="module")
def server(tmp: Path) -> Iterator[HostileServer]:
    server = HostileServer(tmp)
    try:
        yield server
    finally:
        assert server.close() == 0  # it ran to the end: no signal took it down


async def _mcp(url: str, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, bool]]:
    """Run ``calls`` in one MCP session; ``(text, is_error)`` of each."""
    out = []
    async with client_streams(url + "/mcp") as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            out.append((result.content[0].text, result_is_error(result)))
    return out


def _result(text: str) -> Any:
    return json.loads(text)["result"]


def test_the_served_world_runs_contained(server: HostileServer) -> None:
    containment = httpx.get(server.url + "/metadata", timeout=10).json()["containment"]
    assert containment is not None and {"rlimits", "env"} <= set(containment["active"])


def test_mcp_escape_attempts_are_error_results_and_the_server_answers_on(
        server: HostileServer, tmp: Path) -> None:
    pwned = tmp / "pwned.txt"
    add, count = ("add_note", {"body": "hello"}), ("count_notes", {})
    calls = [
        add,
        ("read_file", {"path": str(tmp / "secret.txt")}),             # a file outside scratch
        ("read_file", {"path": "secret.txt"}),                        # the server's cwd
        ("read_env", {"name": "AWM_TEST_SECRET"}),                    # the server's secret
        ("grep_file", {"path": "/proc/self/environ", "needle": SECRET}),
        ("grep_file", {"path": f"/proc/{server.process.pid}/environ", "needle": SECRET}),
        ("write_file", {"path": str(pwned)}),                         # outside scratch
        ("kill_parent", {}),                                          # SIGTERM to the server
        count,
        ("exit_process", {}),                                         # ends its worker
        count,
        ("hang", {}),                                                 # ignores SIGALRM
        count,
    ]
    results = anyio.run(_mcp, server.url, calls)
    texts = [text for text, _ in results]
    assert results[0] == (json.dumps({"result": "2 notes"}, indent=2), False), results[0]
    assert results[1][1] and results[2][1], texts[1:3]  # refused: error results
    assert all(CONTENTS not in text for text in texts)
    assert _result(texts[3]) is None
    assert _result(texts[4]) == "absent"
    assert results[5][1]  # another process's /proc is not readable
    assert results[6][1] and not pwned.exists()
    assert results[7][1]  # the signal was refused ...
    assert server.alive()  # ... and the server lives
    assert _result(texts[8]) == "2"
    assert results[9] == ("the tool call ended the process running it; the world was restored "
                          "to its state before this call.", True)
    assert _result(texts[10]) == "2"  # the session's database was rebuilt without that call
    assert results[11][1] and "timeout" in texts[11]
    assert _result(texts[12]) == "2"
    assert server.alive()


def test_mcp_sockets_threads_and_timers_are_refused_or_contained(server: HostileServer,
                                                                 tmp: Path) -> None:
    """Issue 31, items 2 and 4, through the server: a unix socket of the host (a path, an
    abstract name) is not reached, threads are not started, and a timer that would run world
    code between calls ends the worker, whose session is rebuilt without that call. Before: the
    sockets connected, the threads and the timer ran on in the server's worker."""
    path, abstract = str(tmp / "host.sock"), f"awm-host-{os.getpid()}"
    listeners = []
    for address in (path, "\0" + abstract):
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(address)
        listener.listen()
        listener.setblocking(False)
        listeners.append(listener)
    try:
        before = _result(anyio.run(_mcp, server.url, [("count_notes", {})])[0][0])
        add, count = ("add_note", {"body": "hello"}), ("count_notes", {})
        results = anyio.run(_mcp, server.url, [
            add, ("unix_connect", {"address": path}), ("unix_connect", {"address": "@" + abstract}),
            ("spin_threads", {"threads": 2}), count, ("spin_on_timer", {}), count])
        assert not results[0][1]
        assert results[1][1] and results[2][1] and results[3][1], results[1:4]  # error results
        for listener in listeners:
            with pytest.raises(BlockingIOError):
                listener.accept()  # nobody connected
        assert _result(results[4][0]) == str(int(before) + 1)
        assert results[5] == ("the tool call left work running after it answered (a thread, a "
                              "timer or a signal handler), so the process running it was ended; "
                              "the world was restored to its state before this call.", True)
        assert _result(results[6][0]) == str(int(before) + 1)  # rebuilt without that call
        assert server.alive()
    finally:
        for listener in listeners:
            listener.close()


def test_ws_sessions_verifiers_cannot_signal_the_server_or_read_its_secrets(
        server: HostileServer) -> None:
    env = gym.make("AWM/remote-v0", url=server.url)
    try:
        for task, label in [(6, "complete"), (4, "complete"), (1, "verifier_error")]:
            env.reset(seed=0, options={"task_idx": task})
            env.step('<tool_call>{"name": "add_note", "arguments": {"body": "hello"}}'
                     '</tool_call>')
            obs, _, _, _, info = env.step('<tool_call>{"name": "kill_parent", "arguments": {}}'
                                          '</tool_call>')
            assert obs.startswith("Error: ") and server.alive()
            _, reward, terminated, _, info = env.step("Done.")
            assert terminated and server.alive()
            if task == 6:  # the verifier's SIGTERM to the server was refused or contained
                assert info["verifier_label"] in ("complete", "verifier_error"), info
            else:  # 4: the secret is absent (complete); 1: /etc/passwd is refused
                assert info["verifier_label"] == label, info
                assert "root:" not in str(info.get("verifier_error", ""))
    finally:
        env.close()
    assert server.alive()


def test_in_process_the_same_world_reads_the_servers_secret(tmp_path: Path) -> None:
    """The control: ``--isolation none`` runs the handler in the server (what every served world
    did before), and the same call returns the secret."""
    (tmp_path / "secret.txt").write_text(CONTENTS)
    server = HostileServer(tmp_path, "--isolation", "none")
    try:
        [secret, contents] = anyio.run(_mcp, server.url, [
            ("read_env", {"name": "AWM_TEST_SECRET"}),
            ("read_file", {"path": str(tmp_path / "secret.txt")})])
        assert _result(secret[0]) == SECRET and _result(contents[0]) == CONTENTS
        assert httpx.get(server.url + "/metadata", timeout=10).json()["containment"] is None
    finally:
        server.close()


def test_sharded_servers_are_contained_too(tmp_path: Path) -> None:
    """``--num-workers 2``: each shard worker contained (before issue 23 the shards of a server
    ran world code with the server's rights)."""
    (tmp_path / "secret.txt").write_text(CONTENTS)
    server = HostileServer(tmp_path, "--num-workers", "2")
    try:
        assert httpx.get(server.url + "/metadata", timeout=10).json()["containment"] is not None
        [secret, contents, kill, count] = anyio.run(_mcp, server.url, [
            ("read_env", {"name": "AWM_TEST_SECRET"}),
            ("read_file", {"path": str(tmp_path / "secret.txt")}),
            ("kill_parent", {}),
            ("count_notes", {})])
        assert _result(secret[0]) is None and contents[1] and CONTENTS not in contents[0]
        assert kill[1] and _result(count[0]) == "1" and server.alive()
    finally:
        assert server.close() == 0
