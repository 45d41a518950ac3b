"""Screenshot ``inspect view`` on an Inspect log with headless Chromium (docs/img/).

Starts ``inspect view`` on the log's folder (127.0.0.1), opens one sample's tab in Chromium
(``apt-get install chromium``; no browser download) through the DevTools protocol, waits until
the page shows ``--wait-for`` (the viewer loads the log in a worker, which Chromium's own
``--screenshot`` flag does not wait for), and writes a PNG.

Usage:
    python scripts/inspect_view_screenshot.py LOG.eval SAMPLE_ID docs/img/inspect_view.png \\
        [--tab messages] [--size 1280x900] [--wait-for "awm_verifier"]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, timeout_s: float) -> str:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                return reply.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


async def _capture(ws_url: str, url: str, size: tuple[int, int], wait_for: str,
                   timeout_s: float) -> bytes:
    import websockets

    async with websockets.connect(ws_url, max_size=64 * 2**20) as ws:
        ids = iter(range(1, 1_000_000))

        async def call(method: str, **params: object) -> dict:
            n = next(ids)
            await ws.send(json.dumps({"id": n, "method": method, "params": params}))
            while True:
                message = json.loads(await ws.recv())
                if message.get("id") == n:
                    return message.get("result", {})

        await call("Emulation.setDeviceMetricsOverride", width=size[0], height=size[1],
                   deviceScaleFactor=1, mobile=False)
        await call("Page.enable")
        await call("Page.navigate", url=url)
        deadline = time.monotonic() + timeout_s
        while True:
            found = await call("Runtime.evaluate", returnByValue=True,
                               expression=f"document.body.innerText.includes({wait_for!r})")
            if found.get("result", {}).get("value"):
                break
            if time.monotonic() > deadline:
                text = await call("Runtime.evaluate", returnByValue=True,
                                  expression="document.body.innerText.slice(0, 300)")
                raise TimeoutError(f"the page never showed {wait_for!r}; it shows: "
                                   f"{text.get('result', {}).get('value')!r}")
            await asyncio.sleep(0.5)
        await asyncio.sleep(3.0)  # let the rest of the page render
        shot = await call("Page.captureScreenshot", format="png")
        return base64.b64decode(shot["data"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("sample_id")
    parser.add_argument("out", type=Path)
    parser.add_argument("--tab", default="messages")
    parser.add_argument("--size", default="1280x900")
    parser.add_argument("--wait-for", default="awm_verifier")
    parser.add_argument("--timeout-s", type=float, default=120.0)
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.split("x"))
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        parser.error("no chromium on PATH: apt-get install chromium")
    inspect = Path(sys.executable).with_name("inspect")
    view_port, debug_port = _free_port(), _free_port()
    procs = []
    try:
        procs.append(subprocess.Popen(
            [str(inspect), "view", "start", "--log-dir", str(args.log.parent.resolve()),
             "--host", "127.0.0.1", "--port", str(view_port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        _wait_http(f"http://127.0.0.1:{view_port}/", args.timeout_s)
        profile = tempfile.mkdtemp(prefix="awm-chromium-")
        procs.append(subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--remote-debugging-port={debug_port}", f"--user-data-dir={profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        targets = json.loads(_wait_http(f"http://127.0.0.1:{debug_port}/json/list",
                                        args.timeout_s))
        page = next(t for t in targets if t.get("type") == "page")
        url = (f"http://127.0.0.1:{view_port}/#/logs/{args.log.name}/samples/sample/"
               f"{args.sample_id}/1/{args.tab}")
        png = asyncio.run(_capture(page["webSocketDebuggerUrl"], url, (width, height),
                                   args.wait_for, args.timeout_s))
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_bytes(png)
        print(f"{args.out}: {len(png):,} bytes")
        return 0
    finally:
        for proc in reversed(procs):
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    sys.exit(main())
