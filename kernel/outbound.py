"""The one check of where the site may connect out to (Web Push today, any later outbound call): a public
unicast address only, judged on every address a name resolves to, not only on a literal.

A name or an address chosen by a member (a push endpoint) must never make the site talk to itself, the
machines beside it or the cloud's metadata service. Refused, by the IANA special-purpose registries:

- IPv4: this network (0/8), private (10/8, 172.16/12, 192.168/16), carrier-grade NAT (100.64/10, where
  some clouds' metadata lives), loopback (127/8), link-local (169.254/16), IETF protocol assignments
  (192.0.0/24), documentation (192.0.2/24, 198.51.100/24, 203.0.113/24), the old 6to4 relay (192.88.99/24),
  benchmarking (198.18/15), multicast (224/4), reserved (240/4) and broadcast;
- IPv6: anything outside global unicast 2000::/3, which covers unspecified, loopback, IPv4-mapped
  (::ffff:0:0/96), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96, 64:ff9b:1::/48), discard (100::/64),
  unique-local (fc00::/7), link-local (fe80::/10), site-local (fec0::/10) and multicast (ff00::/8); and
  inside it the IETF protocol assignments 2001::/23 (Teredo 2001::/32, benchmarking 2001:2::/48, ORCHID),
  documentation (2001:db8::/32, 3fff::/20) and 6to4 (2002::/16) whose embedded IPv4 address is refused.

The caller connects to the address checked here (it pins it), so a name that resolves differently a
moment later (DNS rebinding) cannot move the connection.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket

from kernel.errors import DomainError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_V4: dict[str, str | tuple[str, ...]] = {
    "this network": "0.0.0.0/8",
    "private": ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"),
    "carrier-grade NAT": "100.64.0.0/10",
    "loopback": "127.0.0.0/8",
    "link-local": "169.254.0.0/16",
    "IETF protocol assignment": "192.0.0.0/24",
    "documentation": ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24"),
    "6to4 relay": "192.88.99.0/24",
    "benchmarking": "198.18.0.0/15",
    "multicast": "224.0.0.0/4",
    "reserved": "240.0.0.0/4",  # 255.255.255.255 (broadcast) included
}
_V6: dict[str, str | tuple[str, ...]] = {
    "unspecified": "::/128",
    "loopback": "::1/128",
    "IPv4-mapped": "::ffff:0:0/96",
    "IPv4-compatible": "::/96",
    "NAT64": ("64:ff9b::/96", "64:ff9b:1::/48"),
    "discard": "100::/64",
    "Teredo": "2001::/32",
    "benchmarking": "2001:2::/48",
    "IETF protocol assignment": "2001::/23",
    "documentation": ("2001:db8::/32", "3fff::/20"),
    "unique-local": "fc00::/7",
    "link-local": "fe80::/10",
    "site-local": "fec0::/10",
    "multicast": "ff00::/8",
}


def _table(names: dict[str, str | tuple[str, ...]]) -> list[tuple[str, ipaddress.IPv4Network | ipaddress.IPv6Network]]:
    rows = []
    for reason, networks in names.items():
        for network in (networks,) if isinstance(networks, str) else networks:
            rows.append((reason, ipaddress.ip_network(network)))
    return rows


_REFUSED_V4 = _table(_V4)
_REFUSED_V6 = _table(_V6)  # in this order: the narrower name first (Teredo before 2001::/23)
_GLOBAL_UNICAST = ipaddress.ip_network("2000::/3")
_6TO4 = ipaddress.ip_network("2002::/16")


def address_refusal(address: IPAddress) -> str | None:
    """Why the site may not connect to ``address`` ("loopback", "site-local", "6to4 of private", ...), or
    None for a public unicast address."""
    if isinstance(address, ipaddress.IPv4Address):
        for reason, network in _REFUSED_V4:
            if address in network:
                return reason
        return None
    for reason, network in _REFUSED_V6:
        if address in network:
            return reason
    if address not in _GLOBAL_UNICAST:
        return "reserved"
    if address in _6TO4:
        inner = address.sixtofour
        assert inner is not None
        refusal = address_refusal(inner)
        return f"6to4 of {refusal}" if refusal else None
    return None


def address_is_public(address: IPAddress) -> bool:
    return address_refusal(address) is None


class OutboundRefused(DomainError):
    """A host the site will not connect to; the message is fit for the member who named it."""


def host_addresses(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` (a name or a literal, with no brackets) stands for, as the system resolver gives
    them ("127.1" and "2130706433" are 127.0.0.1 to it); [] when it resolves to nothing."""
    with contextlib.suppress(ValueError):
        return [ipaddress.ip_address(host)]
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError, ValueError):
        return []
    found: list[IPAddress] = []
    for info in infos:
        with contextlib.suppress(ValueError):
            address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
            if address not in found:
                found.append(address)
    return found


def outbound_addresses(host: str, port: int, *, allow_loopback: bool = False) -> list[IPAddress]:
    """The addresses of ``host`` the site may connect to: all of them public (``address_refusal``), else
    OutboundRefused. ``allow_loopback`` (development and tests, never production) also lets a host whose
    every address is loopback through, for a local receiver."""
    addresses = host_addresses(host, port)
    if not addresses:
        raise OutboundRefused("That address does not resolve to anywhere on the public internet.")
    if allow_loopback and all(a.is_loopback for a in addresses):
        return addresses
    if not all(address_is_public(a) for a in addresses):
        raise OutboundRefused("That address is not on the public internet.")
    return addresses
