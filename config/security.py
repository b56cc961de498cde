"""Response headers Django's SecurityMiddleware does not set, and secrets kept out of the logs."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


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
# "set-password" at once), an email-change confirmation. Matched raw or percent-encoded (in ?next=).
_SLASH = r"(?:/|%2F)"
_SECRET_PATHS = re.compile(
    rf"(?P<head>(?:invite|password{_SLASH}reset{_SLASH}[A-Za-z0-9_-]+|profile{_SLASH}email{_SLASH}confirm){_SLASH})"
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
