"""What the browser tests share: Debian's Chromium through Playwright, and an ASGI app served
by uvicorn on a free loopback port in a thread of the test process."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from typing import Iterator

import pytest

from waiting import PATIENCE

CHROMIUM = "/usr/bin/chromium"
# A page's waits are on events (a selector, a function); this only turns a hang into a failure
# with a message, long enough for a machine whose cores are taken by other work.
WAIT_MS = 120_000
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@contextlib.contextmanager
def chromium() -> Iterator:
    """A launched headless Chromium (Debian's, never a downloaded one); CI fails without it,
    elsewhere the test is skipped."""
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium")
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield instance
        finally:
            instance.close()


@contextlib.contextmanager
def serving(app) -> Iterator[str]:
    """``app`` served on 127.0.0.1 (a free port) until the block ends; yields its base URL once
    the server listens (waiting on that event, not on time)."""
    import uvicorn

    instance = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + PATIENCE
    while not instance.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{instance.servers[0].sockets[0].getsockname()[1]}"
    finally:
        instance.should_exit = True
        thread.join(10)
