"""Reads of the cut (docs/fairness.md "Protocol" 6 and 9): a table's coming deals with their lists once closed,
the history of the deals' cuts that browsers check their receipts against, and the complaints."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import engine
from accounts.models import DeviceKey, User
from games.models import CutComplaint, CutList, DeckAhead, Hand, Table

HISTORY_MAX = 200  # deals a history answer lists


def _closes_words(*, deck: DeckAhead, closed: CutList | None, first: bool, waits: bool) -> str:
    """When a deal's list of cuts closes, in words every member reads alike."""
    if closed is not None:
        when = f"{closed.closed_at:%H:%M:%S} UTC on {closed.closed_at:%d %b}"
        why = "when the hand before it was dealt" if closed.closed_by == "previous-deal" else "at its own deal"
        return f"Closed {why}, at {when}."
    if deck.scheme != engine.SCHEME_CUT_V2:
        return "Committed before signed cuts: it is dealt without a cut."
    if waits:
        return "Open until its deal: the house rules make it wait for a cut, and the first cut deals it."
    if first:
        return "Open until this table's first deal."
    return "Open until the hand before it is dealt."


def _names(ids: set[int]) -> dict[int, str]:
    return {u.pk: u.shown_name for u in User.objects.filter(pk__in=ids)}


def cut_list_shown(cuts: list[dict[str, Any]], names: dict[int, str]) -> list[dict[str, Any]]:
    """A closed list as the table shows it: {cut, device, member (a name), signature}, sorted by cut."""
    return [
        {
            "cut": c["cut"],
            "device": c["device"],
            "member": names.get(c["member_id"], "a former member"),
            "signature": c["signature"],
        }
        for c in cuts
    ]


def decks_coming(*, table: Table) -> list[dict[str, Any]]:
    """The table's deals whose decks are committed and not dealt yet, first coming first: {deal, root, scheme,
    status, closes, waits_until, at, cuts} (``cuts``: the closed list, [] while open). Only roots and the
    closed lists: a coming deck's cards and salts never leave the database before its hand ends."""
    decks = list(DeckAhead.objects.filter(table=table, dealt_at__isnull=True).order_by("number"))
    closed = {c.deck_id: c for c in CutList.objects.filter(deck__in=decks)}
    names = _names({c["member_id"] for cl in closed.values() for c in cl.cuts or []})
    rules = engine.rules_from_dict(table.rule_version.rules) if decks else None
    required = bool(rules and rules.cut_required and not table.practice)
    out = []
    for d in decks:
        shut = closed.get(d.pk)
        out.append(
            {
                "deal": d.number,
                "root": d.root,
                "scheme": d.scheme,
                "status": "closed" if shut is not None else "open",
                "closes": _closes_words(deck=d, closed=shut, first=d.number == 1, waits=required),
                "waits_until": d.wait_until.isoformat() if d.wait_until else None,
                "at": d.created_at.isoformat(),
                "cuts": cut_list_shown(shut.cuts or [], names) if shut is not None else [],
            }
        )
    return out


def deal_wait_until(*, table_id: int) -> datetime | None:
    """Until when the table's next deal waits for a cut (house rule ``cut_required``); None: it does not."""
    return (
        DeckAhead.objects.filter(table_id=table_id, dealt_at__isnull=True, wait_until__isnull=False)
        .order_by("number")
        .values_list("wait_until", flat=True)
        .first()
    )


def cut_history(*, table: Table, since: int) -> list[dict[str, Any]]:
    """The closed lists of deals ``since`` and after (at most HISTORY_MAX), for browsers that check their
    receipts (docs/fairness.md "Protocol" 9): {deal, hand_id, scheme, root, dealt, cuts: [{cut, device,
    member_id, member}]}. A deal dealt under another scheme than its deck's (a test's fixed order, or a deal
    made before signed cuts) is listed with the hand's own scheme and root, so a receipt shows the difference."""
    lists = list(
        CutList.objects.filter(deck__table=table, deck__number__gte=since)
        .select_related("deck")
        .order_by("deck__number")[:HISTORY_MAX]
    )
    dealt_too = list(
        DeckAhead.objects.filter(table=table, number__gte=since, dealt_at__isnull=False, cut_list__isnull=True)
        .order_by("number")
        .values_list("number", flat=True)[:HISTORY_MAX]
    )
    numbers = [c.deck.number for c in lists] + dealt_too
    hands = {
        h.number: h
        for h in Hand.objects.filter(table=table, number__in=numbers).only(
            "pk", "number", "scheme", "commitment", "cuts"
        )
    }
    names = _names({c["member_id"] for cl in lists for c in cl.cuts or []})
    rows: dict[int, dict[str, Any]] = {}
    for cl in lists:
        hand = hands.get(cl.deck.number)
        rows[cl.deck.number] = {
            "deal": cl.deck.number,
            "hand_id": hand.pk if hand else None,
            "scheme": hand.scheme if hand else cl.deck.scheme,
            "root": hand.commitment if hand else cl.deck.root,
            "dealt": hand is not None,
            "cuts": [
                {
                    "cut": c["cut"],
                    "device": c["device"],
                    "member_id": c["member_id"],
                    "member": names.get(c["member_id"], "a former member"),
                }
                for c in cl.cuts or []
            ],
        }
    for number in dealt_too:
        hand = hands.get(number)
        if hand is not None and number not in rows:
            rows[number] = {
                "deal": number,
                "hand_id": hand.pk,
                "scheme": hand.scheme,
                "root": hand.commitment,
                "dealt": True,
                "cuts": [],
            }
    return [rows[n] for n in sorted(rows)][:HISTORY_MAX]


def hand_cut_summary(*, hand: Hand) -> dict[str, Any]:
    """What ``hand``'s deal rests on, for its pages: {cuts, devices, members, words}. The words are the claim
    the pages make (docs/fairness.md): never more than the deal holds."""
    if hand.scheme == engine.SCHEME_CUT_V2:
        cuts = hand.cuts or []
        members = {c["member_id"] for c in cuts}
        devices = {c["device"] for c in cuts}
    elif hand.scheme == engine.SCHEME_CUT:
        cuts = hand.cuts or []
        members = {c.get("by") for c in cuts}
        devices = set()
    else:
        cuts, members, devices = [], set(), set()
    return {
        "cuts": len(cuts),
        "devices": len(devices),
        "members": len(members),
        "words": deal_claim_words(scheme=hand.scheme, cuts=len(cuts), members=len(members)),
    }


def deal_claim_words(*, scheme: str, cuts: int, members: int) -> str:
    """The one sentence a page says of what a deal rests on."""
    if scheme == engine.SCHEME_CUT_V2 and cuts:
        whose = f"{members} member's device" if members == 1 else f"{members} members' devices"
        return f"Dealt through {cuts} cut{'s' if cuts != 1 else ''} from {whose}."
    if scheme == engine.SCHEME_CUT and cuts:
        return (
            f"Dealt through {cuts} unsigned cut{'s' if cuts != 1 else ''} of the older scheme, taken in the order "
            "the server received them: the server could have chosen this deal."
        )
    if scheme == engine.SCHEME_DECK:
        return "Dealt before cuts: the club's server chose its order (the deck was committed at the deal)."
    return "No member's cut reached this deal: the club's server chose its order."


def complaints_for(*, table: Table, deal: int) -> list[CutComplaint]:
    """The members' complaints about deal ``deal`` of ``table``, oldest first (for its organisers)."""
    return list(CutComplaint.objects.filter(table=table, deal=deal).select_related("user").order_by("pk"))


def devices_of(*, fingerprints: set[str]) -> dict[str, DeviceKey]:
    """Fingerprint -> device key, for the proof export's (n, e)."""
    return {d.fingerprint: d for d in DeviceKey.objects.filter(fingerprint__in=fingerprints)}
