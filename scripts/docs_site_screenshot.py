"""Screenshot a page of the built docs site with headless Chromium (docs/img/docs_site_api.png).

Builds the site (``mkdocs build --strict`` into a temporary folder, or ``--site DIR`` for one
already built), serves it with ``python -m http.server`` on 127.0.0.1, opens the page in Chromium
(``apt-get install chromium``; no browser download) through the DevTools protocol, waits until
the page shows ``--wait-for`` and writes a PNG. Same machinery as
``scripts/inspect_view_screenshot.py`` (scripts/chromium_capture.py).

Usage:
    python scripts/docs_site_screenshot.py [docs/img/docs_site_api.png]
        [--page api/envs/#awm_gym.envs.vector_env.AWMVectorEnv] [--size 1280x900]
        [--wait-for AWMVectorEnv] [--site DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from chromium_capture import capture_page, chromium_path

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
    if chromium_path() is None:
        parser.error("no chromium on PATH: apt-get install chromium")
    site = args.site
    if site is None:
        site = Path(tempfile.mkdtemp(prefix="awm-docs-site-"))
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)],
                       cwd=ROOT, check=True)
    server = [sys.executable, "-m", "http.server", "{port}", "--bind", "127.0.0.1",
              "--directory", str(site)]
    size = capture_page(server, "", args.page, args.out, (width, height), args.wait_for,
                        args.timeout_s)
    print(f"{args.out}: {size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
