"""Real-browser fixtures: the ASGI app served by uvicorn, Debian's chromium driven by Playwright.

The server runs in a thread of the test process against the test database, so data the
test commits is what the browser sees. Without chromium these tests skip and say how to get it.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Playwright's sync API keeps an event loop running in the test thread; the ORM calls the
# test itself makes are still plain synchronous code (Django's documented escape hatch).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ARTIFACTS = Path(__file__).resolve().parent.parent.parent / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class AsgiServer:
    """uvicorn serving config.asgi in a background thread; `restart()` drops every socket."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._server = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        import uvicorn

        from config.asgi import application

        config = uvicorn.Config(
            application, host="127.0.0.1", port=self.port, lifespan="off", ws="websockets-sansio", log_level="warning"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 15
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server, self._thread = None, None

    def restart(self) -> None:
        self.stop()
        self.start()

    def log_in(self, page: Any, username: str) -> None:
        """Log the member in through the login form in ``page`` (the factories' password); waits for home."""
        from tests.accounts.factories import PASSWORD

        page.goto(self.url + "/login/")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(self.url + "/")


@pytest.fixture
def asgi_server(transactional_db: None, settings) -> Iterator[AsgiServer]:
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
    server = AsgiServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session", autouse=True)
def end_server_sessions(django_db_setup, django_db_blocker) -> Iterator[None]:
    """The server's worker threads keep database sessions that outlive it (Django's ASGI handler runs each
    request in a thread of its own). Once every test of this run is over, end them, so the test database
    can be dropped instead of being left behind."""
    yield
    from django.db import connection

    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture(scope="module")
def browser():
    # Module scope: Playwright's sync API holds an event loop while open; closing it after
    # each browser module lets the asyncio (socket) tests that follow run their own loops.
    path = chromium_path()
    if path is None:
        pytest.skip("Browser tests need Debian's chromium: `apt-get install chromium` (the CI script installs it).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def screenshots(request):
    """Return `shot(page, name)` that keeps a screenshot in test-artifacts/<test name>/."""
    folder = ARTIFACTS / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    counter = iter(range(1, 10_000))

    def shot(page, name: str, *, full_page: bool = True) -> Path:
        # JPEG: half the browser's time of a PNG for a whole page (about 160 against 290 ms), and the
        # suite takes about 200 of them; they are for people to look at.
        path = folder / f"{next(counter):02d}-{name}.jpeg"
        page.screenshot(path=str(path), full_page=full_page, type="jpeg", quality=85)
        return path

    return shot
