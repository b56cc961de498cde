"""The header's count of tables awaiting the member, for every page (read only when the header shows it)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from games.selectors.mine import tables_my_turn


def waiting_tables(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"tables_waiting": SimpleLazyObject(lambda: len(tables_my_turn(user=user)))}
