"""Where the site posts a push (notices/webpush.py): only https on port 443 of a global address, never carrier-grade
NAT (100.64.0.0/10, the cloud metadata address 100.100.100.200 among them) nor an IPv6 address that carries a
private IPv4 one (mapped, 6to4, Teredo, NAT64); the push goes to the address that was checked, so a name that
resolves elsewhere a moment later (DNS rebinding) cannot move it; and a push service that answers a byte at a
time is cut off at the notice's deadline."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from kernel.errors import DomainError
from notices import webpush as push
from notices.models import PushSubscription
from tests.notices.push_receiver import Browser, PushReceiver, Tarpit

REFUSED = [
    "https://100.64.0.1/push/x",
    "https://100.100.100.200/push/x",
    "https://[2002:7f00:1::]/push/x",  # 6to4 of 127.0.0.1
    "https://[2002:a00:1::]/push/x",  # 6to4 of 10.0.0.1
    "https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/push/x",  # Teredo of 10.0.0.1
    "https://[64:ff9b::a00:1]/push/x",  # NAT64 of 10.0.0.1
    "https://[64:ff9b::6440:1]/push/x",  # NAT64 of 100.64.0.1
    "https://[::ffff:10.0.0.1]/push/x",
    "https://[ff0e::1]/push/x",
    "https://8.8.8.8:8443/push/x",  # a public address, but not the https port
    "https://8.8.8.8:80/push/x",
    "http://8.8.8.8/push/x",
    "https://127.0.0.1/push/x",
]


@pytest.mark.parametrize("endpoint", REFUSED)
def test_non_global_addresses_and_other_ports_are_refused(endpoint, settings) -> None:
    settings.PUSH_ENDPOINT_ALLOW_LOOPBACK = False  # as in production
    with pytest.raises(DomainError):
        push.push_endpoint_check(endpoint)


@pytest.mark.parametrize(
    "endpoint", ["https://8.8.8.8/push/x", "https://8.8.8.8:443/push/x", "https://[2606:4700::1111]/push/x"]
)
def test_https_on_a_global_address_is_allowed(endpoint, settings) -> None:
    settings.PUSH_ENDPOINT_ALLOW_LOOPBACK = False
    assert push.push_endpoint_check(endpoint) == endpoint


@pytest.fixture
def receiver() -> Iterator[PushReceiver]:
    with PushReceiver() as server:
        yield server


@pytest.mark.django_db
def test_the_push_goes_to_the_address_checked_when_the_name_moves(club_setup, receiver, monkeypatch) -> None:
    """A name that answers loopback (allowed in the tests, as a public address is in production) to the
    check and a private address a moment later: the push still reaches the address checked."""
    port = receiver.server.server_address[1]
    name = "push.rebinding.test"
    answers = iter(["127.0.0.1"])
    real = socket.getaddrinfo

    def rebinding_dns(host, *args, **kwargs):
        if host != name:
            return real(host, *args, **kwargs)
        address = next(answers, "10.255.255.1")  # first the checked address, then one inside the network
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding_dns)
    receiver.origin = f"http://{name}:{port}"  # the audience of the VAPID token is the name's origin
    member = club_setup.members[0]
    browser = Browser()
    PushSubscription.objects.create(
        user=member, endpoint=f"http://{name}:{port}/push/abc", **browser.subscription("")["keys"]
    )
    message = push.PushMessage(title="Your turn at Main", body="The table waits for you.", url="/", tag="t")
    assert push.push_deliver(user_id=member.pk, kind="turn", message=message) == 1
    (got,) = receiver.wait_for(1)
    assert got.headers["Host"] == f"{name}:{port}"  # the name kept in the request; the connection pinned


class Trickle(Tarpit):
    """A push service that answers one byte every 0.2 s, for ever: no single read ever times out."""

    def handle(self, conn: socket.socket) -> None:
        threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    @staticmethod
    def _trickle(conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            try:
                conn.sendall(b"HTTP/1.1 201 Created\r\nX-Slow: ")
                while True:
                    conn.sendall(b"a")
                    time.sleep(0.2)
            except OSError:
                return


@pytest.mark.timeout(30)
@pytest.mark.django_db
def test_a_push_service_answering_a_byte_at_a_time_is_cut_off_at_the_deadline(club_setup, settings) -> None:
    settings.PUSH_DEADLINE_SECONDS = 1.5
    trickle = Trickle()
    member = club_setup.members[0]
    for number in range(3):
        PushSubscription.objects.create(
            user=member, endpoint=f"http://127.0.0.1:{trickle.port}/push/{number}", **Browser().subscription("")["keys"]
        )
    message = push.PushMessage(title="Your turn at Main", body="The table waits for you.", url="/", tag="t")
    started = time.monotonic()
    assert push.push_deliver(user_id=member.pk, kind="turn", message=message) == 0
    assert time.monotonic() - started < 2.5  # all three at once, and the notice over at its deadline
    trickle.close()


def _certificate(tmp_path, name: str) -> tuple[str, str]:
    """A self-signed certificate for ``name`` (its own authority): (certificate file, key file)."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return str(cert_file), str(key_file)


def test_over_tls_the_pinned_connection_names_the_push_service_and_checks_its_certificate(tmp_path) -> None:
    import ssl
    from http.server import BaseHTTPRequestHandler, HTTPServer

    import requests

    name = "push.pinned.test"  # resolves nowhere: the connection goes to the pinned address
    cert_file, key_file = _certificate(tmp_path, name)
    seen: dict[str, str] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            seen["host"] = self.headers["Host"]
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)

    def record_server_name(sock: ssl.SSLObject, server_name: str | None, ctx: ssl.SSLContext) -> None:
        seen["sni"] = server_name or ""

    context.sni_callback = record_server_name  # type: ignore[assignment]
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        session = requests.Session()
        session.trust_env = False
        session.mount("https://", push._PinnedAdapter(push._Pinning("127.0.0.1")))
        assert session.post(f"https://{name}:{port}/push/x", data=b"", verify=cert_file).status_code == 201
        assert seen == {"sni": name, "host": f"{name}:{port}"}
        other = requests.Session()
        other.trust_env = False
        other.mount("https://", push._PinnedAdapter(push._Pinning("127.0.0.1")))
        with pytest.raises(requests.exceptions.SSLError):  # the certificate must name the host of the URL
            other.post(f"https://push.other.test:{port}/push/x", data=b"", verify=cert_file)
    finally:
        server.shutdown()
        server.server_close()
