"""What loading the web UI costs: requests and bytes, the sources unbundled against the bundle.

    .venv/bin/python bench/web_load.py [--modes source bundle] [--chromium /usr/bin/chromium]

For each mode (`WEB_UI`, handlers/webbundle.py: `source` serves web/ as it is, one request a module;
`bundle` serves web/dist/, built first by scripts/build_web.py when stale) it starts the real service
(uvicorn, SQLite in a temporary folder, the offline pseudo model) on a free port, opens its page in
headless Chromium (Playwright with the system browser, as tests/browser do) in a fresh profile, and
waits until the UI shows its home screen and the network is idle. Chrome's DevTools protocol counts
every request and the bytes it took on the wire (`encodedDataLength`: compressed bodies and headers)
and after decoding. Then it opens the page again in the same profile (a returning user): what its
cache answers is not counted as transferred.

Per visit it prints the requests, split into the UI's files (page, scripts, stylesheet) and the
calls to the service (`api/…`, `auth.json`: the only ones that reach the Lambda function when the UI
is deployed behind CloudFront), and the kilobytes transferred and decoded. The targets of issue 45
are checked on the first visit of the bundle: at most 6 requests, at most 120 KB transferred.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.launcher import CHROMIUM_ARGS, free_port, running_service  # noqa: E402

TARGET_REQUESTS = 6
TARGET_KB = 120.0
UI_TYPES = frozenset({"Document", "Script", "Stylesheet", "Image", "Font"})


@dataclass
class Visit:
    """One page load as the browser saw it."""

    types: dict[str, str] = field(default_factory=dict)
    urls: dict[str, str] = field(default_factory=dict)
    cached: set[str] = field(default_factory=set)
    wire: dict[str, int] = field(default_factory=dict)
    decoded: dict[str, int] = field(default_factory=dict)
    encodings: dict[str, str] = field(default_factory=dict)

    def record(self, event: str, e: dict[str, Any]) -> None:
        """Take in one of the DevTools protocol's network events."""
        if event == "Network.requestWillBeSent":
            self.sent(e)
        elif event == "Network.requestServedFromCache":
            self.cached.add(e["requestId"])
        elif event == "Network.responseReceived":
            self.received(e)
        elif event == "Network.dataReceived":
            self.decoded[e["requestId"]] = self.decoded.get(e["requestId"], 0) + e["dataLength"]
        elif event == "Network.loadingFinished":
            self.wire[e["requestId"]] = e["encodedDataLength"]

    def sent(self, e: dict[str, Any]) -> None:
        """A request leaves (data: URLs are no requests)."""
        if not e["request"]["url"].startswith("data:"):
            self.urls[e["requestId"]] = e["request"]["url"]
            self.types[e["requestId"]] = e.get("type", "Other")

    def received(self, e: dict[str, Any]) -> None:
        """A response's head: its encoding, and whether the cache answered."""
        headers = {k.lower(): v for k, v in e["response"].get("headers", {}).items()}
        self.encodings[e["requestId"]] = headers.get("content-encoding", "")
        if e["response"].get("fromDiskCache") or e["response"].get("fromPrefetchCache"):
            self.cached.add(e["requestId"])

    def ids(self, ui: bool | None = None) -> list[str]:
        """The requests (all, the UI's files only, or the service's calls only)."""
        return [r for r, t in self.types.items() if ui is None or (t in UI_TYPES) == ui]

    def row(self, label: str) -> str:
        """One line: requests (over the network), UI files and service calls, KB on the wire and decoded."""
        network = [r for r in self.ids() if r not in self.cached]
        kb_wire = sum(self.wire.get(r, 0) for r in network) / 1000
        kb_decoded = sum(self.decoded.get(r, 0) for r in self.ids()) / 1000
        return (
            f"{label:<28} {len(self.ids()):>8} {len(network):>8} {len(self.ids(ui=True)):>8} "
            f"{len(self.ids(ui=False)):>8} {kb_wire:>10.1f} {kb_decoded:>10.1f}"
        )

    def transferred_kb(self) -> float:
        """Kilobytes on the wire, cache hits excluded."""
        return sum(v for r, v in self.wire.items() if r not in self.cached) / 1000


HEADER = (
    f"{'visit':<28} {'requests':>8} {'network':>8} {'UI files':>8} {'service':>8} {'KB wire':>10} {'KB decoded':>10}"
)


EVENTS = (
    "Network.requestWillBeSent",
    "Network.requestServedFromCache",
    "Network.responseReceived",
    "Network.dataReceived",
    "Network.loadingFinished",
)


def load(page: Any, visits: list[Visit], url: str) -> Visit:
    """Open `url` and wait for the home screen and an idle network; the visit's requests."""
    visit = Visit()
    visits.append(visit)
    page.goto(url)
    page.wait_for_selector("body[data-phase=home]")
    page.wait_for_load_state("networkidle")
    return visit


def measure(mode: str, chromium: str) -> tuple[Visit, Visit]:
    """The first and the returning visit of the UI served in `mode`."""
    from playwright.sync_api import sync_playwright

    with (
        tempfile.TemporaryDirectory() as tmp,
        running_service(Path(tmp), free_port(), {"WEB_UI": mode}) as base,
        sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        visits: list[Visit] = []  # the events go to the latest
        for event in EVENTS:
            cdp.on(event, lambda e, event=event: visits[-1].record(event, e) if visits else None)
        first = load(page, visits, base)
        again = load(page, visits, base)
        context.close()
        browser.close()
    return first, again


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modes", nargs="+", default=["source", "bundle"], choices=["source", "bundle"])
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
    args = parser.parse_args(argv)
    if "bundle" in args.modes:
        subprocess.run([sys.executable, "scripts/build_web.py"], cwd=ROOT, check=True)
    results = {mode: measure(mode, args.chromium) for mode in args.modes}
    print(HEADER)
    for mode, (first, again) in results.items():
        print(first.row(f"{mode}, first visit"))
        print(again.row(f"{mode}, returning visit"))
    for mode, (first, _) in results.items():
        print(f"\n{mode}, first visit: each request")
        for r in first.ids():
            path = first.urls[r].split("/", 3)[-1] or "(page)"
            encoding = first.encodings.get(r) or "identity"
            print(f"  {path[:60]:<60} {first.types[r]:<10} {first.wire.get(r, 0) / 1000:7.1f} KB {encoding}")
    if "bundle" in results:
        first = results["bundle"][0]
        ok = len(first.ids()) <= TARGET_REQUESTS and first.transferred_kb() <= TARGET_KB
        print(
            f"\ntarget (bundle, first visit): <= {TARGET_REQUESTS} requests, <= {TARGET_KB:.0f} KB: "
            f"{len(first.ids())} requests, {first.transferred_kb():.1f} KB: {'met' if ok else 'NOT MET'}"
        )
        if "source" in results:
            before = results["source"][0]
            print(
                f"bundle / source: requests {len(first.ids()) / len(before.ids()):.2f}, "
                f"KB transferred {first.transferred_kb() / before.transferred_kb():.2f}"
            )
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
