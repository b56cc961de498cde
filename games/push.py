"""Web Push to a member's browsers: RFC 8030 delivery with VAPID (RFC 8292) and the payload encrypted per
RFC 8291 (aes128gcm), through pywebpush. Called from the Celery tasks only (games/services/notices.py), never
from a request.

A payload says no more than an email would: a title such as "Your turn at Main", a line of text and a
link. Never a card, a bet or a sealed decision. Nothing goes while the member is present
(games/presence.py). A subscription the push service reports gone (404 or 410) is deleted.

Keys: ``VAPID_PRIVATE_KEY`` (base64url of the 32-byte secret; ``manage.py vapid_keys`` makes one), else a
key kept in ``VAPID_KEY_FILE`` and generated there on first use (development and tests). Without either,
push is off and the profile page says so.
"""

from __future__ import annotations

import base64
import contextlib
import ipaddress
import json
import logging
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from config.errors import DomainError
from games.models import PushChoice, PushSubscription
from games.presence import is_present

log = logging.getLogger(__name__)

KINDS = ("turn", "reminder", "digest")


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

def _refused_address(host: str) -> bool:
    """Whether ``host`` is, or resolves to, an address the site must not post to (loopback, private,
    link-local, reserved), unless loopback is allowed (development and tests)."""
    try:
        addresses = {ipaddress.ip_address(host)}
    except ValueError:
        try:
            addresses = {ipaddress.ip_address(str(info[4][0]).split("%")[0])
                         for info in socket.getaddrinfo(host, 443, proto=socket.IPPROTO_TCP)}
        except (OSError, UnicodeError, ValueError):
            return True
    for address in addresses:
        if address.is_loopback and settings.PUSH_ENDPOINT_ALLOW_LOOPBACK:
            continue
        if (address.is_private or address.is_loopback or address.is_link_local or address.is_reserved
                or address.is_multicast or address.is_unspecified):
            return True
    return False


def push_endpoint_check(endpoint: str) -> str:
    """``endpoint`` if a push may be sent there, else DomainError: https on a public address (plain http
    and loopback only where loopback is allowed), at most ``PushSubscription.ENDPOINT_MAX`` characters."""
    if not isinstance(endpoint, str) or not endpoint or len(endpoint) > PushSubscription.ENDPOINT_MAX:
        raise DomainError("That push address is missing or too long.")
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        raise DomainError("That push address is not a valid web address.") from None
    if parts.username or parts.password or not host or any(ch.isspace() for ch in endpoint):
        raise DomainError("That push address is not a valid web address.")
    loopback_http = parts.scheme == "http" and settings.PUSH_ENDPOINT_ALLOW_LOOPBACK and _is_loopback(host)
    if parts.scheme != "https" and not loopback_http:
        raise DomainError("A push address must start with https://.")
    if _refused_address(host):
        raise DomainError("That push address is not on the public internet.")
    return endpoint


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


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
        return json.dumps({"title": self.title, "body": self.body, "url": self.url, "tag": self.tag},
                          separators=(",", ":"))


def push_wanted(*, user_id: int, kind: str) -> bool:
    """Whether the member chose push for ``kind`` and has a browser subscribed."""
    if kind not in KINDS or not PushSubscription.objects.filter(user_id=user_id).exists():
        return False
    choice = PushChoice.objects.filter(user_id=user_id).first() or PushChoice(user_id=user_id)
    return bool(getattr(choice, kind))


def push_send(*, user_id: int, kind: str, message: PushMessage, club_id: int | None = None) -> int:
    """Push ``message`` to each browser of the member who chose push for ``kind``; how many took it.
    Nothing while the member is present at club ``club_id`` (None: at any club), or when push is not set
    up. A subscription the push service reports gone (404, 410) is deleted; another failure is logged and
    skipped."""
    if not push_wanted(user_id=user_id, kind=kind) or is_present(user_id=user_id, club_id=club_id):
        return 0
    return push_deliver(user_id=user_id, kind=kind, message=message)


def push_deliver(*, user_id: int, kind: str, message: PushMessage) -> int:
    """Push ``message`` to each browser of the member, for a caller that has already checked that they
    chose push for ``kind`` and are not present (``push_send`` checks both); how many took it."""
    private = vapid_private_key()
    if private is None:
        return 0
    vapid = Vapid.from_string(private)
    session = requests.Session()
    session.max_redirects = 0  # a push service answers, it does not send us elsewhere (nor inside our network)
    sent = 0
    for sub in list(PushSubscription.objects.filter(user_id=user_id).order_by("pk")):
        try:
            push_endpoint_check(sub.endpoint)  # again at send time: a name may now resolve elsewhere
        except DomainError:
            log.warning("Push subscription %s skipped: its address is no longer allowed", sub.pk)
            continue
        try:
            webpush({"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}},
                    data=message.payload(), vapid_private_key=vapid,
                    vapid_claims={"sub": settings.VAPID_SUBJECT}, content_encoding="aes128gcm",
                    ttl=settings.PUSH_TTL_SECONDS, timeout=settings.PUSH_TIMEOUT_SECONDS,
                    headers={"Urgency": "high" if kind != "digest" else "normal", "Topic": message.tag[:32]},
                    requests_session=session)
        except WebPushException as exc:
            status = getattr(exc.response, "status_code", None)
            if status in (404, 410):
                PushSubscription.objects.filter(pk=sub.pk).delete()
                log.info("Push subscription %s removed: the push service says it is gone (%s)", sub.pk, status)
            else:
                log.warning("Push to subscription %s failed (%s)", sub.pk, status)
            continue
        except Exception:  # noqa: BLE001 - one unreachable push service must not stop the others
            log.warning("Push to subscription %s failed", sub.pk, exc_info=True)
            continue
        sent += 1
    session.close()
    return sent
