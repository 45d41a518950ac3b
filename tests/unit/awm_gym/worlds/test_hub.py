"""World sets named by Hugging Face dataset id (awm_gym.worlds.hub).

Offline: a Hub cache laid out as huggingface_hub writes it (``datasets--org--name/snapshots/<rev>/``
plus ``refs/main``), read with ``HF_HUB_OFFLINE=1``. Online: the real ``snapshot_download``
against a fake Hub, a real HTTP server on 127.0.0.1 that ``HF_ENDPOINT`` points at, answering the
three routes a dataset download uses (revision info, file tree, file resolve). huggingface_hub reads
its environment at import, so each case runs in a fresh interpreter.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from awm_gym.worlds.hub import parse_dataset_id, resolve_world_set

REPO = Path(__file__).resolve().parents[4]
TINY = REPO / "tests" / "fixtures" / "worlds" / "tiny"
SHA = "0123456789abcdef0123456789abcdef01234567"
IDS = ["AWM/defect_lab-v0", "AWM/judge_only-v0", "AWM/notes_app-v0"]


@pytest.mark.parametrize("ref, expected", [
    ("Snowflake/AgentWorldModel-1K", ("Snowflake/AgentWorldModel-1K", None)),
    ("org/name@v1.0", ("org/name", "v1.0")),
    (f"org/name@{SHA}", ("org/name", SHA)),
    ("./outputs", None), ("/data/worlds", None), ("a/b/c", None), ("outputs", None),
    ("../up", None), ("org/..", None), ("org/name@", None),
])
def test_what_is_a_dataset_id(ref: str, expected: tuple | None) -> None:
    assert parse_dataset_id(ref) == expected


def test_an_existing_path_wins_over_an_id_shaped_name(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "org" / "name").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    assert resolve_world_set("org/name") == "org/name"  # no fetch: it is a directory
    assert resolve_world_set("missing") == "missing"  # not an id: the loader says it is missing


def _run(code: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(REPO), **env}
    return subprocess.run([sys.executable, "-c", code], env=full, cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def _hub_cache(hf_home: Path, repo: str = "Org/Tiny") -> Path:
    org, name = repo.split("/")
    storage = hf_home / "hub" / f"datasets--{org}--{name}"
    snapshot = storage / "snapshots" / SHA
    shutil.copytree(TINY, snapshot)
    (storage / "refs").mkdir()
    (storage / "refs" / "main").write_text(SHA)
    return snapshot


_REGISTER = """
import json, awm_gym
from awm_gym.envs.registration import get_world_set
ids = awm_gym.register_worlds({ref!r})
print(json.dumps([ids, get_world_set({ref!r}).root]))
"""


def test_an_id_reads_the_hub_cache_offline(tmp_path: Path) -> None:
    snapshot = _hub_cache(tmp_path / "hf")
    env = {"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf"),
           "AWM_GYM_CACHE": str(tmp_path / "awm")}
    for ref in ("Org/Tiny", f"Org/Tiny@{SHA}", "Org/Tiny@main"):
        out = _run(_REGISTER.format(ref=ref), env, tmp_path)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout) == [IDS, str(snapshot)]
    cli = _run("import sys; from awm_gym.cli import main; sys.exit(main(['list', 'Org/Tiny']))",
               env, tmp_path)
    assert cli.returncode == 0 and "notes_app" in cli.stdout, cli.stderr
    missing = _run("import sys; from awm_gym.cli import main; "
                   "sys.exit(main(['list', 'Org/Other']))", env, tmp_path)
    assert missing.returncode == 2
    err = missing.stderr.strip().splitlines()[-1]
    assert err.startswith("awm list: error: world_set='Org/Other': there is no directory"), err
    assert "not in the Hugging Face cache" in err and "HF_HUB_OFFLINE" in err


class _FakeHub(http.server.BaseHTTPRequestHandler):
    """The Hub's routes for one dataset at one commit (what snapshot_download asks)."""

    files: dict[str, bytes] = {}
    repo = "Org/Tiny"
    seen: list[str] = []

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, body: bytes, headers: dict[str, str], head: bool = False) -> None:
        self.send_response(200)
        for k, v in {"Content-Length": str(len(body)), **headers}.items():
            self.send_header(k, v)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _answer(self, head: bool) -> None:
        path = self.path.split("?")[0]
        self.seen.append(f"{self.command} {path}")
        api = f"/api/datasets/{self.repo}"
        resolve = f"/datasets/{self.repo}/resolve/{SHA}/"
        if path.startswith(f"{api}/revision/"):
            body = {"id": self.repo, "sha": SHA, "private": False,
                    "siblings": [{"rfilename": f} for f in self.files]}
            self._send(json.dumps(body).encode(), {"Content-Type": "application/json"}, head)
        elif path.startswith(f"{api}/tree/{SHA}"):
            body = [{"type": "file", "path": f, "size": len(data),
                     "oid": hashlib.sha1(data).hexdigest()} for f, data in self.files.items()]
            self._send(json.dumps(body).encode(), {"Content-Type": "application/json"}, head)
        elif path.startswith(resolve) and path[len(resolve):] in self.files:
            data = self.files[path[len(resolve):]]
            self._send(data, {"X-Repo-Commit": SHA,
                              "ETag": f'"{hashlib.sha1(data).hexdigest()}"'}, head)
        else:
            self.send_response(404)
            self.send_header("X-Error-Code", "RepoNotFound")
            self.send_header("Content-Length", "0")
            self.end_headers()

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self._answer(head=False)

    def do_HEAD(self) -> None:  # noqa: N802
        self._answer(head=True)


@pytest.fixture
def fake_hub() -> Iterator[str]:
    _FakeHub.files = {f.name: f.read_bytes() for f in sorted(TINY.glob("*.jsonl"))}
    _FakeHub.files["other.parquet"] = b"not fetched: only gen_*.jsonl and the card are"
    _FakeHub.seen = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FakeHub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_an_id_is_downloaded_into_the_hub_cache_then_read_offline(tmp_path: Path,
                                                                  fake_hub: str) -> None:
    hf_home = tmp_path / "hf"
    env = {"HF_ENDPOINT": fake_hub, "HF_HOME": str(hf_home), "HF_HUB_OFFLINE": "0",
           "HF_HUB_DISABLE_XET": "1", "AWM_GYM_CACHE": str(tmp_path / "awm")}
    out = _run(_REGISTER.format(ref="Org/Tiny"), env, tmp_path)
    assert out.returncode == 0, out.stderr
    ids, root = json.loads(out.stdout)
    snapshot = hf_home / "hub" / "datasets--Org--Tiny" / "snapshots" / SHA
    assert ids == IDS and root == str(snapshot)
    assert sorted(p.name for p in snapshot.iterdir()) == sorted(
        f for f in _FakeHub.files if f.endswith(".jsonl"))
    assert (snapshot.parent.parent / "refs" / "main").read_text() == SHA
    assert not any("other.parquet" in s for s in _FakeHub.seen)
    # the Hub's own cache, so the next process finds it with the network off
    offline = _run(_REGISTER.format(ref="Org/Tiny"), {**env, "HF_HUB_OFFLINE": "1"}, tmp_path)
    assert offline.returncode == 0 and json.loads(offline.stdout) == [IDS, str(snapshot)]
    # an id the Hub does not have: one error naming the argument and the fix
    bad = _run("import awm_gym; awm_gym.register_worlds('Org/Nope')", env, tmp_path)
    assert bad.returncode == 1
    last = bad.stderr.strip().splitlines()[-1]
    assert "world_set='Org/Nope': there is no directory" in last
    assert "which the Hub does not have" in last
