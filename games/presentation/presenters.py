"""Turn a member's view of a hand (``games.selectors.hands.hand_view_for``) into what the table page shows.

Works only from that view and public table facts, so the page can never hold a
card or a sealed decision the member may not see.
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any

from django.urls import reverse
from markupsafe import Markup, escape

import engine
from accounts.models import User
from accounts.money import money
from games.models import Game, Hand, RuleSetVersion, Seat, Table
from games.presentation.reasons import board_all_up, match_owed, member_acted, outcome_reasons, showdown_rows
from games.presentation.words import event_words, raise_to_label, rules_in_words
from games.selectors.hands import hand_card_seat, hand_sealed_open
from games.selectors.snapshot import TableSnapshot, previous_hand_state, table_snapshot
from games.timing.turn_clock import clock_deadline
from kernel.pools import ProcessCache

_ACTION_WORDS = {
    "check": "Check",
    "bet": "Bet",
    "call": "Call",
    "raise": "Raise",
    "fold": "Fold",
    "in": "In",
    "out": "Out",
}
_DECLARE_WORDS = {"high": "Declare high", "low": "Declare low", "pig": "Declare pig (both ways)"}


def rules_words(version: RuleSetVersion, currency: str) -> list[str]:
    return rules_in_words(
        version.rules, max_seats=version.max_seats, spectators_allowed=version.spectators_allowed, currency=currency
    )


def action_label(action: engine.Action, currency: str) -> str:
    """'Raise $0.25', 'Declare pig (both ways)', 'Fold'."""
    if action.type == "declare":
        return _DECLARE_WORDS.get(str(action.choice), "Declare")
    label = _ACTION_WORDS.get(action.type, action.type.capitalize())
    return f"{label} {money(action.amount, currency)}" if action.amount is not None else label


def action_value(action: engine.Action) -> str:
    """The button's value: 'check', 'raise:25', 'declare:pig' (read back by forms.parse_action)."""
    if action.type == "declare":
        return f"declare:{action.choice}"
    return f"{action.type}:{action.amount}" if action.amount is not None else action.type


def piles_board(view: engine.HandView) -> list[tuple[str, tuple[str | None, ...], str]]:
    """The Piles board of a view as (label, cards, shape) rows: two squares and the row; a card not
    yet turned is None (shown as a card back by ``{% card %}``). Empty for a Piranha view."""
    board = view.board
    if not isinstance(board, engine.PilesBoard):
        return []
    return [("Square 1", board.square1, "square"), ("Square 2", board.square2, "square"), ("Row", board.row, "row")]


TIMEOUT_MARK = "(clock ran out)"


def log_with_timeouts(*, hand: Hand | None, lines: list[str]) -> list[str]:
    """``lines`` (one per event of ``hand``, in order: the deal's, then each action's) with the first line
    of every timed-out action (``Hand.timeouts``) marked TIMEOUT_MARK, except a sealed decision's while the
    decisions are still closed: the default of a timeout (and of an away or removed member) is fixed by the
    house rules, so the mark would tell that seat's choice before the reveal."""
    if hand is None or not lines:
        return lines
    sealed = hand_sealed_open(hand=hand)
    out = list(lines)
    for line, first_event in hand.timeouts or []:
        if not (sealed and first_event == "decided") and line < len(out):
            out[line] = f"{out[line]} {TIMEOUT_MARK}"
    return out


def turn_clocks_for(*, snapshot: TableSnapshot, user: User | None) -> list[dict[str, Any]]:
    """The clocks the table page shows ``user``: each awaited seat's deadline, with an "away" badge.

    While a sealed decision is open only ``user``'s own clock is shown: another seat's exact deadline
    (quiet hours make them differ) would tell that a seat which decided at that moment timed out, and
    took the default (docs/design.md); so would an "away" badge beside a seat that decided at once. No query:
    everything comes from ``snapshot``."""
    hand = snapshot.hand
    if hand is None or hand.is_finished:
        return []
    sealed = hand_sealed_open(hand=hand)
    mine = user.pk if user is not None else None
    return [
        {"seat": seat, "name": name, "deadline": deadline, "is_me": user_id == mine, "away": away}
        for seat, user_id, name, deadline, away in _awaited_clocks(snapshot, hand)
        if not sealed or user_id == mine
    ]


def _awaited_clocks(snapshot: TableSnapshot, hand: Hand) -> list[tuple[int, int, str, datetime | None, bool]]:
    """Each awaited seat's clock, the same for every viewer: (seat, its member's id, name, deadline, away); worked
    out once per snapshot, as the public frame and every private frame of its version list them."""
    found: list[tuple[int, int, str, datetime | None, bool]] | None = snapshot.derived.get("awaited_clocks")
    if found is not None:
        return found
    names = {seat: u.shown_name for seat, u in snapshot.hand_users.items()}
    away = {u.pk for u in snapshot.hand_users.values() if u.away}
    found = []
    for seat in snapshot.to_act():
        user_id = int(hand.players.get(str(seat), 0))
        entry = (hand.clocks or {}).get(str(seat))
        deadline = clock_deadline(entry) if entry else hand.deadline
        found.append((seat, user_id, names.get(seat, f"Seat {seat}"), deadline, user_id in away))
    snapshot.derived["awaited_clocks"] = found
    return found


def hand_page(
    *, table: Table, hand: Hand | None, user: User | None, currency: str, snapshot: TableSnapshot | None = None
) -> dict[str, Any]:
    """Context of the table page for ``user`` (None: what every viewer sees alike, no seat of their
    own). With ``snapshot`` (of ``table`` showing ``hand``) no query: everything read comes from it;
    without, one is read here. The context carries it as ``snapshot`` for the template tags of the
    table area (games/presentation/area.py).

    What every viewer sees alike is worked out once per snapshot (``public_context``: the public frame and
    the private frames of one version share it); per member only ``member_context``."""
    if snapshot is None:
        snapshot = table_snapshot(table=table, hand=hand)
    public = public_context(snapshot, currency)
    page = {**public, "rules_words": rules_words(table.rule_version, currency)}  # the page's, not the area's
    if user is None:
        return page
    mine = member_context(snapshot=snapshot, user=user, currency=currency)
    own = {row["number"]: row for row in mine["own_rows"]}
    return {**page, **mine, "seat_rows": [own.get(row["number"], row) for row in public["seat_rows"]]}


def member_context(*, snapshot: TableSnapshot, user: User, currency: str) -> dict[str, Any]:
    """What of the table area is ``user``'s own (their view, buttons, seat rows and clocks), over the public
    context of ``snapshot``: all a private frame renders beside what every viewer sees alike."""
    public = public_context(snapshot, currency)
    hand = snapshot.hand
    my_seat = next((s for s in snapshot.seats if s.user_id == user.pk), None)
    seat_no = hand_card_seat(hand=hand, user=user) if hand is not None else None
    state = snapshot.state  # None only without a hand
    view: engine.HandView | None = (
        engine.view(state, seat_no) if seat_no is not None and state is not None else public["view"]
    )
    actions = []
    if view is not None and seat_no is not None:
        current = view.betting.current if view.betting is not None else None
        actions = [
            {
                "label": raise_to_label(a, current=current, currency=currency) or action_label(a, currency),
                "value": action_value(a),
                "kind": a.type,
            }
            for a in view.legal_actions
        ]
    mine = {seat_no, my_seat.number if my_seat is not None else None}
    clocks = turn_clocks_for(snapshot=snapshot, user=user)
    shown = {c["seat"] for c in public["public_clocks"]}
    return {
        "my_seat": my_seat,
        "view": view,
        "actions": actions,
        "own_rows": [_own_row(row, view) for row in public["seat_rows"] if row["number"] in mine],
        "can_start": my_seat is not None and public["startable"],
        "in_current_hand": bool(hand and not hand.is_finished and seat_no is not None),
        "acted": member_acted(view),
        "your_turn": bool(hand and not hand.is_finished and view and view.you is not None and view.you in view.to_act),
        "clocks": clocks,  # for the seats
        "own_clocks": [c for c in clocks if c["seat"] not in shown],  # one's own while sealed
    }


def _own_row(row: dict[str, Any], view: engine.HandView | None) -> dict[str, Any]:
    """The member's own seat row: their own view of the seat (their cards), never masked."""
    mine = (view.seat_view(row["number"]) if view is not None else None) or row["view"]
    return {**row, **_seat_state(row["seat"], masked=False), "view": mine, "is_me": True}


def _seat_state(seat: Seat | None, *, masked: bool) -> dict[str, bool]:
    """A seat row's badges: away, sitting out, left the table; none while ``masked`` (a sealed decision)."""
    return {
        "away": seat is not None and seat.user.away and not masked,
        "sitting_out": seat is not None and seat.sitting_out and not masked,
        "left": seat is None and not masked,
    }


# The words of a game and of a table's status, as the models' get_*_display give them: those build the choices'
# dict at every call, and the area's heading names the game twice and the status once a version.
_GAME_WORDS = dict(Game.choices)
_STATUS_WORDS = dict(Table.Status.choices)


def public_context(snapshot: TableSnapshot, currency: str) -> dict[str, Any]:
    """The part of the table page that is the same for every viewer of ``snapshot``: built from the
    spectator's view of the hand (no hidden card), once per snapshot."""
    found: dict[str, Any] | None = snapshot.derived.get(("public_context", currency))
    if found is not None:
        return found
    table, hand, seats = snapshot.table, snapshot.hand, snapshot.seats
    out: dict[str, Any] = {
        "free_seats": snapshot.free_seats,
        "hand": hand,
        "view": None,
        "seat_rows": [],
        "actions": [],
        "log": [],
        "log_html": Markup(""),
        "to_act_names": [],
        "showdown": [],
        "result": None,
        "snapshot": snapshot,
        "closing": snapshot.closing,
        "urls": table_urls(table=table, hand=hand),
    }
    names = {s.number: s.user.shown_name for s in seats}
    view: engine.HandView | None = None
    if hand is not None and snapshot.state is not None:  # a hand's state is always read with it
        view = engine.view(snapshot.state, None)
        names = {**names, **snapshot.hand_names()}
    out["seat_rows"] = _public_seat_rows(snapshot, view, names)
    out["names"] = names
    if view is not None and hand is not None:
        out |= _public_hand_parts(snapshot, hand, view, names, currency)
    out["previous"] = _previous_hand(snapshot=snapshot, names=names)
    game = table.rule_version.rule_set.game
    out["game_name"], out["status_name"] = _GAME_WORDS.get(game, game), _STATUS_WORDS.get(table.status, table.status)
    out["startable"] = table.status == Table.Status.OPEN and len([s for s in seats if not s.sitting_out]) >= 2
    out["closed"] = table.status == Table.Status.FINISHED and not seats  # closed for good: nobody sits there
    rules = table.rule_version.rules
    out["seat_money"] = snapshot.seat_money
    out["public_clocks"] = turn_clocks_for(snapshot=snapshot, user=None)
    out["reasons"] = outcome_reasons(out["result"], names=names, currency=currency, rules=rules)
    out["match_owed"] = match_owed(view, rules)
    out["board_all_up"] = board_all_up(view)
    # No member's own part: what a spectator is shown in its place.
    out |= {"my_seat": None, "can_start": False, "in_current_hand": False, "acted": False, "your_turn": False}
    out |= {"own_rows": [], "own_clocks": [], "clocks": out["public_clocks"]}
    snapshot.derived[("public_context", currency)] = out
    return out


def _public_seat_rows(
    snapshot: TableSnapshot, view: engine.HandView | None, names: dict[int, str]
) -> list[dict[str, Any]]:
    """A row for each seat of the table or of its hand, as a spectator sees it."""
    seats = snapshot.seats
    by_seat = {s.seat: s for s in view.seats} if view is not None else {}
    # While a sealed decision is open, a seat dealt into the hand shows others only "decided" or
    # "waiting": no away badge, no "sitting out" or "left" (a removed member sits out), since each of
    # these means the seat took the default the house rules fix (see turn_clocks_for).
    sealed = hand_sealed_open(hand=snapshot.hand)
    by_number = {s.number: s for s in seats}
    # piranha.txt: a loser's match goes into the next hand's pot; the engine counts it in the seat's "paid".
    matched = {p.seat: p.amount for p in getattr(view.result if view else None, "match_payments", ())}
    awaited = set(snapshot.to_act())  # nobody once the hand is finished (closed or voided mid-hand too)
    rows = []
    for n in sorted(set(by_number) | set(by_seat)):
        seat = by_number.get(n)
        v = by_seat.get(n)
        rows.append(
            {
                "number": n,
                "name": names.get(n, f"Seat {n}"),
                "seat": seat,
                "view": v,
                "is_me": False,
                "is_button": view is not None and view.button == n,
                "to_act": n in awaited,
                "matched": matched.get(n, 0),
                **_seat_state(seat, masked=sealed and v is not None),
            }
        )
    return rows


def _public_hand_parts(
    snapshot: TableSnapshot, hand: Hand, view: engine.HandView, names: dict[int, str], currency: str
) -> dict[str, Any]:
    """The hand as a spectator sees it: its log, who is to act, its result and showdown, the Piles board."""
    lines, items = _log_lines(hand.pk, view.events, names, currency)
    log = log_with_timeouts(hand=hand, lines=list(lines))
    out: dict[str, Any] = {
        "view": view,
        "log": log,
        "log_html": _log_html(log, lines, items),
        "to_act_names": [names.get(n, f"Seat {n}") for n in snapshot.to_act()],
    }
    result = view.result
    out["result"] = result
    if result is not None:
        out["showdown"] = showdown_rows(result, names)
        out["winner_names"] = [names.get(s, f"Seat {s}") for s in result.winners]
    out["is_over"] = hand.is_finished
    if view.game == "piles":
        out["piles_board"] = piles_board(view)
    return out


# Each hand's log as last worded here: its events, their lines, and each line as the area lists it (``<li>``,
# escaped), by the hand, the names and the currency. A hand's log only grows (engine ``logged``), so the next
# version's lines are these and its new events' only: the events are compared, not looked up one by one (the
# version's state is built on the last one's here, so they are mostly the same objects). Every viewer sees the
# same log: no hidden card is in an event.
_LOGS: ProcessCache[
    tuple[int, tuple[tuple[int, str], ...], str],
    tuple[tuple[engine.Event, ...], tuple[str, ...], tuple[str, ...]],
] = ProcessCache("hand logs", held=512)


def _log_lines(
    hand_id: int, events: tuple[engine.Event, ...], names: dict[int, str], currency: str
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A line for each of ``events``, the log of hand ``hand_id``, in order, and each as the area lists it."""
    key = (hand_id, tuple(sorted(names.items())), currency)
    kept = _LOGS.get(key)
    lines, items = (kept[1], kept[2]) if kept is not None and events[: len(kept[0])] == kept[0] else ((), ())
    new = [event_words(e, names=names, currency=currency) for e in events[len(lines) :]]
    lines, items = (*lines, *new), (*items, *[_log_item(line) for line in new])
    _LOGS.put(key, (events, lines, items))
    return lines, items


def _log_item(line: str) -> str:
    return f"<li>{escape(line)}</li>"


def _log_html(shown: list[str], lines: tuple[str, ...], items: tuple[str, ...]) -> Markup:
    """The log's items as the area lists them: each line's kept item, but a line marked since it was worded (a
    timeout, ``log_with_timeouts``) listed as marked."""
    return Markup(  # noqa: S704 - every item escaped by _log_item
        "".join(
            [
                item if line is worded else _log_item(line)
                for line, worded, item in zip(shown, lines, items, strict=True)
            ]
        )
    )


def table_urls(*, table: Table, hand: Hand | None) -> dict[str, str]:
    """The addresses the table area links and posts to (the same dict for every version of a hand: read it, never
    change it)."""
    game = table.rule_version.rule_set.game
    return _table_urls(game, table.pk, table.club_id, table.rule_version_id, table.next_game_id, hand and hand.pk)


# A table's addresses by every id they are made of: filled in once per hand, not at every version of it.
@functools.lru_cache(maxsize=1024)
def _table_urls(
    game: str, table_id: int, club_id: int, version_id: int, next_game_id: int | None, hand_id: int | None
) -> dict[str, str]:
    patterns = _address_patterns(game)
    ids = {"table": table_id, "club": club_id, "version": version_id}  # once, not per address
    urls = {name: pattern.format_map(ids) for name, pattern in patterns.items() if name not in _HAND_ADDRESSES}
    if next_game_id is not None:
        urls["next_game"] = patterns["table"].format(table=next_game_id)
    if hand_id is not None:
        urls |= {name: patterns[name].format(hand=hand_id) for name in _HAND_ADDRESSES}
    return urls


_HAND_ADDRESSES = ("hand_detail", "hand_so_far", "hand_so_far_json")  # the hand's: filled in per hand


# Placeholders no real id reaches: a table's addresses are reversed once per process with them, as format
# strings filled in per table (Django's reverse costs about 0.1 ms an address, and the area links sixteen).
_PLACEHOLDERS = {"987654301": "{table}", "987654302": "{club}", "987654303": "{version}", "987654304": "{hand}"}


@functools.cache
def _address_patterns(game: str) -> dict[str, str]:
    table, club, version, hand = (int(p) for p in _PLACEHOLDERS)
    urls = {
        name: reverse(f"games:{name}", args=[table])
        for name in (
            "hand_act",
            "table_start",
            "table_new_game",
            "seat_sit_in",
            "seat_sit_out",
            "seat_leave",
            "seat_take",
            "advance_set",
            "advance_cancel",
            "table_close",
            "hand_history",
            "table",
        )
    }
    urls["away_toggle"] = reverse("away_toggle")
    urls["lobby"] = reverse("games:lobby", args=[club])
    urls["rule_version"] = reverse("games:rule_version", args=[club, version])
    urls["how_to_play"] = reverse("clubhouse:how_to_play", args=[club, game])
    urls |= {name: reverse(f"games:{name}", args=[hand]) for name in _HAND_ADDRESSES}
    for placeholder, field in _PLACEHOLDERS.items():
        urls = {name: url.replace(placeholder, field) for name, url in urls.items()}
    return urls


def _previous_hand(*, snapshot: TableSnapshot, names: dict[int, str]) -> PreviousHand | None:
    """The last finished hand before the current one (the same for every member), if any."""
    return None if snapshot.previous is None else PreviousHand(snapshot, names)


class PreviousHand:
    """The last finished hand before the current one, as the area shows it: its public result (the showdown is
    public once over). ``key`` names everything its section is built from, so the area renders the section once
    per process for each hand and time zone (games/presentation/area.py ``previous_hand``), not at every version
    of the hand that follows it; ``shown``, what the section reads, is worked out only when it renders."""

    def __init__(self, snapshot: TableSnapshot, names: dict[int, str]) -> None:
        prev = snapshot.previous
        assert prev is not None
        table, voiding = snapshot.table, snapshot.previous_voiding
        self._snapshot = snapshot
        self._names = {**names, **{seat: u.shown_name for seat, u in snapshot.previous_users.items()}}
        ruling = (voiding.pk, voiding.kind, voiding.reason, voiding.ruled_by.shown_name) if voiding else None
        self.key = (
            prev.pk,
            prev.version,
            prev.voided_at,
            ruling,
            tuple(sorted(self._names.items())),
            table.club.currency,
            table.rule_version_id,
            table.practice,
        )

    @functools.cached_property
    def shown(self) -> dict[str, Any]:
        snapshot, names = self._snapshot, self._names
        prev = snapshot.previous
        assert prev is not None
        prev_view = engine.view(previous_hand_state(prev), None)  # rendered once per process (area.py)
        result = prev_view.result
        rules = snapshot.table.rule_version.rules
        return {
            "hand": prev,
            "detail_url": _address_patterns(snapshot.table.rule_version.rule_set.game)["hand_detail"].format(
                hand=prev.pk
            ),
            "result": result,
            "voiding": snapshot.previous_voiding,
            "view": prev_view,
            "piles_board": piles_board(prev_view) if prev_view.game == "piles" else None,
            "reasons": outcome_reasons(result, names=names, currency=snapshot.table.club.currency, rules=rules),
            "winner_names": [names.get(s, f"Seat {s}") for s in result.winners] if result else [],
            "payouts": [
                {"who": names.get(p.seat, f"Seat {p.seat}"), "amount": p.amount}
                for p in (result.payouts if result else ())
            ],
            "showdown": showdown_rows(result, names),
        }
