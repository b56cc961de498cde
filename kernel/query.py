"""Reading a page's query parameters. A value a page cannot use is refused with a message fit for a
member's eyes (``BadQuery``, answered with 400 and the page), never a server error: ``str.isdigit``
accepts "²" and other Unicode digits that ``int`` refuses, and a number beyond PostgreSQL's bigint
would fail in the database."""

from __future__ import annotations

from django.http import HttpRequest

from kernel.errors import DomainError

KEY_MAX = 2**63 - 1  # PostgreSQL's bigint: the largest key or hand number a cursor can name
BROKEN_LINK = "That page link is broken; start from the newest."


class BadQuery(DomainError):
    """A query parameter the page cannot use; the message says what to do."""


def query_key(request: HttpRequest, name: str = "before", *, message: str = BROKEN_LINK) -> int | None:
    """``?<name>=`` as a positive whole number written in ASCII digits (a page cursor or an id), or None
    when absent or empty. Raises BadQuery with ``message`` for anything else."""
    raw = request.GET.get(name, "")
    if raw == "":
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > len(str(KEY_MAX)):
        raise BadQuery(message)
    value = int(raw)
    if not 1 <= value <= KEY_MAX:
        raise BadQuery(message)
    return value
