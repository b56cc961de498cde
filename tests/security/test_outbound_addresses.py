"""The site's one check of outbound addresses (kernel/outbound.py), attacked with every special-purpose form
of an address: a push endpoint (or any later outbound call) may name only a public unicast address, and the
check judges the addresses a name resolves to, not only a literal."""

from __future__ import annotations

import ipaddress

import pytest

from kernel.errors import DomainError
from kernel.outbound import OutboundRefused, address_refusal, outbound_addresses
from notices import webpush as push

REFUSED = [
    # IPv4
    ("0.0.0.0", "this network"),  # noqa: S104 - an address to refuse, not to bind
    ("0.1.2.3", "this network"),
    ("10.0.0.1", "private"),
    ("172.16.0.1", "private"),
    ("172.31.255.254", "private"),
    ("192.168.1.1", "private"),
    ("100.64.0.1", "carrier-grade NAT"),
    ("100.100.100.200", "carrier-grade NAT"),  # a cloud's metadata service
    ("100.127.255.254", "carrier-grade NAT"),
    ("127.0.0.1", "loopback"),
    ("127.255.255.254", "loopback"),
    ("169.254.169.254", "link-local"),  # the usual metadata service
    ("192.0.0.8", "IETF protocol assignment"),
    ("192.0.2.1", "documentation"),
    ("198.51.100.7", "documentation"),
    ("203.0.113.9", "documentation"),
    ("192.88.99.1", "6to4 relay"),
    ("198.18.0.1", "benchmarking"),
    ("198.19.255.1", "benchmarking"),
    ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "reserved"),
    # IPv6
    ("::", "unspecified"),
    ("::1", "loopback"),
    ("::127.0.0.1", "IPv4-compatible"),
    ("::8.8.8.8", "IPv4-compatible"),  # deprecated form: refused whatever it carries
    ("::ffff:127.0.0.1", "IPv4-mapped"),
    ("::ffff:10.0.0.1", "IPv4-mapped"),
    ("::ffff:8.8.8.8", "IPv4-mapped"),
    ("64:ff9b::7f00:1", "NAT64"),
    ("64:ff9b::808:808", "NAT64"),
    ("64:ff9b:1::a00:1", "NAT64"),
    ("100::1", "discard"),
    ("2001::1", "Teredo"),
    ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "Teredo"),
    ("2001:2::1", "benchmarking"),
    ("2001:10::1", "IETF protocol assignment"),  # ORCHID
    ("2001:20::1", "IETF protocol assignment"),  # ORCHIDv2
    ("2001:db8::1", "documentation"),
    ("3fff::1", "documentation"),
    ("2002:7f00:1::", "6to4 of loopback"),
    ("2002:a00:1::1", "6to4 of private"),
    ("2002:a9fe:a9fe::", "6to4 of link-local"),
    ("2002:6440:1::", "6to4 of carrier-grade NAT"),
    ("fc00::1", "unique-local"),
    ("fd12:3456:789a::1", "unique-local"),
    ("fe80::1", "link-local"),
    ("febf::1", "link-local"),
    ("fec0::1", "site-local"),
    ("feff::1", "site-local"),
    ("ff02::1", "multicast"),
    ("ff0e::1", "multicast"),
    ("5f00::1", "reserved"),
    ("4000::1", "reserved"),
    ("8000::1", "reserved"),
]

ALLOWED = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "100.63.255.255",  # just below carrier-grade NAT
    "100.128.0.1",  # just above it
    "172.32.0.1",  # just above 172.16/12
    "198.20.0.1",  # just above benchmarking
    "223.255.255.254",
    "2606:4700::1111",
    "2a00:1450:4001:80b::200e",
    "2002:808:808::1",  # 6to4 of a public IPv4 address
    "2001:4860:4860::8888",
]


@pytest.mark.parametrize(("address", "reason"), REFUSED)
def test_a_special_purpose_address_is_refused_and_named(address, reason) -> None:
    assert address_refusal(ipaddress.ip_address(address)) == reason
    with pytest.raises(OutboundRefused):
        outbound_addresses(address, 443)


@pytest.mark.parametrize("address", ALLOWED)
def test_a_public_unicast_address_passes(address) -> None:
    assert address_refusal(ipaddress.ip_address(address)) is None
    assert outbound_addresses(address, 443) == [ipaddress.ip_address(address)]


def test_the_table_is_long_enough() -> None:
    assert len(REFUSED) + len(ALLOWED) >= 40


@pytest.mark.parametrize(
    "host", ["localhost", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "no-such-name.invalid"]
)
def test_names_are_judged_by_what_they_resolve_to(host) -> None:
    """Not literals to ``ipaddress``, but the system resolver reads them as 127.0.0.1 (or as nothing)."""
    with pytest.raises(OutboundRefused):
        outbound_addresses(host, 443)


def test_loopback_is_let_through_only_where_allowed() -> None:
    assert outbound_addresses("127.0.0.1", 8000, allow_loopback=True) == [ipaddress.ip_address("127.0.0.1")]
    with pytest.raises(OutboundRefused):
        outbound_addresses("::ffff:127.0.0.1", 8000, allow_loopback=True)  # mapped: not the local receiver
    with pytest.raises(OutboundRefused):
        outbound_addresses("10.0.0.1", 8000, allow_loopback=True)


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://[::127.0.0.1]/push/x",
        "https://[fec0::1]/push/x",
        "https://[::ffff:127.0.0.1]/push/x",
        "https://[64:ff9b:1::a00:1]/push/x",
        "https://[2001:db8::1]/push/x",
        "https://192.0.2.1/push/x",
        "https://2130706433/push/x",
        "https://localhost/push/x",
    ],
)
def test_web_push_refuses_them(endpoint, settings) -> None:
    settings.PUSH_ENDPOINT_ALLOW_LOOPBACK = False  # as in production
    with pytest.raises(DomainError, match="not on the public internet"):
        push.push_endpoint_check(endpoint)
