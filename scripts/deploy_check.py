"""The production stack, run for real: `python3 scripts/dev.py deploy-check` (called by .ci/run after the tests).

On a Debian machine as root it installs Debian's docker.io, docker-compose and debootstrap when missing and
starts the engine. It uses the public images when they can be pulled, else builds stand-ins for them from a
debootstrapped Debian bookworm (deploy/standins/, each difference written down there). It builds the site's
image, brings docker-compose.yml up under the project name `clubcheck` with a generated throwaway .env (the
proxy published on 127.0.0.1 only), and through the proxy over HTTPS, trusting the proxy's own internal
authority: sets the first organiser's password by the link `manage.py create_club` prints, logs in, plays a
hand over the websockets with a 10 s clock the worker applies, looks inside the image (no secret, no .git, no
test tool, an unprivileged user, its size), backs up and restores into a fresh database, scales web to two
and sees a chat reach sockets on both, restarts Redis and PostgreSQL mid-hand and sees the hand finish. It
always tears the stack down (containers, volumes, networks); the images stay cached for the next run.

Every wait has a deadline; a failure says what was awaited and shows the logs of the services concerned.
Each stage prints its time. Exit status 0 when every stage passed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STANDINS = ROOT / "deploy" / "standins"
PROJECT = "clubcheck"
IMAGE_TAG = "deploy-check"  # home-club:deploy-check, beside any home-club:latest an operator built
# The public images the stack and the Dockerfile name, and the stand-in folder for each.
PUBLIC_IMAGES = {"python:3.11-slim": "python", "postgres:16": "postgres", "redis:7": "redis", "caddy:2": "caddy"}
BASE_IMAGE = "debian:bookworm-slim"
IMAGE_LIMIT = 350 * 1000 * 1000  # bytes, as `docker images` counts MB
TOOLS = ("pytest", "playwright", "mypy", "ruff", "hypothesis", "faker", "factory", "pokerkit", "treys")
CLOCK_SECONDS = 10  # the house rules' turn clock in the check (the shortest the rules allow)
HOST_CA = Path("/etc/ssl/certs/ca-certificates.crt")
ENV_MARK = "# Written by scripts/deploy_check.py for one check; removed when it ends."


class CheckFailed(Exception):
    """A stage failed: the message says what was expected; `services` are the ones whose logs tell why."""

    def __init__(self, message: str, services: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.services = list(services)


def say(message: str) -> None:
    print(f"==> {message}", flush=True)


def run(
    args: Sequence[str],
    *,
    timeout: float,
    what: str,
    input: str | None = None,
    env: dict[str, str] | None = None,
    services: Sequence[str] = (),
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run a command with a deadline; on failure or timeout, CheckFailed naming `what` with its output."""
    try:
        done = subprocess.run(
            list(args), input=input, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT, check=False
        )
    except subprocess.TimeoutExpired as error:
        output = error.stdout.decode(errors="replace") if isinstance(error.stdout, bytes) else (error.stdout or "")
        output = output[-3000:]
        raise CheckFailed(f"{what}: no answer within {timeout:.0f}s\n{output}", services) from None
    if check and done.returncode != 0:
        raise CheckFailed(
            f"{what} failed (exit {done.returncode}):\n{(done.stdout + done.stderr)[-4000:]}", services
        ) from None
    return done


def wait_until(condition: Callable[[], bool], *, timeout: float, what: str, services: Sequence[str] = ()) -> float:
    """Poll `condition` until true; return the seconds it took. CheckFailed after `timeout`."""
    began = time.monotonic()
    while not condition():
        if time.monotonic() - began > timeout:
            raise CheckFailed(f"{what}: not within {timeout:.0f}s", services)
        time.sleep(0.5)
    return time.monotonic() - began


@dataclass
class Stages:
    """Times each stage and prints it; the summary at the end."""

    times: list[tuple[str, float]] = field(default_factory=list)
    began: float = field(default_factory=time.monotonic)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        say(f"{name} ...")
        began = time.monotonic()
        yield
        took = time.monotonic() - began
        self.times.append((name, took))
        say(f"{name}: {took:.1f}s")

    def summary(self) -> str:
        lines = [f"    {name:<48} {took:6.1f}s" for name, took in self.times]
        lines.append(f"    {'total':<48} {time.monotonic() - self.began:6.1f}s")
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------
# The engine


def docker_program() -> str:
    # Debian's client beside Debian's engine; any other `docker` on PATH may speak a newer API.
    return "/usr/bin/docker" if Path("/usr/bin/docker").exists() else (shutil.which("docker") or "docker")


def ensure_engine() -> None:
    """Debian's docker.io, docker-compose and debootstrap when missing (as root with apt-get); the engine
    started in the background when it does not answer (no systemd on these machines)."""
    missing = [
        package
        for package, program in (
            ("docker.io", "dockerd"),
            ("docker-compose", "docker-compose"),
            ("debootstrap", "debootstrap"),
        )
        if shutil.which(program) is None and not Path(f"/usr/sbin/{program}").exists()
    ]
    if missing:
        if os.geteuid() != 0 or shutil.which("apt-get") is None:
            raise CheckFailed(f"install {', '.join(missing)} (Debian packages; this needs root and apt-get)")
        say(f"installing {', '.join(missing)} from Debian")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        run(["apt-get", "update", "-qq"], timeout=300, what="apt-get update", env=env)
        run(["apt-get", "install", "-y", "-qq", *missing], timeout=600, what="apt-get install", env=env)
    docker = docker_program()
    if run([docker, "info"], timeout=30, what="docker info", check=False).returncode == 0:
        return
    dockerd = shutil.which("dockerd") or "/usr/sbin/dockerd"
    log = Path("/var/log/dockerd.log") if os.access("/var/log", os.W_OK) else ROOT / ".data" / "dockerd.log"
    say(f"starting the container engine (dockerd; its log: {log})")
    with log.open("ab") as out:
        # Its own session: it keeps running for the next check, as a system's engine would.
        subprocess.Popen(
            [dockerd], stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
        )

    def answers() -> bool:
        return run([docker, "info"], timeout=30, what="docker info", check=False).returncode == 0

    try:
        wait_until(answers, timeout=90, what="the container engine (dockerd) answering")
    except CheckFailed as error:
        raise CheckFailed(f"{error}\n{log.read_text(errors='replace')[-3000:]}") from None


# ---------------------------------------------------------------------------------------------------------
# Images: public ones when they can be pulled, else stand-ins from a debootstrapped bookworm


def standin_source() -> str:
    """A digest of deploy/standins/ (its notes aside): a cached stand-in whose label differs is built again."""
    digest = hashlib.sha256()
    for path in sorted(STANDINS.rglob("*")):
        if path.is_file() and path.suffix != ".md":
            digest.update(path.relative_to(STANDINS).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def image_label(docker: str, image: str) -> str | None:
    """The stand-in label of a local image ("" for an image that is no stand-in), None when it is not here."""
    done = run(
        [docker, "image", "inspect", "-f", '{{index .Config.Labels "club.standin.source"}}', image],
        timeout=30,
        what=f"docker image inspect {image}",
        check=False,
    )
    if done.returncode != 0:
        return None
    return done.stdout.strip().replace("<no value>", "")


def debian_mirror(apt: Path = Path("/etc/apt")) -> str:
    """The Debian mirror apt uses on this machine (the registries alone are reachable), for debootstrap."""
    for path in [apt / "sources.list", *sorted((apt / "sources.list.d").glob("*"))]:
        if not path.is_file():
            continue
        for line in path.read_text(errors="replace").splitlines():
            words = line.split()
            if words[:1] in (["deb"], ["URIs:"]):  # one-line and deb822 sources
                for word in words[1:]:
                    if word.rstrip("/").endswith("/debian"):
                        return word.rstrip("/")
    return "http://deb.debian.org/debian"


def ensure_images(docker: str, stages: Stages, build_site: Callable[[], None]) -> str:
    """Every image the stack and the Dockerfile name, present locally, and the site's image built (`build_site`:
    as soon as its base is there, beside the other stand-ins' builds). Returns what was used, for the report."""
    source = standin_source()
    needed: list[str] = []
    used: dict[str, str] = {}
    for image in PUBLIC_IMAGES:
        label = image_label(docker, image)
        if label == source:
            used[image] = "stand-in (cached)"
            continue
        pulled = run([docker, "pull", "-q", image], timeout=300, what=f"docker pull {image}", check=False)
        if pulled.returncode == 0:
            used[image] = "public"
        elif label == "":
            used[image] = "public (cached)"
        else:
            needed.append(image)
    if needed:
        say(f"the public images cannot be pulled ({', '.join(needed)}): stand-ins from Debian bookworm")
        if image_label(docker, BASE_IMAGE) != source:
            with stages.stage("debootstrap bookworm (stand-ins' base)"):
                import_base(docker, source)
        with (
            stages.stage(f"build {len(needed)} stand-ins and the site's image"),
            ThreadPoolExecutor(max_workers=len(needed) + 1) as pool,
        ):
            builds = {image: pool.submit(build_standin, docker, image, source) for image in needed}
            if "python:3.11-slim" in builds:
                builds["python:3.11-slim"].result()
            site = pool.submit(build_site)
            for future in [*builds.values(), site]:
                future.result()
        used.update(dict.fromkeys(needed, "stand-in"))
    else:
        with stages.stage("build the site's image"):
            build_site()
    return ", ".join(f"{image} {how}" for image, how in used.items())


def import_base(docker: str, source: str) -> None:
    if shutil.which("debootstrap") is None and not Path("/usr/sbin/debootstrap").exists():
        raise CheckFailed("debootstrap is missing (apt-get install debootstrap)")
    with tempfile.TemporaryDirectory(prefix="clubcheck-rootfs-", dir="/var/tmp") as folder:
        rootfs = Path(folder) / "bookworm"
        run(
            ["debootstrap", "--variant=minbase", "bookworm", str(rootfs), debian_mirror()],
            timeout=600,
            what="debootstrap bookworm",
        )
        # Slim as debian:bookworm-slim: no package caches, lists, documentation or translations.
        for pattern in ("var/cache/apt/archives/*.deb", "var/lib/apt/lists/*", "usr/share/doc/*", "usr/share/man/*",
                        "usr/share/locale/*", "usr/share/info/*"):  # fmt: skip
            for path in rootfs.glob(pattern):
                shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
        shutil.copy(STANDINS / "base" / "dpkg-slim", rootfs / "etc" / "dpkg" / "dpkg.cfg.d" / "slim")
        shutil.copy(STANDINS / "base" / "apt-slim", rootfs / "etc" / "apt" / "apt.conf.d" / "90slim")
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        try:
            done = subprocess.run(
                [
                    docker,
                    "import",
                    "--change",
                    f"LABEL club.standin.source={source}",
                    "--change",
                    'CMD ["bash"]',
                    "-",
                    BASE_IMAGE,
                ],  # fmt: skip
                stdin=tar.stdout,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
        finally:
            tar.wait(timeout=60)
        if done.returncode != 0:
            raise CheckFailed(f"docker import of the bookworm base failed:\n{done.stderr[-2000:]}")


def build_standin(docker: str, image: str, source: str) -> None:
    folder = STANDINS / PUBLIC_IMAGES[image]
    with tempfile.TemporaryDirectory(prefix="clubcheck-standin-") as context:
        shutil.copytree(folder, context, dirs_exist_ok=True)
        # This machine's certificate authorities, for pip in builds FROM the Python stand-in only.
        shutil.copy(HOST_CA, Path(context) / "host-ca.crt")
        run(
            [docker, "build", "-q", "--build-arg", f"STANDIN_SOURCE={source}", "-t", image, context],
            timeout=900,
            what=f"building the stand-in for {image}",
            env={**os.environ, "DOCKER_BUILDKIT": "0"},
        )


# ---------------------------------------------------------------------------------------------------------
# The stack


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def token(n: int = 24) -> str:
    return secrets.token_hex(n)  # letters and digits: the role passwords go into URLs


@dataclass
class Stack:
    docker: str
    workdir: Path  # the check's own files (the proxy's root, the settings when .env is the operator's)
    env_file: Path
    settings: dict[str, str]
    wrote_env: bool
    https_port: int

    @property
    def origin(self) -> str:
        return f"https://localhost:{self.https_port}"

    def compose(self, *args: str, timeout: float, what: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        program = shutil.which("docker-compose") or "docker-compose"
        command = [program, "-p", PROJECT, "-f", str(ROOT / "docker-compose.yml"), "--env-file", str(self.env_file)]
        return run([*command, *args], timeout=timeout, what=what, **kwargs)

    def manage(self, service: str, *args: str, timeout: float = 120, stdin: str | None = None) -> str:
        return self.compose(
            "exec", "-T", service, "python", "manage.py", *args,
            timeout=timeout, what=f"manage.py {args[0]} in {service}", input=stdin, services=[service],
        ).stdout  # fmt: skip

    def containers(self, service: str) -> list[str]:
        done = self.compose("ps", "-q", service, timeout=60, what="docker-compose ps")
        return done.stdout.split()

    def health(self, container: str) -> str:
        done = run(
            [
                self.docker,
                "inspect",
                "-f",
                "{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}",
                container,
            ],  # fmt: skip
            timeout=30,
            what="docker inspect",
            check=False,
        )
        return done.stdout.strip()

    def wait_healthy(self, services: Sequence[str], timeout: float) -> None:
        def all_healthy() -> bool:
            for service in services:
                containers = self.containers(service)
                if not containers:
                    return False
                for container in containers:
                    status = self.health(container)
                    if status in ("exited", "dead"):
                        raise CheckFailed(f"{service} stopped ({container[:12]}: {status})", [service])
                    if status != "healthy":
                        return False
            return True

        wait_until(all_healthy, timeout=timeout, what=f"{', '.join(services)} healthy", services=services)

    def logs(self, services: Sequence[str], lines: int = 60) -> str:
        done = self.compose("logs", "--no-color", f"--tail={lines}", *services, timeout=60, what="logs", check=False)
        return done.stdout + done.stderr


def listeners(ports: set[int]) -> list[str]:
    """The host's listening sockets (TCP and UDP, IPv4 and IPv6) on these ports, as "proto address:port"."""
    found = []
    for proto in ("tcp", "tcp6", "udp", "udp6"):
        table = Path("/proc/net") / proto
        if not table.exists():
            continue
        for line in table.read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, port = local.split(":")
            if int(port, 16) in ports and state in ("0A", "07"):  # TCP LISTEN; UDP unconnected
                found.append(f"{proto} {address}:{int(port, 16)}")
    return found


def loopback_only(ports: set[int]) -> None:
    """The published ports listen on 127.0.0.1 alone: nothing of the check is reachable from the network."""
    loopback = ("0100007F:", "00000000000000000000000001000000:")
    found = listeners(ports)
    outside = [entry for entry in found if not entry.split()[1].startswith(loopback)]
    if outside or not found:
        raise CheckFailed(f"the proxy's ports should listen on 127.0.0.1 only; listening: {found}", ["proxy"])


def write_env(workdir: Path, https_port: int, http_port: int) -> tuple[Path, dict[str, str], bool]:
    """The throwaway settings: `.env` in the checkout when there is none (so the image check proves the build
    leaves it out), else a file of its own; either way removed at the end."""
    settings = {
        "SECRET_KEY": secrets.token_urlsafe(48),
        "POSTGRES_PASSWORD": token(),
        "CLUB_OWNER_PASSWORD": token(),
        "CLUB_APP_PASSWORD": token(),
        "METRICS_TOKEN": token(),
        "SITE_ADDRESS": "localhost",
        "ALLOWED_HOSTS": "localhost",
        "SITE_URL": f"https://localhost:{https_port}",
        "PUBLISH_ADDRESS": "127.0.0.1",
        "HTTP_PORT": str(http_port),
        "HTTPS_PORT": str(https_port),
        "IMAGE_TAG": IMAGE_TAG,
        # An edge network of its own, beside a stack of the operator's on the default one.
        "EDGE_SUBNET": "172.30.89.0/24",
        "PROXY_ADDRESS": "172.30.89.10",
    }
    text = ENV_MARK + "\n"
    text += "".join(f"{key}={value}\n" for key, value in settings.items())
    env_file = ROOT / ".env"
    # An earlier check stopped hard (SIGKILL) may have left its own; an operator's is never touched.
    wrote = not env_file.exists() or env_file.read_text(errors="replace").startswith(ENV_MARK)
    if not wrote:
        env_file = workdir / "check.env"
    env_file.write_text(text)
    env_file.chmod(0o600)
    return env_file, settings, wrote


# ---------------------------------------------------------------------------------------------------------
# The site, as a browser would use it: HTTPS through the proxy, websockets


class Member:
    """One member's HTTPS session through the proxy (requests, verifying against the proxy's root)."""

    def __init__(self, stack: Stack, ca_file: Path, username: str) -> None:
        import requests

        self.stack, self.username = stack, username
        self.http = requests.Session()
        self.http.verify = str(ca_file)
        self.http.trust_env = False  # else REQUESTS_CA_BUNDLE would replace the proxy's root

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.http.get(self.stack.origin + path, timeout=30, **kwargs)

    def post(self, path: str, data: dict[str, str], **kwargs: Any) -> Any:
        """A form post as the browser sends it: the CSRF cookie repeated in the form, the page's origin."""
        if "csrftoken" not in self.http.cookies:
            self.get("/login/")
        fields = {"csrfmiddlewaretoken": self.http.cookies["csrftoken"], **data}
        headers = {"Origin": self.stack.origin, "Referer": self.stack.origin + path}
        return self.http.post(self.stack.origin + path, data=fields, headers=headers, timeout=30, **kwargs)

    def log_in(self, password: str) -> None:
        response = self.post("/login/", {"username": self.username, "password": password}, allow_redirects=False)
        if response.status_code != 302 or "sessionid" not in self.http.cookies:
            raise CheckFailed(f"{self.username} could not log in over HTTPS ({response.status_code})", ["web", "proxy"])

    @property
    def session(self) -> str:
        return str(self.http.cookies["sessionid"])


@dataclass
class Frames:
    """What one table socket has heard: the newest public frame, this member's newest private frame, chat."""

    public: dict[str, Any] | None = None
    private: dict[str, Any] | None = None
    chat: list[str] = field(default_factory=list)
    finished: set[int] = field(default_factory=set)  # hands seen finished (a newer hand's deal says so too)

    def hand_over(self, hand: int) -> bool:
        return hand in self.finished or (self.public is not None and (self.public.get("hand") or 0) > hand)


def order(frame: dict[str, Any]) -> tuple[int, int, int]:
    return (frame.get("hand") or 0, frame.get("version") or 0, frame.get("at") or 0)


class TableSocket:
    """A member's websocket on the table, through the proxy (wss, the proxy's certificate verified)."""

    def __init__(self, member: Member, table_id: int, tls: ssl.SSLContext) -> None:
        self.member, self.table_id, self.tls = member, table_id, tls
        self.frames = Frames()
        self.ws: Any = None
        self.reader: asyncio.Task[None] | None = None

    async def open(self) -> None:
        from websockets.asyncio.client import connect

        origin = self.member.stack.origin
        self.ws = await connect(
            f"wss://localhost:{self.member.stack.https_port}/ws/tables/{self.table_id}/",
            ssl=self.tls,
            origin=origin,  # type: ignore[arg-type]
            additional_headers={"Cookie": f"sessionid={self.member.session}"},
            open_timeout=20,
        )
        self.reader = asyncio.create_task(self.read())
        # The server's full render on connect: the socket is in the table's groups by then.
        await wait_for(lambda: self.frames.public is not None, 20, "a socket's first frame", ["web", "proxy"])

    async def read(self) -> None:
        async for raw in self.ws:
            frame = json.loads(raw)
            kind = frame.get("type")
            if kind == "table.public" and frame.get("finished") and frame.get("hand"):
                self.frames.finished.add(frame["hand"])
            if kind == "table.public" and (self.frames.public is None or order(frame) >= order(self.frames.public)):
                self.frames.public = frame
            elif kind == "table.private" and (
                self.frames.private is None or order(frame) >= order(self.frames.private)
            ):
                self.frames.private = frame
            elif kind == "chat.message":
                self.frames.chat.append(frame["message"]["text"])

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()
            await asyncio.gather(self.reader, return_exceptions=True)

    def my_actions(self, hand: int) -> list[tuple[str, str]]:
        """(kind, value) of the action buttons in this member's own part of `hand`, when it is their turn."""
        private = self.frames.private
        if private is None or private.get("hand") != hand or not private.get("your_turn"):
            return []
        html = private.get("parts", {}).get("own_hand", "")
        found = re.findall(r'name="action" value="([^"]+)" class="act act-([\w-]+)"', html)
        return [(kind, value) for value, kind in found]


async def wait_for(condition: Callable[[], bool], timeout: float, what: str, services: Sequence[str]) -> float:
    began = time.monotonic()
    while not condition():
        if time.monotonic() - began > timeout:
            raise CheckFailed(f"{what}: not within {timeout:.0f}s", services)
        await asyncio.sleep(0.1)
    return time.monotonic() - began


# ---------------------------------------------------------------------------------------------------------
# The check


SETUP_TABLE = """
import engine
from accounts.models import Club, Membership, User
from games import services

club = Club.objects.get(name="Check club")
olive = User.objects.get(username="olive")
ann = User.objects.create_user("ann", password={password!r}, display_name="Ann", email="ann@example.org")
Membership.objects.create(club=club, user=ann)
rules = engine.PiranhaRules(nobody_in="split", turn_seconds={clock})
rule_set = services.rule_set_create(
    club=club, user=olive, name="Quick check", max_seats=6, spectators_allowed=True, rules=rules
)
version = rule_set.versions.get()
for name in ("Check table", "Restarts table"):
    table = services.table_create(club=club, user=olive, name=name, rule_version_id=version.pk)
    services.seat_take(table_id=table.pk, user=olive, number=1, version_id=version.pk)
    services.seat_take(table_id=table.pk, user=ann, number=2, version_id=version.pk)
    print("TABLE", table.pk)
"""

READ_METRIC = """
import re, urllib.request
text = urllib.request.urlopen("http://127.0.0.1:8000/metrics", timeout=10).read().decode()
for line in text.splitlines():
    if line.startswith("club_timeouts_applied_total{"):
        print(line)
"""


class Check:
    def __init__(self, stack: Stack, stages: Stages) -> None:
        self.stack, self.stages = stack, stages
        self.ca_file = stack.workdir / "proxy-root.crt"
        self.members: dict[str, Member] = {}
        self.passwords: dict[str, str] = {}
        self.tables: list[int] = []  # one for a hand and the chat, one for the restarts
        self.tls = ssl.create_default_context()

    # -- stages ------------------------------------------------------------------------------------------

    def trust_the_proxy(self) -> None:
        """Caddy's internal root, copied out of the proxy container (docker cp), is the one authority trusted."""
        container = self.stack.containers("proxy")[0]

        def copied() -> bool:
            done = run(
                [self.stack.docker, "cp", f"{container}:/data/caddy/pki/authorities/local/root.crt", str(self.ca_file)],
                timeout=30,
                what="docker cp the proxy's root",
                check=False,
            )
            return done.returncode == 0

        wait_until(copied, timeout=60, what="the proxy's internal root certificate", services=["proxy"])
        self.tls = ssl.create_default_context(cafile=str(self.ca_file))

        def answers() -> bool:
            import requests

            try:
                return (
                    requests.get(self.stack.origin + "/healthz", verify=str(self.ca_file), timeout=5).status_code == 200
                )
            except requests.RequestException:
                return False

        wait_until(answers, timeout=60, what="https://localhost/healthz through the proxy", services=["proxy", "web"])

    def first_organiser(self) -> None:
        """create_club's one-time link sets olive's password over HTTPS; olive logs in; the link then fails."""
        output = self.stack.manage(
            "web", "create_club", "--club", "Check club", "--organiser", "olive", "--email", "olive@example.org"
        )
        found = re.search(re.escape(self.stack.origin) + r"(/password/reset/[^/\s]+/[^/\s]+/)", output)
        if not found:
            raise CheckFailed(f"create_club printed no link on {self.stack.origin}:\n{output}")
        olive = self.members["olive"] = Member(self.stack, self.ca_file, "olive")
        page = olive.get(found.group(1))
        form_path = page.url.removeprefix(self.stack.origin)
        if page.status_code != 200 or "new_password1" not in page.text:
            raise CheckFailed(f"the one-time link did not offer a new password ({page.status_code}, {page.url})")
        password = self.passwords["olive"] = secrets.token_urlsafe(12)
        done = olive.post(form_path, {"new_password1": password, "new_password2": password}, allow_redirects=False)
        if done.status_code != 302:
            raise CheckFailed(f"setting the organiser's password answered {done.status_code}", ["web"])
        olive.log_in(password)
        again = Member(self.stack, self.ca_file, "olive").get(found.group(1))
        if "new_password1" in again.text:
            raise CheckFailed("the one-time link worked twice")
        # Plain HTTP only redirects to HTTPS.
        import requests

        plain = requests.get(
            f"http://localhost:{self.stack.settings['HTTP_PORT']}/login/", allow_redirects=False, timeout=10
        )
        if plain.status_code not in (301, 302, 308) or not plain.headers.get("Location", "").startswith("https://"):
            raise CheckFailed(f"plain HTTP answered {plain.status_code} without a redirect to HTTPS", ["proxy"])

    def set_up_table(self) -> None:
        self.passwords["ann"] = secrets.token_urlsafe(12)
        script = SETUP_TABLE.format(password=self.passwords["ann"], clock=CLOCK_SECONDS)
        output = self.stack.manage("web", "shell", stdin=script)
        self.tables = [int(found) for found in re.findall(r"TABLE (\d+)", output)]
        if len(self.tables) != 2:
            raise CheckFailed(f"setting up the tables printed no two tables:\n{output}")
        self.members["ann"] = Member(self.stack, self.ca_file, "ann")
        self.members["ann"].log_in(self.passwords["ann"])

    def start_hand(self, table_id: int) -> None:
        """The table page's Start button, as olive."""
        response = self.members["olive"].post(f"/tables/{table_id}/start/", {}, allow_redirects=False)
        if response.status_code != 302:
            raise CheckFailed(f"starting a hand answered {response.status_code}", ["web"])

    async def open_sockets(self, table_id: int, names: Sequence[str]) -> list[TableSocket]:
        sockets = [TableSocket(self.members[name], table_id, self.tls) for name in names]
        for sock in sockets:
            await sock.open()
        return sockets

    async def play_hand(self, table_id: int, *, restart_after_first_action: bool) -> dict[str, float]:
        """The table's first hand over the sockets: olive acts on her first turn; ann never acts, so her 10 s
        clock runs out and the worker (or, when a restart lost the alarm, the beat sweep) applies it, and the
        hand finishes."""
        sockets = await self.open_sockets(table_id, ["olive", "ann"])
        olive = sockets[0]
        times: dict[str, float] = {}
        try:
            await asyncio.to_thread(self.start_hand, table_id)
            await wait_for(
                lambda: bool(olive.frames.public and olive.frames.public.get("hand")),
                20, "the first hand's frame on the socket", ["web"],
            )  # fmt: skip
            hand = (olive.frames.public or {})["hand"]
            await wait_for(lambda: bool(olive.my_actions(hand)), 20, "olive's turn on her socket", ["web"])
            choices = olive.my_actions(hand)
            kind, value = next((a for a in choices if a[0] not in ("out", "fold")), choices[0])
            version = (olive.frames.public or {})["version"]
            await olive.send({"type": "action", "hand": hand, "version": version, "action": value})
            acted = time.monotonic()
            await wait_for(
                lambda: order(olive.frames.public or {}) > (hand, version, 0), 20, f"olive's {kind!r} applied", ["web"]
            )
            if restart_after_first_action:
                await asyncio.to_thread(self.restart_redis_and_postgres)
                times["restarts"] = time.monotonic() - acted
                for sock in sockets:
                    await sock.close()
                sockets = await self.open_sockets(table_id, ["olive", "ann"])  # as the page's script reconnects
                olive = sockets[0]
            timeout = CLOCK_SECONDS + 90 if restart_after_first_action else CLOCK_SECONDS + 30
            await wait_for(
                lambda: olive.frames.hand_over(hand), timeout, "the hand finished by ann's clock", ["worker", "beat", "web"],
            )  # fmt: skip
            times["finished after the action"] = time.monotonic() - acted
        finally:
            for sock in sockets:
                await sock.close()
        return times

    def restart_redis_and_postgres(self) -> None:
        self.stack.compose("restart", "redis", timeout=60, what="restarting redis", services=["redis"])
        self.stack.compose("restart", "postgres", timeout=90, what="restarting postgres", services=["postgres"])
        self.stack.wait_healthy(["redis", "postgres"], timeout=90)

    def timeouts_applied(self) -> dict[str, float]:
        output = self.stack.compose(
            "exec", "-T", "web", "python", "-c", READ_METRIC, timeout=60, what="reading /metrics inside web",
            services=["web"],
        ).stdout  # fmt: skip
        found = re.findall(r'by="(\w+)"\} ([\d.e+]+)', output)
        return {by: float(value) for by, value in found}

    def look_inside_the_image(self) -> tuple[int, str]:
        image = f"home-club:{IMAGE_TAG}"
        size = int(
            run([self.stack.docker, "image", "inspect", "-f", "{{.Size}}", image], timeout=30, what="size").stdout
        )
        values = [self.stack.settings[k] for k in ("SECRET_KEY", "POSTGRES_PASSWORD", "CLUB_OWNER_PASSWORD",
                                                   "CLUB_APP_PASSWORD", "METRICS_TOKEN")]  # fmt: skip
        tools = " ".join(TOOLS)
        script = (
            'set -eu; for p in /app/.env /app/.git /app/.venv /app/.data /app/tests; do [ ! -e "$p" ] || { echo "$p"; exit 1; }; done; '
            f'if grep -rlsF {" ".join(f"-e {v}" for v in values)} /app /home /etc /root /usr/local /tmp; then exit 2; fi; '
            f"python -c 'import importlib.util,sys; found=[t for t in sys.argv[1:] if importlib.util.find_spec(t)]; print(*found); sys.exit(3 if found else 0)' {tools}"
        )  # fmt: skip
        done = run(
            [self.stack.docker, "run", "--rm", "--user", "0", "--entrypoint", "sh", image, "-c", script],
            timeout=120, what="looking inside the image", check=False,
        )  # fmt: skip
        if done.returncode == 1:
            raise CheckFailed(f"the image holds {done.stdout.strip()}")
        if done.returncode == 2:
            raise CheckFailed(f"the image holds the check's secrets, in: {done.stdout.strip()}")
        if done.returncode == 3:
            raise CheckFailed(f"the image holds test or development tools: {done.stdout.strip()}")
        if done.returncode != 0:
            raise CheckFailed(f"looking inside the image failed:\n{done.stdout}{done.stderr}")
        user = run([self.stack.docker, "run", "--rm", "--entrypoint", "id", image, "-u"], timeout=60, what="id").stdout
        if user.strip() in ("", "0"):
            raise CheckFailed("the image runs as root")
        if size >= IMAGE_LIMIT:
            raise CheckFailed(f"the image is {size / 1e6:.0f} MB (at most {IMAGE_LIMIT / 1e6:.0f} MB)")
        return size, user.strip()

    def backup_and_restore(self) -> None:
        """`manage.py backup` in the backup service, restored into a fresh database as docs/operations.md says;
        the restore checks the manifest's counts and the books, and the two databases hold the same hands."""
        output = self.stack.manage("backup", "backup", timeout=300)
        found = re.search(r"(/backups/club-\S+?\.dump)", output)
        if not found:
            raise CheckFailed(f"the backup named no file:\n{output}", ["backup"])
        self.stack.compose(
            "exec", "-T", "postgres", "createdb", "-U", "postgres", "-O", "club_owner", "club_restored",
            timeout=60, what="createdb club_restored", services=["postgres"],
        )  # fmt: skip
        url = f"postgresql://club_app:{self.stack.settings['CLUB_APP_PASSWORD']}@postgres:5432/club_restored"
        self.stack.compose(
            "exec", "-T", "-e", f"DATABASE_URL={url}", "backup", "python", "manage.py", "restore", found.group(1),
            timeout=300, what="manage.py restore into club_restored", services=["backup", "postgres"],
        )  # fmt: skip
        counts = []
        for database in ("club", "club_restored"):
            query = "SELECT (SELECT count(*) FROM games_hand) || ' ' || (SELECT count(*) FROM accounts_user)"
            done = self.stack.compose(
                "exec", "-T", "postgres", "psql", "-U", "postgres", "-d", database, "-Atc", query,
                timeout=60, what=f"counting in {database}", services=["postgres"],
            )  # fmt: skip
            counts.append(done.stdout.strip())
        if counts[0] != counts[1] or counts[0].startswith("0 "):
            raise CheckFailed(f"the restored database differs: hands and accounts {counts[0]} against {counts[1]}")

    async def chat_across_two_replicas(self) -> int:
        """web scaled to two: sockets through the proxy until both replicas hold some (uvicorn's log says which
        took each), then a chat line from one socket reaches every socket."""
        self.stack.compose(
            "up", "-d", "--no-build", "--no-deps", "--no-recreate", "--scale", "web=2", "web",
            timeout=180, what="scaling web to two",
            services=["web"],
        )  # fmt: skip
        self.stack.wait_healthy(["web"], timeout=120)
        webs = self.stack.containers("web")
        if len(webs) != 2:
            raise CheckFailed(f"{len(webs)} web containers after scaling to two", ["web"])
        table_id = self.tables[0]
        accepted = re.compile(r"WebSocket /ws/tables/" + str(table_id) + r"/.{0,40}accepted")

        def sockets_accepted() -> dict[str, int]:
            counts = {}
            for container in webs:
                done = run([self.stack.docker, "logs", container], timeout=30, what="docker logs", check=False)
                counts[container] = len(accepted.findall(done.stdout + done.stderr))
            return counts

        async def open_and_locate(name: str) -> tuple[TableSocket, str | None]:
            """A socket through the proxy, and the replica whose log says it accepted it."""
            before = await asyncio.to_thread(sockets_accepted)
            sock = TableSocket(self.members[name], table_id, self.tls)
            await sock.open()
            after = await asyncio.to_thread(sockets_accepted)
            took = [container for container in webs if after[container] > before[container]]
            return sock, (took[0] if len(took) == 1 else None)

        kept: dict[str, TableSocket] = {}  # one socket on each replica
        probes = 0
        try:
            began = time.monotonic()
            # Caddy looks the replicas up every 10 s; least_conn then sends a new socket to the emptier one. A
            # socket that lands where one is kept is closed again, so no member nears the per-member cap.
            while len(kept) < 2:
                if time.monotonic() - began > 90:
                    raise CheckFailed(
                        f"{probes} sockets through the proxy in 90 s: none reached the second web replica",
                        ["proxy", "web"],
                    )
                sock, container = await open_and_locate(("olive", "ann")[len(kept)])
                probes += 1
                if container is not None and container not in kept:
                    kept[container] = sock
                else:
                    await sock.close()
                    await asyncio.sleep(1)
            sockets = list(kept.values())
            line = f"two replicas {secrets.token_hex(4)}"
            await sockets[-1].send({"type": "chat", "text": line})
            await wait_for(
                lambda: all(line in s.frames.chat for s in sockets), 20, "the chat line on both sockets", ["web"]
            )
            return probes
        finally:
            for sock in kept.values():
                await sock.close()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def deploy_check(args: Sequence[str]) -> int:
    keep = "--keep" in args  # leave the stack up to look at it (then: docker-compose -p clubcheck down -v)
    signal.signal(signal.SIGTERM, _interrupt)  # a CI timeout's TERM tears the stack down as Ctrl-C does
    stages = Stages()
    stack: Stack | None = None
    status = 1
    try:
        with stages.stage("container engine ready"):
            ensure_engine()
        docker = docker_program()
        https_port, http_port = free_port(), free_port()
        workdir = Path(tempfile.mkdtemp(prefix="clubcheck-"))
        # Before the build: the image check then proves that the build leaves the checkout's .env out.
        env_file, settings, wrote = write_env(workdir, https_port, http_port)
        stack = Stack(docker, workdir, env_file, settings, wrote, https_port)
        # Anything left by an interrupted check goes first.
        stack.compose(
            "down", "-v", "--remove-orphans", timeout=180, what="removing an earlier check's stack", check=False
        )

        def build_site() -> None:
            run(
                [docker, "build", "-q", "-t", f"home-club:{IMAGE_TAG}", str(ROOT)],
                timeout=900,
                what="building the site's image",
                env={**os.environ, "DOCKER_BUILDKIT": "0"},
            )

        used = ensure_images(docker, stages, build_site)
        say(f"images: {used}")
        check = Check(stack, stages)
        with stages.stage("image: no secret, .git or test tool; size"):
            size, user = check.look_inside_the_image()
            say(f"image home-club:{IMAGE_TAG}: {size / 1e6:.0f} MB, runs as uid {user}")
        with stages.stage("stack up, web healthy behind the proxy"):
            stack.compose("up", "-d", "--no-build", timeout=600, what="docker-compose up", services=list(SERVICES))
            stack.wait_healthy(["postgres", "redis", "web"], timeout=240)
            check.trust_the_proxy()
            loopback_only({https_port, http_port})
        with stages.stage("first organiser by create_club's link; log in"):
            check.first_organiser()
        with stages.stage("a member and two tables (manage.py shell)"):
            check.set_up_table()
        with stages.stage("a hand over the websockets; the worker's clock"):
            before = check.timeouts_applied()
            times = asyncio.run(check.play_hand(check.tables[0], restart_after_first_action=False))
            after = check.timeouts_applied()
            by_task = after.get("task", 0) - before.get("task", 0)
            if by_task < 1:
                raise CheckFailed(f"no timeout applied by the worker's own task ({before} -> {after})", ["worker"])
            say(
                f"hand finished {times['finished after the action']:.1f}s after the action; worker applied {by_task:.0f}"
            )
        with stages.stage("backup, restore into a fresh database"):
            check.backup_and_restore()
        with stages.stage("every service healthy"):
            stack.wait_healthy([s for s in SERVICES if s != "migrate"], timeout=180)
            migrated = stack.compose("ps", "migrate", timeout=60, what="docker-compose ps migrate").stdout
            if "Exit 0" not in migrated:
                raise CheckFailed(f"migrate did not end with 0:\n{migrated}", ["migrate"])
        with stages.stage("web scaled to two: chat reaches both"):
            probes = asyncio.run(check.chat_across_two_replicas())
            say(f"a chat line reached sockets on both replicas ({probes} sockets opened to find them)")
        with stages.stage("Redis and PostgreSQL restarted mid-hand"):
            before = check.timeouts_applied()
            times = asyncio.run(check.play_hand(check.tables[1], restart_after_first_action=True))
            after = check.timeouts_applied()
            say(
                f"restarts took {times['restarts']:.1f}s; the hand finished {times['finished after the action']:.1f}s "
                f"after the action (timeouts by the worker {after.get('task', 0) - before.get('task', 0):.0f}, "
                f"by the sweep {after.get('sweep', 0) - before.get('sweep', 0):.0f})"
            )
        status = 0
    except CheckFailed as failure:
        say(f"DEPLOY CHECK FAILED: {failure}")
        if stack is not None:
            try:
                say("docker-compose ps:\n" + stack.compose("ps", timeout=60, what="ps", check=False).stdout)
                services = failure.services or list(SERVICES)
                say(f"logs of {', '.join(services)}:\n" + stack.logs(services))
            except CheckFailed as also:
                say(f"(and the logs could not be read: {also})")
    except KeyboardInterrupt:
        say("interrupted")
    except Exception:  # a fault of the check itself, or an answer it did not expect: the stack's logs too
        say("DEPLOY CHECK FAILED:\n" + traceback.format_exc())
        if stack is not None:
            say("logs:\n" + stack.logs(list(SERVICES)))
    finally:
        if stack is not None and not keep:
            with stages.stage("tear down (containers, volumes, networks)"):
                stack.compose(
                    "down",
                    "-v",
                    "--remove-orphans",
                    "--timeout",
                    "10",
                    timeout=300,
                    what="docker-compose down",
                    check=False,
                )
                if stack.wrote_env:
                    stack.env_file.unlink(missing_ok=True)
                shutil.rmtree(stack.workdir, ignore_errors=True)
        say("stage times:\n" + stages.summary())
        say("deploy check passed" if status == 0 else "deploy check FAILED")
    return status


SERVICES = ("postgres", "redis", "migrate", "web", "worker", "push", "beat", "backup", "proxy")


if __name__ == "__main__":
    sys.exit(deploy_check(sys.argv[1:]))
