"""Device keys for the cut's tests (docs/fairness.md "Protocol" 1-5): RSA keys made with the ``cryptography``
package as a browser's WebCrypto makes them, registered through the real service, and cuts signed over the
message the server rebuilds. A few keys are made once per process (2048-bit keys take a moment each)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

import engine
from accounts.devices import device_register
from accounts.models import DeviceKey, User
from games.models import DeckAhead, Table

KEYS = 12


@functools.cache
def _key(k: int) -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@dataclass(frozen=True)
class Device:
    """A browser's device key: the private half the browser keeps, and the public half the site knows."""

    key: rsa.RSAPrivateKey

    @property
    def n(self) -> str:
        return format(self.key.public_key().public_numbers().n, "x")

    @property
    def fingerprint(self) -> str:
        return engine.device_fingerprint(self.n, 65537)

    def sign(self, message: bytes) -> str:
        return self.key.sign(message, padding.PKCS1v15(), hashes.SHA256()).hex()

    def cut_of(self, table: Table, deal: int) -> dict[str, object]:
        """The socket's cut message for ``deal`` of ``table``, signed over the deck's published root."""
        deck = DeckAhead.objects.get(table=table, number=deal)
        message = engine.cut_message(scheme=deck.scheme, table_id=table.pk, deal=deal, root=deck.root)
        return {"type": "cut", "deal": deal, "device": self.fingerprint, "signature": self.sign(message)}


def new_device(k: int) -> Device:
    """Key ``k`` of the process's pool (each test's database starts without devices: a test uses distinct ``k``)."""
    return Device(key=_key(k % KEYS))


def registered(user: User, k: int, label: str = "Laptop") -> tuple[Device, DeviceKey]:
    """A device key registered for ``user`` through the service (as POST /profile/devices/ does)."""
    device = new_device(k)
    row = device_register(user=user, n=device.n, e=65537, label=label).device
    return device, row


def fresh_device() -> Device:
    """A key never used before in this process (made now: for attacks that need a key no pool test holds)."""
    return Device(key=rsa.generate_private_key(public_exponent=65537, key_size=2048))
