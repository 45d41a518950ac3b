"""Screenshot a page served on 127.0.0.1 with headless Chromium through the DevTools protocol.

``scripts/inspect_view_screenshot.py`` (Inspect's log viewer) and
``scripts/docs_site_screenshot.py`` (the docs site) both take their pictures with
:func:`capture_page`: start the page's server, wait until it answers, open the page in Chromium
(``apt-get install chromium``; no browser download), wait until it shows a text, write a PNG.

Example:
    >>> capture_page(["python", "-m", "http.server", "{port}"], "", "index.html",
    ...              Path("shot.png"), (1280, 900), "Welcome")         # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

__all__ = ["capture_page", "chromium_path"]


def chromium_path() -> str | None:
    """Chromium's executable on ``PATH``, or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def capture_page(server: list[str], ready_path: str, page_path: str, out: Path,
                 size: tuple[int, int], wait_for: str, timeout_s: float = 120.0) -> int:
    """Run ``server`` (each ``{port}`` in it replaced by a free port), wait until
    ``http://127.0.0.1:PORT/<ready_path>`` answers, open ``.../<page_path>`` in headless
    Chromium at ``size``, wait until the page's text holds ``wait_for`` and write the PNG to
    ``out``; returns its size in bytes. Every process started is stopped on the way out."""
    chromium = chromium_path()
    if chromium is None:
        raise FileNotFoundError("no chromium on PATH: apt-get install chromium")
    port, debug_port = _free_port(), _free_port()
    procs = []
    try:
        procs.append(subprocess.Popen([a.replace("{port}", str(port)) for a in server],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        base = f"http://127.0.0.1:{port}/"
        _wait_http(base + ready_path.lstrip("/"), timeout_s)
        profile = tempfile.mkdtemp(prefix="awm-chromium-")
        procs.append(subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--remote-debugging-port={debug_port}", f"--user-data-dir={profile}",
             f"--window-size={size[0]},{size[1]}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        targets = json.loads(_wait_http(f"http://127.0.0.1:{debug_port}/json/list", timeout_s))
        page = next(t for t in targets if t.get("type") == "page")
        png = asyncio.run(_capture(page["webSocketDebuggerUrl"], base + page_path.lstrip("/"),
                                   size, wait_for, timeout_s))
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(png)
        return len(png)
    finally:
        for proc in reversed(procs):
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


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
