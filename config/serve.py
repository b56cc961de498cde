"""The web server: uvicorn with the site's flags, for `scripts/dev.py run`, docker-compose and the tests.

    python -m config.serve --host 127.0.0.1 --port 8000 [more uvicorn flags]

Forwarded headers (`X-Forwarded-For`, `X-Forwarded-Proto`) are written by whoever sends the request,
so uvicorn may believe them only from a reverse proxy of ours. `FORWARDED_ALLOW_IPS` lists those
proxies (addresses or networks, comma-separated); empty or unset means none: the address of the
connecting peer is the client's address. Uvicorn's own default (trust 127.0.0.1) is never used,
because behind no proxy every local client would then choose its own address.
"""

from __future__ import annotations

import ipaddress
import os
import sys
from collections.abc import Mapping, Sequence

APPLICATION = "config.asgi:application"
# The largest websocket frame uvicorn accepts (bytes); the table sockets' own limit (games/live/frames.py).
WS_MAX_SIZE = 4096


class ProxyTrustError(ValueError):
    """FORWARDED_ALLOW_IPS holds something that is not an address or a network."""


def trusted_proxies(environ: Mapping[str, str]) -> list[str]:
    """The proxy addresses and networks named by FORWARDED_ALLOW_IPS, checked; [] for none.

    Raises ProxyTrustError for "*" (every peer could then forge its address) and for anything that
    is not an IP address or network.
    """
    items = [item.strip() for item in environ.get("FORWARDED_ALLOW_IPS", "").split(",") if item.strip()]
    for item in items:
        if item == "*":
            raise ProxyTrustError(
                'FORWARDED_ALLOW_IPS="*" would let any client choose its own address; '
                "name the reverse proxy's address or network instead."
            )
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ProxyTrustError(f"FORWARDED_ALLOW_IPS: {item!r} is not an IP address or network.") from None
    return items


def proxy_flags(environ: Mapping[str, str]) -> list[str]:
    """Uvicorn's flags for forwarded headers: trust the named proxies only, or no forwarded header at all."""
    proxies = trusted_proxies(environ)
    if not proxies:
        return ["--no-proxy-headers"]
    return ["--proxy-headers", "--forwarded-allow-ips", ",".join(proxies)]


def web_command(*, host: str, port: int, environ: Mapping[str, str], extra: Sequence[str] = ()) -> list[str]:
    """The whole uvicorn command line (run with this interpreter) that serves the site."""
    return [
        sys.executable,
        "-m",
        "uvicorn",
        APPLICATION,
        "--host",
        host,
        "--port",
        str(port),
        "--ws",
        "websockets-sansio",
        "--ws-max-size",
        str(WS_MAX_SIZE),
        # No per-message deflate: a member's frames would share one compression context between their
        # hidden cards and text others choose (chat), so frame sizes could tell a card (as CRIME did);
        # deflating a member's area costs about 80 us of CPU a frame besides (not measurable in bench/load.py).
        "--ws-per-message-deflate",
        "false",
        *proxy_flags(environ),
        *extra,
    ]


def main(argv: Sequence[str]) -> int:
    host, port, extra = "127.0.0.1", 8000, []
    args = list(argv)
    while args:
        flag = args.pop(0)
        if flag == "--host" and args:
            host = args.pop(0)
        elif flag == "--port" and args:
            port = int(args.pop(0))
        else:
            extra.append(flag)
    try:
        command = web_command(host=host, port=port, environ=os.environ, extra=extra)
    except ProxyTrustError as error:
        print(f"config.serve: {error}", file=sys.stderr)
        return 2
    os.execv(command[0], command)  # noqa: S606 - our own interpreter with fixed arguments
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
