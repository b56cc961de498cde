"""The site served by a real uvicorn process, started the way `scripts/dev.py run` and docker-compose
start it (`config.serve`), on loopback, against this test's database."""

from __future__ import annotations

import http.client
import os
import re
import socket
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _database_url() -> str:
    """The URL of the database this test runs in (the test database, not the development one)."""
    db = connection.settings_dict
    user = urllib.parse.quote(db.get("USER") or "")
    password = urllib.parse.quote(db.get("PASSWORD") or "")
    auth = f"{user}:{password}@" if password else f"{user}@"
    host = db.get("HOST") or ""
    port = f":{db['PORT']}" if db.get("PORT") else ""
    if host.startswith("/"):
        return f"postgresql://{auth}{urllib.parse.quote(host, safe='')}{port}/{db['NAME']}"
    return f"postgresql://{auth}{host}{port}/{db['NAME']}"


@dataclass
class Site:
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextmanager
def running_site(tmp_path: Path, **environ: str) -> Iterator[Site]:
    """Start `python -m config.serve` on a free loopback port with `environ` added; stop it afterwards."""
    port = _free_port()
    env = {key: value for key, value in os.environ.items() if key != "FORWARDED_ALLOW_IPS"}
    env.update(
        {
            "DATABASE_URL": _database_url(),
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "LOG_LEVEL": "INFO",
            **environ,
        }
    )
    log_path = tmp_path / f"site-{port}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "config.serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    site = Site(port=port, process=process, log_path=log_path)
    try:
        deadline = time.monotonic() + 90  # a busy machine (parallel tests) starts it slowly
        while True:
            if process.poll() is not None:
                raise AssertionError(f"the web server stopped at start:\n{site.log()}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                conn.request("GET", "/healthz")
                if conn.getresponse().status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"the web server did not answer in 90 s:\n{site.log()}")
            time.sleep(0.2)
        yield site
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Browser:
    """A minimal browser for one site: keeps cookies, sends forms with their CSRF token."""

    port: int
    cookies: dict[str, str] = field(default_factory=dict)

    def request(
        self, method: str, path: str, body: dict[str, str] | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        sent = {"Host": f"127.0.0.1:{self.port}", **(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = None
        if body is not None:
            data = urllib.parse.urlencode(body)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                cookie_name, _, rest = value.partition("=")
                self.cookies[cookie_name.strip()] = rest.split(";", 1)[0]
        text = response.read().decode(errors="replace")
        return response.status, {k.lower(): v for k, v in response.getheaders()}, text

    def post_form(self, path: str, fields: dict[str, str], headers: dict[str, str] | None = None) -> int:
        status, _, page = self.request("GET", path, headers=headers)
        assert status == 200, (status, page[:500])
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token, page[:500]
        status, _, _ = self.request("POST", path, {"csrfmiddlewaretoken": token.group(1), **fields}, headers=headers)
        return status
