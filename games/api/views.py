"""Read-only JSON endpoints. Each request carries ``Authorization: Bearer <key>``; the key reads what
its member may read on the pages (the same access checks, the same keyset pages), in their clubs only.

Errors are JSON ``{"error": "..."}``: 401 (no key, a wrong or revoked key), 404 (not a club of the
key's member, or no such record: a club's existence is not revealed), 403 (an organiser's page),
400 (a bad parameter), 429 (too many requests; ``Retry-After`` says when to try again).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

import engine
from accounts.models import ApiToken, Membership, User
from accounts.selectors import api_token_for_key, club_list_by_id, club_member_get, club_membership
from accounts.tokens import api_token_touch
from games.models import Hand, Table
from games.selectors.hands import (
    hand_action_shown,
    hand_actions,
    hand_get,
    hand_history,
    hand_ledger_entries,
    hand_player_names,
    hand_seat_of,
    hand_view_for,
    sealed_action_hidden,
)
from games.selectors.proof import hand_cuts_named
from games.selectors.tables import table_get, table_may_watch, table_page
from ledger import selectors as ledger_selectors

from .schema import openapi_schema

View = Callable[..., JsonResponse]


class ApiError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JsonResponse:
    response = JsonResponse({"error": message}, status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def _token_user(request: HttpRequest) -> tuple[ApiToken, User]:
    header = request.headers.get("Authorization", "")
    scheme, _, key = header.partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        raise ApiError(
            401,
            "Send your API key as 'Authorization: Bearer <key>'. Make one on your profile page.",
            {"WWW-Authenticate": 'Bearer realm="api"'},
        )
    token = api_token_for_key(key=key.strip())
    if token is None or token.revoked_at is not None or not token.user.is_active:
        raise ApiError(
            401,
            "That API key is not valid (wrong, or revoked).",
            {"WWW-Authenticate": 'Bearer realm="api", error="invalid_token"'},
        )
    return token, token.user


def _rate_limit(token: ApiToken) -> None:
    """A fixed window per key: at most API_RATE_PER_MINUTE requests a minute (in the shared cache, so
    every web process counts together)."""
    limit = int(settings.API_RATE_PER_MINUTE)
    now = time.time()
    window = int(now // 60)
    key = f"api-rate:{token.key_hash[:24]}:{window}"
    cache.add(key, 0, timeout=120)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=120)
        count = 1
    if count > limit:
        retry = max(1, int((window + 1) * 60 - now))
        raise ApiError(
            429, f"Too many requests: at most {limit} a minute. Try again in {retry} s.", {"Retry-After": str(retry)}
        )


def api_view(view: View) -> Callable[..., JsonResponse]:
    """Authenticate the key, count it against its limit, run ``view(request, user, **kwargs)``."""

    @wraps(view)
    @never_cache
    @require_GET
    def wrapped(request: HttpRequest, **kwargs: Any) -> JsonResponse:
        try:
            token, user = _token_user(request)
            _rate_limit(token)
            if token.last_used_at is None or timezone.now() - token.last_used_at > timedelta(minutes=1):
                api_token_touch(token=token)
            return view(request, user, **kwargs)
        except ApiError as exc:
            return _error(exc.status, str(exc), exc.headers)

    return wrapped


def _membership(user: User, club_id: int) -> Membership:
    membership = club_membership(user=user, club_id=club_id)
    if membership is None:
        raise ApiError(404, "No such club.")
    return membership


def _int_param(request: HttpRequest, name: str) -> int | None:
    raw = request.GET.get(name)
    if raw is None or raw == "":
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18:
        raise ApiError(400, f"'{name}' must be a whole number.")
    return int(raw)


def _next_url(request: HttpRequest, before: int | None) -> str | None:
    if before is None:
        return None
    query = request.GET.copy()
    query["before"] = str(before)
    return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


# --- endpoints ---------------------------------------------------------------------------------


@api_view
def clubs(request: HttpRequest, user: User) -> JsonResponse:
    rows = club_list_by_id(user=user)
    return JsonResponse(
        {"clubs": [{"id": m.club_id, "name": m.club.name, "currency": m.club.currency, "role": m.role} for m in rows]}
    )


@api_view
def balances(request: HttpRequest, user: User, club_id: int) -> JsonResponse:
    club = _membership(user, club_id).club
    rows = ledger_selectors.balance_sheet(club=club)
    return JsonResponse(
        {
            "club": {"id": club.pk, "name": club.name, "currency": club.currency},
            "balances": [
                {
                    "member_id": r.user.pk,
                    "name": r.user.shown_name,
                    "balance_cents": r.balance,
                    "organiser": r.is_organiser,
                }
                for r in rows
            ],
            "pots_cents": ledger_selectors.pots_total(club=club),
        }
    )


@api_view
def statement(request: HttpRequest, user: User, club_id: int) -> JsonResponse:
    membership = _membership(user, club_id)
    club = membership.club
    member = user
    member_id = _int_param(request, "member")
    if member_id is not None and member_id != user.pk:
        if not membership.is_organiser:
            raise ApiError(403, "You can read only your own statement.")
        other = club_member_get(club=club, user_id=member_id)
        if other is None:
            raise ApiError(404, "No such member in this club.")
        member = other.user
    account = ledger_selectors.member_account(club=club, user=member)
    lines: list[dict[str, Any]] = []
    next_before = None
    if account is not None:
        page = ledger_selectors.statement_page(
            account=account, flt=ledger_selectors.StatementFilter(), before=_int_param(request, "before")
        )
        next_before = page.next_before
        lines = [
            {
                "line": p.seq,
                "date": _iso(p.created_at),
                "kind": p.kind,
                "memo": p.entry.memo,
                "amount_cents": p.amount,
                "balance_after_cents": p.balance_after,
                "entry": p.entry_id,
                "table": p.entry.table.name if p.entry.table else None,
                "game": p.game or None,
                "hand": p.entry.hand_id,
                "reversed": bool(getattr(p, "is_reversed", False)),
            }
            for p in page.lines
        ]
    return JsonResponse(
        {
            "club": {"id": club.pk, "name": club.name, "currency": club.currency},
            "member": {"id": member.pk, "name": member.shown_name},
            "balance_cents": account.balance if account else 0,
            "lines": lines,
            "next": _next_url(request, next_before),
        }
    )


@api_view
def tables(request: HttpRequest, user: User, club_id: int) -> JsonResponse:
    club = _membership(user, club_id).club
    rows, next_before = table_page(club=club, before=_int_param(request, "before"), size=50)
    return JsonResponse(
        {
            "tables": [
                {
                    "id": t.pk,
                    "name": t.name,
                    "game": t.rule_version.rule_set.game,
                    "status": t.status,
                    "hands_played": t.hands_played,
                    "created_at": _iso(t.created_at),
                }
                for t in rows
            ],
            "next": _next_url(request, next_before),
        }
    )


def _table_for(user: User, table_id: int) -> Table:
    table = table_get(table_id=table_id)
    if table is None:
        raise ApiError(404, "No such table.")
    _membership(user, table.club_id)
    return table


@api_view
def table_hands(request: HttpRequest, user: User, table_id: int) -> JsonResponse:
    """The table's finished hands, as its hand-history page lists them (the same keyset: hand number)."""
    table = _table_for(user, table_id)
    dealt_to = None if table_may_watch(table=table, user=user) else user
    hands, next_before = hand_history(table=table, dealt_to=dealt_to, before=_int_param(request, "before"))
    if dealt_to is not None and not hands and request.GET.get("before") is None:
        raise ApiError(403, "The house rules of this table keep spectators out.")
    return JsonResponse(
        {
            "table": {"id": table.pk, "name": table.name},
            "hands": [
                {
                    "id": h.pk,
                    "number": h.number,
                    "started_at": _iso(h.started_at),
                    "finished_at": _iso(h.finished_at),
                    "voided": h.voided_at is not None,
                    "url": request.build_absolute_uri(reverse("games:api_hand", args=[h.pk])),
                }
                for h in hands
            ],
            "next": _next_url(request, next_before),
        }
    )


@api_view
def hand(request: HttpRequest, user: User, hand_id: int) -> JsonResponse:
    """One finished hand as its page tells it to this member: their own view (their hole cards when
    dealt in, the board, the hands shown at a showdown), the actions in order and the ledger lines."""
    found = hand_get(hand_id=hand_id)
    if found is None:
        raise ApiError(404, "No such hand.")
    table = _table_for(user, found.table_id)
    if not table_may_watch(table=table, user=user, hand=found):
        raise ApiError(403, "The house rules of this table keep spectators out.")
    if not found.is_finished:
        raise ApiError(409, "That hand is still being played; its history opens when it ends.")
    return JsonResponse(hand_record(hand=found, user=user))


def hand_record(*, hand: Hand, user: User) -> dict[str, Any]:
    names = hand_player_names(hand=hand)
    view = hand_view_for(hand=hand, user=user)
    mine = hand_seat_of(hand=hand, user=user)
    # A sealed decision never opened (the table closed during it) is told as "decided", with no timeout
    # mark: the default a timeout takes is the house rules', so the mark would tell the choice.
    actions = [
        {
            "sequence": a.sequence,
            "seat": a.seat,
            "player": names.get(a.seat),
            "action": hand_action_shown(hand=hand, row=a, seat=mine),
            "events": a.events,
            "timeout": a.is_timeout and not sealed_action_hidden(hand=hand, row=a, seat=mine),
            "at": _iso(a.created_at),
        }
        for a in hand_actions(hand=hand)
    ]
    entries = hand_ledger_entries(hand=hand)
    return {
        "id": hand.pk,
        "table": {"id": hand.table_id, "name": hand.table.name},
        "number": hand.number,
        "game": view.game,
        "started_at": _iso(hand.started_at),
        "finished_at": _iso(hand.finished_at),
        "voided": hand.voided_at is not None,
        "commitment": hand.commitment,
        "scheme": hand.scheme,
        "cuts": hand_cuts_named(hand=hand) if hand.scheme in engine.SCHEMES_CUT else [],
        "players": [{"seat": seat, "name": name} for seat, name in sorted(names.items())],
        "your_seat": mine,
        "view": engine.view_to_json(view),
        "deal_events": hand.deal_events,
        "actions": actions,
        "ledger": [
            {
                "entry": e.pk,
                "kind": e.kind,
                "memo": e.memo,
                "at": _iso(e.created_at),
                "postings": [
                    {"account": p.account.user.shown_name if p.account.user else "pot", "amount_cents": p.amount}
                    for p in e.postings.all()
                ],
            }
            for e in entries
        ],
    }


@never_cache
@require_GET
def schema(request: HttpRequest) -> JsonResponse:
    return JsonResponse(openapi_schema(server=request.build_absolute_uri("/api/v1")))
