"""Screenshot a page of the built docs site with headless Chromium (docs/img/docs_site_api.png).

Builds the site (``mkdocs build --strict`` into a temporary folder, or ``--site DIR`` for one
already built), serves it with ``python -m http.server`` on 127.0.0.1, opens the page in Chromium
(``apt-get install chromium``; no browser download) through the DevTools protocol, waits until
the page shows ``--wait-for`` and writes a PNG. Same machinery as
``scripts/inspect_view_screenshot.py``.

Usage:
    python scripts/docs_site_screenshot.py [docs/img/docs_site_api.png]
        [--page api/envs/#awm_gym.envs.vector_env.AWMVectorEnv] [--size 1280x900]
        [--wait-for AWMVectorEnv] [--site DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from inspect_view_screenshot import _capture, _free_port, _wait_http

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, nargs="?", default=ROOT / "docs/img/docs_site_api.png")
    parser.add_argument("--page", default="api/envs/#awm_gym.envs.vector_env.AWMVectorEnv",
                        help="path of the page in the site, with an anchor to scroll to")
    parser.add_argument("--size", default="1280x900")
    parser.add_argument("--wait-for", default="AWMVectorEnv")
    parser.add_argument("--site", type=Path, help="a built site (default: build one now)")
    parser.add_argument("--timeout-s", type=float, default=120.0)
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.split("x"))
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        parser.error("no chromium on PATH: apt-get install chromium")
    site = args.site
    if site is None:
        site = Path(tempfile.mkdtemp(prefix="awm-docs-site-"))
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)],
                       cwd=ROOT, check=True)
    serve_port, debug_port = _free_port(), _free_port()
    procs = []
    try:
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "http.server", str(serve_port), "--bind", "127.0.0.1",
             "--directory", str(site)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        _wait_http(f"http://127.0.0.1:{serve_port}/", args.timeout_s)
        profile = tempfile.mkdtemp(prefix="awm-chromium-")
        procs.append(subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--remote-debugging-port={debug_port}", f"--user-data-dir={profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        targets = json.loads(_wait_http(f"http://127.0.0.1:{debug_port}/json/list",
                                        args.timeout_s))
        page = next(t for t in targets if t.get("type") == "page")
        url = f"http://127.0.0.1:{serve_port}/{args.page.lstrip('/')}"
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
