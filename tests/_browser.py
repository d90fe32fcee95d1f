"""What the browser tests share: Debian's Chromium (installed with apt when missing), a live server for an app on
127.0.0.1, and a headless Playwright browser (tests/test_review_browser.py, tests/test_vocab_review_browser.py)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


def chromium() -> str:
    """Debian's Chromium, installed with apt when missing (the project's own test setup); skips, saying why, only
    where apt cannot run (not root, no apt-get)."""
    for candidate in (shutil.which("chromium"), "/usr/bin/chromium", shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    if not shutil.which("apt-get"):
        pytest.skip("Chromium is not installed and there is no apt-get to install it (Debian's chromium package)")
    if os.geteuid() != 0:
        pytest.skip("Chromium is not installed and apt-get needs root: run `apt-get install -y chromium`")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", "chromium"]):
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900, check=False)
        if done.returncode != 0:
            pytest.fail(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr[-2000:]}")
    path = shutil.which("chromium") or "/usr/bin/chromium"
    assert Path(path).exists(), "apt-get installed chromium but no chromium binary was found"
    return path


@contextmanager
def live_server(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn in a thread on a free port of 127.0.0.1; yields its base URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(10)


@contextmanager
def headless_chromium(playwright_sync: Any) -> Iterator[object]:
    """A headless Chromium (:func:`chromium`) launched through Playwright's sync API."""
    path = chromium()
    with playwright_sync.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, headless=True, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()
