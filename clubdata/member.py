"""A member's own data, as one JSON document: what the site holds about them and what they saw.

Hands carry the member's own view of each hand they were dealt into (their hole cards, the
board, the hands shown at a showdown: what their table and hand pages show them), never the
deck or another player's unshown cards.
"""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Any

from django.db.models import BooleanField
from django.db.models.expressions import RawSQL
from django.utils import timezone

import engine
from accounts.devices import device_to_dict
from accounts.models import DeviceKey, Membership, User
from games.models import ChatMessage, DealCut, DeviceCut, Hand, HandAction
from games.selectors.hands import hand_view_for
from ledger.models import Account, Posting, Settlement

FORMAT = "home-club-member-data"
FORMAT_VERSION = 1


def _plain(value: Any) -> Any:
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    return value


def hands_dealt_to(*, user: User) -> Any:
    """Every hand ``user`` was dealt into, in any club, oldest first."""
    return (
        Hand.objects.annotate(
            dealt=RawSQL(
                "EXISTS (SELECT 1 FROM jsonb_each_text(games_hand.players) p WHERE p.value = %s)",
                (str(user.pk),),
                output_field=BooleanField(),
            )
        )
        .filter(dealt=True)
        .select_related("table__club", "table__rule_version__rule_set")
        .order_by("started_at", "pk")
    )


def _cut_row(cut: DealCut | DeviceCut) -> dict[str, Any]:
    """One cut of the member's, older or signed: the deal it cut and when it was received."""
    deck = cut.deck
    return {
        "club": deck.table.club.name,
        "table": deck.table.name,
        "deal": deck.number,
        "root": deck.root,
        "cut": cut.value,
        "at": _plain(cut.received_at),
        "dealt": deck.dealt_at is not None,
    }


_PROFILE_FIELDS = (
    "username",
    "display_name",
    "email",
    "first_name",
    "last_name",
    "time_zone",
    "away",
    "quiet_start",
    "quiet_end",
    "turn_notices",
    "turn_reminder",
    "date_joined",
    "last_login",
)


def member_data(*, user: User) -> dict[str, Any]:
    """Everything the site holds about ``user``, for them to download."""
    memberships = list(Membership.objects.filter(user=user).select_related("club").order_by("club_id"))
    accounts = {a.club_id: a for a in Account.objects.filter(user=user, kind=Account.Kind.MEMBER)}
    statements = [_statement(membership, accounts.get(membership.club_id)) for membership in memberships]
    hands = [_hand(hand, user) for hand in hands_dealt_to(user=user)]
    chat, settlements, cuts = _chat(user), _settlements(user), _cuts(user)
    devices = [device_to_dict(d) for d in DeviceKey.objects.filter(user=user).order_by("pk")]
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "exported_at": timezone.now().isoformat(),
        "profile": {name: _plain(getattr(user, name)) for name in _PROFILE_FIELDS},
        "memberships": [
            {
                "club": m.club.name,
                "club_id": m.club_id,
                "role": m.role,
                "joined_at": _plain(m.joined_at),
                "balance_cents": accounts[m.club_id].balance if m.club_id in accounts else 0,
            }
            for m in memberships
        ],
        "statements": statements,
        "hands": hands,
        "chat": chat,
        "settlements": settlements,
        "cuts": cuts,
        "devices": devices,
    }


def _statement(membership: Membership, account: Account | None) -> dict[str, Any]:
    """The member's statement in one club: every line of their account, oldest first."""
    lines = (
        []
        if account is None
        else [
            {
                "line": p.seq,
                "date": _plain(p.created_at),
                "kind": p.kind,
                "memo": p.entry.memo,
                "amount_cents": p.amount,
                "balance_after_cents": p.balance_after,
                "entry": p.entry_id,
                "hand": p.entry.hand_id,
                "game": p.game,
            }
            for p in Posting.objects.filter(account=account).select_related("entry").order_by("seq")
        ]
    )
    return {
        "club": membership.club.name,
        "club_id": membership.club_id,
        "currency": membership.club.currency,
        "lines": lines,
    }


def _hand(hand: Hand, user: User) -> dict[str, Any]:
    """One hand the member was dealt into: what they saw of it and their own actions."""
    seat = next(int(s) for s, uid in hand.players.items() if int(uid) == user.pk)
    actions = [
        {
            "sequence": a.sequence,
            "action": a.action,
            "events": a.events,
            "timeout": a.is_timeout,
            "at": _plain(a.created_at),
        }
        for a in HandAction.objects.filter(hand=hand, seat=seat).order_by("sequence")
    ]
    return {
        "hand": hand.pk,
        "club": hand.table.club.name,
        "table": hand.table.name,
        "game": hand.table.rule_version.rule_set.game,
        "number": hand.number,
        "seat": seat,
        "started_at": _plain(hand.started_at),
        "finished_at": _plain(hand.finished_at),
        "voided": hand.voided_at is not None,
        "what_you_saw": engine.view_to_json(hand_view_for(hand=hand, user=user)),
        "your_actions": actions,
    }


def _chat(user: User) -> list[dict[str, Any]]:
    """Every chat line the member wrote, hidden ones too."""
    return [
        {
            "club": m.table.club.name,
            "table": m.table.name,
            "text": m.text,
            "at": _plain(m.created_at),
            "hidden": m.hidden_at is not None,
        }
        for m in ChatMessage.objects.filter(user=user).select_related("table__club").order_by("pk")
    ]


def _settlements(user: User) -> list[dict[str, Any]]:
    """Every settlement the member paid or was paid."""
    return [
        {
            "club": s.club.name,
            "payer": s.payer.shown_name,
            "payee": s.payee.shown_name,
            "amount_cents": s.amount,
            "paid_on": _plain(s.paid_on),
            "note": s.note,
            "status": s.status,
        }
        for s in (Settlement.objects.filter(payer=user) | Settlement.objects.filter(payee=user))
        .select_related("club", "payer", "payee")
        .order_by("pk")
    ]


def _cuts(user: User) -> list[dict[str, Any]]:
    """The member's cuts: the older ones, then those signed by their devices (docs/fairness.md), with the
    device that signed each."""
    cuts = [_cut_row(c) for c in DealCut.objects.filter(user=user).select_related("deck__table__club").order_by("pk")]
    cuts += [
        {**_cut_row(c), "device": c.device.fingerprint}
        for c in DeviceCut.objects.filter(user=user).select_related("deck__table__club", "device").order_by("pk")
    ]
    return cuts
