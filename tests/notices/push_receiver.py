"""A push service on loopback for the Web Push tests, written from the RFCs (no code shared with the sender):
it takes RFC 8030 POSTs, checks the VAPID token (RFC 8292: an ES256 JWT signed by the key in ``k``,
audience this origin, not expired) and decrypts the aes128gcm body (RFC 8188 with the RFC 8291 key
schedule) with the browser's private key, as a browser's push service plus the browser would.

``Browser`` is one subscribed browser: its P-256 key pair and auth secret, and the subscription JSON a page
would post. Paths of the receiver answer 201, except ``/gone/...`` (410), ``/missing/...`` (404) and
``/broken/...`` (500) and ``/moved/...`` (307 elsewhere), which stand for a push service that dropped or failed a subscription."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def b64d(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64e(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _hkdf(*, salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


@dataclass
class Browser:
    """A subscribed browser: its key pair and auth secret (RFC 8291 section 2)."""

    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def public(self) -> bytes:
        return self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )

    def subscription(self, endpoint: str) -> dict[str, Any]:
        return {"endpoint": endpoint, "keys": {"p256dh": b64e(self.public), "auth": b64e(self.auth)}}

    def decrypt(self, body: bytes) -> bytes:
        """RFC 8188 aes128gcm with the RFC 8291 key derivation; one record, as RFC 8291 requires."""
        salt, record_size, id_len = body[:16], int.from_bytes(body[16:20], "big"), body[20]
        sender_public = body[21 : 21 + id_len]
        ciphertext = body[21 + id_len :]
        assert id_len == 65 and sender_public[0] == 4, "keyid must be the sender's uncompressed P-256 key"
        assert len(ciphertext) <= record_size, "one record only"
        sender = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender_public)
        shared = self.key.exchange(ec.ECDH(), sender)
        ikm = _hkdf(salt=self.auth, ikm=shared, info=b"WebPush: info\x00" + self.public + sender_public, length=32)
        cek = _hkdf(salt=salt, ikm=ikm, info=b"Content-Encoding: aes128gcm\x00", length=16)
        nonce = _hkdf(salt=salt, ikm=ikm, info=b"Content-Encoding: nonce\x00", length=12)
        padded = AESGCM(cek).decrypt(nonce, ciphertext, None)
        stripped = padded.rstrip(b"\x00")
        assert stripped.endswith(b"\x02"), "the last record's padding delimiter is 2"
        return stripped[:-1]


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    vapid_key: str  # the ``k`` the token was checked against
    claims: dict[str, Any]


def vapid_check(authorization: str, *, audience: str) -> tuple[str, dict[str, Any]]:
    """Check an RFC 8292 ``Authorization: vapid t=<jwt>, k=<key>`` header; return (k, claims) or raise."""
    scheme, _, params = authorization.partition(" ")
    assert scheme.lower() == "vapid", authorization
    parts = dict(p.strip().split("=", 1) for p in params.split(","))
    token, key = parts["t"], parts["k"]
    head_b64, claims_b64, sig_b64 = token.split(".")
    head = json.loads(b64d(head_b64))
    assert head.get("alg") == "ES256", head
    signature = b64d(sig_b64)
    assert len(signature) == 64, "ES256 signatures are r || s, 32 bytes each"
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64d(key))
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public.verify(der, f"{head_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise AssertionError("the VAPID token's signature does not verify") from None
    claims = json.loads(b64d(claims_b64))
    assert claims["aud"] == audience, claims
    assert time.time() < int(claims["exp"]) <= time.time() + 24 * 3600, claims
    return key, claims


class PushReceiver:
    """The loopback push service; ``received`` lists what it accepted (and checked), ``refused`` the rest."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.refused: list[str] = []
        self.arrived = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                receiver.refused.append(f"GET {self.path}")
                self.send_response(405)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    assert self.headers["Content-Encoding"] == "aes128gcm", self.headers
                    assert int(self.headers["TTL"]) >= 0
                    key, claims = vapid_check(self.headers["Authorization"], audience=receiver.origin)
                    status = 201
                    for prefix, code in (("/gone/", 410), ("/missing/", 404), ("/broken/", 500), ("/moved/", 307)):
                        if self.path.startswith(prefix):
                            status = code
                    if status == 201:
                        with receiver.arrived:
                            receiver.received.append(Received(self.path, dict(self.headers.items()), body, key, claims))
                            receiver.arrived.notify_all()
                    else:
                        receiver.refused.append(self.path)
                except (AssertionError, KeyError, ValueError) as exc:
                    receiver.refused.append(f"{self.path}: {exc}")
                    status = 400
                self.send_response(status)
                self.send_header("Content-Length", "0")
                if status == 307:
                    self.send_header("Location", f"{receiver.origin}/push/followed")
                if status == 201:
                    self.send_header("Location", f"{receiver.origin}/messages/{len(receiver.received)}")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> PushReceiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def endpoint(self, path: str = "push") -> str:
        return f"{self.origin}/{path}/{b64e(os.urandom(12))}"

    def wait_for(self, count: int, timeout: float = 20) -> list[Received]:
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.received) >= count, timeout=timeout), (
                f"{len(self.received)} of {count} pushes arrived; refused: {self.refused}"
            )
            return list(self.received)


class Tarpit:
    """A push service on loopback that accepts every connection and never reads or answers (``held``); a
    subclass may do something else with each connection (``handle``)."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0), backlog=128)
        self.port = self.server.getsockname()[1]
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.handle(conn)

    def handle(self, conn: socket.socket) -> None:
        self.held.append(conn)

    def close(self) -> None:
        # shutdown wakes the accept thread: a bare close would leave the socket listening, and pushes still
        # queued would hang on it for their whole deadline while the test's workers stop.
        with contextlib.suppress(OSError):
            self.server.shutdown(socket.SHUT_RDWR)
        self.server.close()
        for conn in self.held:
            conn.close()
