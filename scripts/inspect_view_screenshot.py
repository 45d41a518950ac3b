"""Screenshot ``inspect view`` on an Inspect log with headless Chromium (docs/img/).

Starts ``inspect view`` on the log's folder (127.0.0.1), opens one sample's tab in Chromium
(``apt-get install chromium``; no browser download) through the DevTools protocol, waits until
the page shows ``--wait-for`` (the viewer loads the log in a worker, which Chromium's own
``--screenshot`` flag does not wait for), and writes a PNG (scripts/chromium_capture.py).

Usage:
    python scripts/inspect_view_screenshot.py LOG.eval SAMPLE_ID docs/img/inspect_view.png \\
        [--tab messages] [--size 1280x900] [--wait-for "awm_verifier"]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from chromium_capture import capture_page, chromium_path


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
    if chromium_path() is None:
        parser.error("no chromium on PATH: apt-get install chromium")
    inspect = Path(sys.executable).with_name("inspect")
    server = [str(inspect), "view", "start", "--log-dir", str(args.log.parent.resolve()),
              "--host", "127.0.0.1", "--port", "{port}"]
    page = f"#/logs/{args.log.name}/samples/sample/{args.sample_id}/1/{args.tab}"
    size = capture_page(server, "", page, args.out, (width, height), args.wait_for,
                        args.timeout_s)
    print(f"{args.out}: {size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
