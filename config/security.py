"""Response headers Django's SecurityMiddleware does not set, secrets kept out of the logs, and the origin
check of websockets."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.http.request import validate_host

from kernel.metrics import Receive, Scope, Send


class PermissionsPolicyMiddleware:
    """Send `Permissions-Policy` (settings.PERMISSIONS_POLICY): the site uses no camera, microphone,
    location or payment, so no page (or anything injected into one) may ask for them."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.value = str(settings.PERMISSIONS_POLICY)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Permissions-Policy", self.value)
        return response


# Paths that carry a secret: an invitation token, a password-reset token (the reset view swaps it for
# "set-password" at once), an email-change confirmation, a one-time log-in link. Matched raw or percent-encoded (in ?next=).
_SLASH = r"(?:/|%2F)"
_SECRET_PATHS = re.compile(
    rf"(?P<head>(?:invite|password{_SLASH}reset{_SLASH}[A-Za-z0-9_-]+|profile{_SLASH}email{_SLASH}confirm|login{_SLASH}link){_SLASH})"
    r"(?!set-password\b)[A-Za-z0-9_:.%-]+",
    re.IGNORECASE,
)
REDACTED = "[redacted]"


def redact_secrets(text: str) -> str:
    """`text` with every token in a secret-bearing path replaced by [redacted]."""
    return _SECRET_PATHS.sub(lambda m: m.group("head") + REDACTED, text)


class RedactSecretsFilter(logging.Filter):
    """A logging filter for every handler: uvicorn's access log and Django's request log print paths,
    and an invitation or reset link in a log is as good as the mail it was sent in."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            return True
        redacted = redact_secrets(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


# --- the origin of a websocket ---------------------------------------------------------------------

Origin = tuple[str, str, int]  # scheme, host (lower case), port
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(text: str) -> Origin | None:
    """``scheme://host[:port]`` as (scheme, host, port), the port filled in; None for anything else."""
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in _DEFAULT_PORTS or not host or parts.username or parts.password or parts.path not in ("", "/"):
        return None
    return scheme, host, port or _DEFAULT_PORTS[scheme]


def _allowed_hosts() -> list[str]:
    hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not hosts:
        hosts = [".localhost", "127.0.0.1", "[::1]"]  # as Django allows while debugging
    return hosts


def socket_origin_allowed(scope: Scope) -> bool:
    """Whether a websocket handshake comes from a page of this site: its one Origin equals, in scheme, host
    and port, the socket's own origin (``wss`` is ``https``; the Host header) for a host of ALLOWED_HOSTS,
    or one of CSRF_TRUSTED_ORIGINS (exactly). The rule of Django's CSRF check for forms; a page of another
    scheme or port on the same host (another service there) is refused."""
    headers = scope.get("headers", [])
    origins = [value for name, value in headers if name == b"origin"]
    hosts = [value for name, value in headers if name == b"host"]
    if len(origins) != 1 or len(hosts) != 1:
        return False
    origin = _origin(origins[0].decode("latin1"))
    if origin is None:
        return False
    if origin in {_origin(trusted) for trusted in settings.CSRF_TRUSTED_ORIGINS}:
        return True
    scheme = "https" if scope.get("scheme") == "wss" else "http"
    own = _origin(f"{scheme}://{hosts[0].decode('latin1')}")
    return own is not None and origin == own and validate_host(own[1], _allowed_hosts())


class SocketOriginValidator:
    """ASGI middleware: a websocket whose Origin ``socket_origin_allowed`` refuses is denied before it opens."""

    def __init__(self, application: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.application = application

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        """The app's own awaitable, not one of ours around it: no coroutine of this check stays alive for the
        socket's life (memory per open socket)."""
        if scope["type"] == "websocket" and not socket_origin_allowed(scope):
            from channels.security.websocket import WebsocketDenier  # not at import: the logging set-up imports us

            return WebsocketDenier()(scope, receive, send)
        return self.application(scope, receive, send)
