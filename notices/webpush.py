"""Web Push to a member's browsers: RFC 8030 delivery with VAPID (RFC 8292) and the payload encrypted per
RFC 8291 (aes128gcm), through pywebpush. Sent from the push task on a queue of its own (``push_enqueue``;
notices/tasks.py ``push_notice``), never from a request, the alarm or a sweep: a push service may take
seconds to answer, or never, and no clock may wait for it.

A payload says no more than an email would: a title such as "Your turn at Main", a line of text and a
link. Never a card, a bet or a sealed decision. Nothing goes while the member is present
(games/live/presence.py). A subscription the push service reports gone (404 or 410) is deleted.

Keys: ``VAPID_PRIVATE_KEY`` (base64url of the 32-byte secret; ``manage.py vapid_keys`` makes one), else a
key kept in ``VAPID_KEY_FILE`` and generated there on first use (development and tests). Without either,
push is off and the profile page says so.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import os
import socket
import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from py_vapid import Vapid
from pywebpush import WebPushException, webpush
from requests.adapters import HTTPAdapter
from requests.models import PreparedRequest
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError
from urllib3.util.connection import create_connection

from games.live.presence import is_present
from kernel.errors import DomainError
from kernel.outbound import OutboundRefused, outbound_addresses
from kernel.task_ref import TaskRef
from notices.models import PushChoice, PushSubscription

log = logging.getLogger(__name__)

KINDS = ("turn", "reminder", "digest")
PUSH_NOTICE = TaskRef("games.tasks.push_notice")  # notices/tasks.py, which imports this module


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# ---- keys ----------------------------------------------------------------------------------------


def vapid_private_key_generate() -> str:
    """A new VAPID private key: base64url of its 32-byte P-256 secret."""
    key = ec.generate_private_key(ec.SECP256R1())
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


def _key_from_file(path: Path) -> str:
    """The key kept in ``path``, made there first if missing (two processes at once agree on one)."""
    with contextlib.suppress(FileNotFoundError):
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = path.with_name(f".{path.name}.{os.getpid()}")
    fresh.write_text(vapid_private_key_generate() + "\n")
    os.chmod(fresh, 0o600)
    with contextlib.suppress(FileExistsError):
        os.link(fresh, path)  # atomic: the first process to get here wins
    fresh.unlink()
    return path.read_text().strip()


def vapid_private_key() -> str | None:
    """The site's VAPID private key (base64url), or None when push is not set up."""
    if settings.VAPID_PRIVATE_KEY:
        return str(settings.VAPID_PRIVATE_KEY).strip()
    if settings.VAPID_KEY_FILE:
        return _key_from_file(Path(settings.VAPID_KEY_FILE))
    return None


def vapid_public_key() -> str | None:
    """The public key browsers subscribe with (``applicationServerKey``): base64url of the uncompressed point."""
    private = vapid_private_key()
    if private is None:
        return None
    public = Vapid.from_string(private).public_key
    return b64url(public.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))


# ---- subscriptions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PushTarget:
    """A checked push endpoint: its URL and the one address the push goes to (the name is not looked up again)."""

    url: str
    address: str


def push_target(endpoint: str) -> PushTarget:
    """Where a push to ``endpoint`` goes, or DomainError: https to port 443 of a name (or address) whose every
    address is public (kernel/outbound.py, the site's one check of outbound addresses), at most
    ``PushSubscription.ENDPOINT_MAX`` characters. Where ``PUSH_ENDPOINT_ALLOW_LOOPBACK`` is set (development and tests only, never production) a loopback
    address is allowed too, over plain http and on any port, for a local receiver. The name is resolved
    here, once: the push is sent to the address checked here (DNS rebinding cannot move it)."""
    if not isinstance(endpoint, str) or not endpoint or len(endpoint) > PushSubscription.ENDPOINT_MAX:
        raise DomainError("That push address is missing or too long.")
    try:
        parts = urlsplit(endpoint)
        host, port = parts.hostname or "", parts.port
    except ValueError:
        raise DomainError("That push address is not a valid web address.") from None
    if parts.username or parts.password or not host or any(ch.isspace() for ch in endpoint):
        raise DomainError("That push address is not a valid web address.")
    try:
        addresses = outbound_addresses(host, port or 443, allow_loopback=settings.PUSH_ENDPOINT_ALLOW_LOOPBACK)
    except OutboundRefused:
        raise DomainError("That push address is not on the public internet.") from None
    if all(a.is_loopback for a in addresses):  # only where allowed: a local receiver
        if parts.scheme not in ("http", "https"):
            raise DomainError("A push address must start with https://.")
        return PushTarget(url=endpoint, address=str(addresses[0]))
    if parts.scheme != "https":
        raise DomainError("A push address must start with https://.")
    if port not in (None, 443):
        raise DomainError("A push address must use the standard https port.")
    return PushTarget(url=endpoint, address=str(addresses[0]))


def push_endpoint_check(endpoint: str) -> str:
    """``endpoint`` if a push may be sent there (``push_target``), else DomainError."""
    return push_target(endpoint).url


def push_keys_check(*, p256dh: str, auth: str) -> None:
    """The browser's keys as RFC 8291 needs them: an uncompressed P-256 point and a 16-byte secret."""
    try:
        point = b64url_decode(p256dh) if isinstance(p256dh, str) and len(p256dh) <= 100 else b""
        secret = b64url_decode(auth) if isinstance(auth, str) and len(auth) <= 40 else b""
        ok = len(point) == 65 and point[0] == 4 and len(secret) == 16
        if ok:
            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        ok = False
    if not ok:
        raise DomainError("This browser sent push keys the site cannot use.")


# ---- sending -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PushMessage:
    title: str
    body: str
    url: str
    tag: str

    def payload(self) -> str:
        return json.dumps(
            {"title": self.title, "body": self.body, "url": self.url, "tag": self.tag}, separators=(",", ":")
        )


def push_wanted(*, user_id: int, kind: str) -> bool:
    """Whether the member chose push for ``kind`` and has a browser subscribed."""
    if kind not in KINDS or not PushSubscription.objects.filter(user_id=user_id).exists():
        return False
    choice = PushChoice.objects.filter(user_id=user_id).first() or PushChoice(user_id=user_id)
    return bool(getattr(choice, kind))


def push_send(*, user_id: int, kind: str, message: PushMessage, club_id: int | None = None) -> int:
    """Push ``message`` to each browser of the member who chose push for ``kind``; how many took it.
    Nothing while the member is present at club ``club_id`` (None: at any club), or when push is not set
    up. Runs in the push task only (``push_enqueue``): it waits up to ``PUSH_DEADLINE_SECONDS`` on push
    services that do not answer, which no clock may ever wait for."""
    if not push_wanted(user_id=user_id, kind=kind) or is_present(user_id=user_id, club_id=club_id):
        return 0
    return push_deliver(user_id=user_id, kind=kind, message=message)


def push_enqueue(*, user_id: int, kind: str, message: PushMessage, club_id: int | None = None) -> None:
    """Hand ``message`` to the push task on its own queue (``PUSH_QUEUE``, read by the push worker), which
    checks the member's choice and presence again and sends it (``push_send``). A notice still queued after
    ``PUSH_QUEUED_MAX_SECONDS`` is dropped: it would come too late to help."""
    PUSH_NOTICE.apply_async(
        kwargs={"user_id": user_id, "kind": kind, "club_id": club_id, **asdict(message)},
        queue=settings.PUSH_QUEUE,
        expires=settings.PUSH_QUEUED_MAX_SECONDS,
    )


class _Pinning:
    """The checked address of one push, and the sockets opened to it: all shut by ``abort`` (its deadline)."""

    def __init__(self, address: str) -> None:
        self.address = address
        self._sockets: list[socket.socket] = []
        self._aborted = False
        self._lock = threading.Lock()

    def opened(self, sock: socket.socket) -> socket.socket:
        with self._lock:
            self._sockets.append(sock)
            if self._aborted:
                _shut(sock)
        return sock

    def abort(self) -> None:
        with self._lock:
            self._aborted = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)  # wakes a thread blocked reading it


class _PinnedConnection(HTTPConnection):
    """Connects to the pinned address, not to what the name resolves to now; the name stays the Host header
    (and, over https, the TLS server name and the name the certificate must match)."""

    def __init__(self, *args: Any, pinning: _Pinning, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pinning = pinning

    def _new_conn(self) -> socket.socket:
        # Not through ``self.host``: urllib3 uses it as the TLS server name and the name checked on the
        # certificate as well, which must stay the push service's name.
        try:
            sock = create_connection(
                (self.pinning.address, self.port),
                self.timeout,
                source_address=self.source_address,
                socket_options=self.socket_options,
            )
        except TimeoutError as exc:
            raise ConnectTimeoutError(self, f"Connection to {self.host} timed out") from exc
        except OSError as exc:
            raise NewConnectionError(self, f"Failed to establish a new connection: {exc}") from exc
        return self.pinning.opened(sock)


class _PinnedHTTPSConnection(_PinnedConnection, HTTPSConnection):
    pass


class _PinnedAdapter(HTTPAdapter):
    """A requests transport that sends each request of its session over a new connection to the pinned
    address, with a connect timeout of ``PUSH_CONNECT_TIMEOUT_SECONDS``; environment proxies are not used."""

    def __init__(self, pinning: _Pinning) -> None:
        super().__init__(max_retries=0)
        self.pinning = pinning

    def get_connection_with_tls_context(
        self, request: PreparedRequest, verify: Any, proxies: Any = None, cert: Any = None
    ) -> HTTPConnectionPool:
        host_params, pool_kwargs = self.build_connection_pool_key_attributes(request, verify, cert)
        if host_params["scheme"] == "https":
            pool: HTTPConnectionPool = HTTPSConnectionPool(
                host_params["host"], host_params["port"], maxsize=1, pinning=self.pinning, **pool_kwargs
            )
            pool.ConnectionCls = _PinnedHTTPSConnection
        else:
            pool = HTTPConnectionPool(host_params["host"], host_params["port"], maxsize=1, pinning=self.pinning)
            pool.ConnectionCls = _PinnedConnection
        return pool

    def send(self, request: PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs["timeout"] = (settings.PUSH_CONNECT_TIMEOUT_SECONDS, settings.PUSH_DEADLINE_SECONDS)
        return super().send(request, *args, **kwargs)


@dataclass
class _Send:
    """One push to one subscription, run in a thread of its own: its status (None: no answer)."""

    pk: int
    endpoint: str
    keys: dict[str, str]
    pinning: _Pinning | None = None

    def run(self, *, vapid: Vapid, kind: str, message: PushMessage) -> int | None:
        target = push_target(self.endpoint)  # resolved once, here: the push goes to the address checked
        self.pinning = pinning = _Pinning(target.address)
        session = requests.Session()
        session.trust_env = False  # straight to the checked address, through no proxy named in the environment
        session.max_redirects = 0  # a push service answers, it does not send us elsewhere (nor inside our network)
        adapter = _PinnedAdapter(pinning)
        session.mount("https://", adapter)
        session.mount("http://", adapter)
        try:
            response = webpush(
                {"endpoint": target.url, "keys": self.keys},
                data=message.payload(),
                vapid_private_key=vapid,
                vapid_claims={"sub": settings.VAPID_SUBJECT},
                content_encoding="aes128gcm",
                ttl=settings.PUSH_TTL_SECONDS,
                headers={"Urgency": "high" if kind != "digest" else "normal", "Topic": message.tag[:32]},
                requests_session=session,
            )
        except WebPushException as exc:
            return getattr(exc.response, "status_code", None)
        finally:
            session.close()
        return int(getattr(response, "status_code", 201))

    def abort(self) -> None:
        if self.pinning is not None:
            self.pinning.abort()


def push_deliver(*, user_id: int, kind: str, message: PushMessage) -> int:
    """Push ``message`` to each browser of the member, for a caller that has already checked that they
    chose push for ``kind`` and are not present (``push_send`` checks both); how many took it.

    All browsers at once, each on its own connection, and the whole notice within
    ``PUSH_DEADLINE_SECONDS``: then every connection still open is shut. A subscription the push service
    reports gone (404, 410) is deleted; another failure (a refused address, no answer) is logged and
    skipped."""
    private = vapid_private_key()
    sends = [
        _Send(pk=pk, endpoint=endpoint, keys={"p256dh": p256dh, "auth": auth})
        for pk, endpoint, p256dh, auth in PushSubscription.objects.filter(user_id=user_id)
        .order_by("pk")
        .values_list("pk", "endpoint", "p256dh", "auth")
    ]
    if private is None or not sends:
        return 0
    vapid = Vapid.from_string(private)
    pool = ThreadPoolExecutor(max_workers=len(sends), thread_name_prefix="push")
    futures = {pool.submit(send.run, vapid=vapid, kind=kind, message=message): send for send in sends}
    done, late = wait(futures, timeout=settings.PUSH_DEADLINE_SECONDS)
    for future in late:
        futures[future].abort()
        log.warning(
            "Push to subscription %s failed: no answer within %ss", futures[future].pk, settings.PUSH_DEADLINE_SECONDS
        )
    pool.shutdown(wait=False, cancel_futures=True)  # an aborted send ends at once; a name lookup on its own
    return sum(_outcome(futures[future], future) for future in done)


def _outcome(send: _Send, future: Future[int | None]) -> bool:
    """Whether the push service took it; a subscription it reports gone is deleted."""
    try:
        status = future.result()
    except DomainError:
        log.warning("Push subscription %s skipped: its address is no longer allowed", send.pk)
        return False
    except Exception:  # noqa: BLE001 - one unreachable push service must not stop the others
        log.warning("Push to subscription %s failed", send.pk, exc_info=True)
        return False
    if status in (404, 410):
        PushSubscription.objects.filter(pk=send.pk).delete()
        log.info("Push subscription %s removed: the push service says it is gone (%s)", send.pk, status)
        return False
    if status is None or not 200 <= status < 300:
        log.warning("Push to subscription %s failed (%s)", send.pk, status)
        return False
    return True
