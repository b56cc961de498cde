"""The bench's screens and bots on frames written by hand (no server): both protocols read alike, a turn is
never taken from a part older than the member's mark, a lagging private part asks ``sync``, and the bots
play a mix. Run: ``python3 scripts/dev.py test bench/test_screens.py``."""

from __future__ import annotations

import json
import random
from collections import Counter

from bench import play
from bench.screens import FRAME, OK, STALE, Screen, Strength, Turn, high_category, strength_of

BUTTONS = (
    '<button type="submit" name="action" value="check" class="act">Check</button>'
    '<button type="submit" name="action" value="bet:25" class="act">Bet</button>'
)
OWN = f'<p class="helper">Your best hand: <strong>two pair, kings and sevens</strong>.</p>{BUTTONS}'


def area(hand: int, version: int, your_turn: bool) -> str:
    return json.dumps(
        {
            "type": "table.html",
            "table": 1,
            "hand": hand,
            "version": version,
            "your_turn": your_turn,
            "html": f'<div id="table-live">{OWN if your_turn else ""}</div>',
        }
    )


def public(hand: int, version: int, marks: dict[str, int], full: bool = False, at: int = 0) -> str:
    return json.dumps(
        {
            "type": "table.public",
            "table": 1,
            "hand": hand,
            "version": version,
            "at": at,
            "full": full,
            "to_act": [],
            "clocks": [],
            "marks": marks,
            "html": "<div></div>",
        }
    )


def private(hand: int, version: int, your_turn: bool, seat: int = 3) -> str:
    return json.dumps(
        {
            "type": "table.private",
            "table": 1,
            "hand": hand,
            "version": version,
            "at": 0,
            "seat": seat,
            "your_turn": your_turn,
            "acted": False,
            "parts": {"own_hand": OWN if your_turn else "", "seat_actions": "", "row": "<li></li>"},
        }
    )


def test_area_frames_give_the_turn_and_its_version() -> None:
    screen = Screen()
    heard = screen.hear(area(5, 3, your_turn=True))
    assert screen.protocol == "area" and heard.kind == FRAME and heard.advanced and screen.shown == (5, 3)
    turn = screen.turn
    assert turn is not None and (turn.hand, turn.version) == (5, 3) and turn.offers == ("check", "bet:25")
    assert turn.strength == Strength(2)
    assert screen.hear(json.dumps({"type": "action.ok", "hand": 5, "version": 4})).kind == OK
    assert screen.turn is None  # the turn on screen is older than the version the action made
    assert not screen.hear(area(5, 2, your_turn=True)).advanced  # older: not shown


def test_public_and_private_frames_give_the_turn_at_the_public_version() -> None:
    screen = Screen()
    screen.hear(private(5, 2, your_turn=True))
    assert screen.turn is None  # its public frame is not here yet
    heard = screen.hear(public(5, 2, {"3": 2}))
    assert screen.protocol == "frames" and heard.advanced and screen.shown == (5, 2)
    assert screen.turn == Turn(5, 2, ("check", "bet:25"), Strength(2))
    screen.hear(public(5, 3, {"3": 2}))  # another seat acted: this member's part did not change
    turn = screen.turn
    assert turn is not None and turn.version == 3  # the form's version from the newest public frame


def test_a_private_part_older_than_the_mark_gives_no_turn_and_asks_sync() -> None:
    screen = Screen()
    screen.hear(public(5, 2, {"3": 2}), now=0.0)
    screen.hear(private(5, 2, your_turn=True))
    heard = screen.hear(public(5, 3, {"3": 3}), now=1.0)  # this seat's part changed at 3: not here yet
    assert screen.turn is None and heard.reply is None and not heard.advanced
    assert screen.shown == (5, 2)  # not shown whole until this member's own part comes
    assert screen.sync_due(now=1.2) is None
    assert json.loads(screen.sync_due(now=2.6) or "{}") == {"type": "sync"}
    screen.hear(public(5, 4, {"3": 3}), now=3.0)
    heard = screen.hear(public(5, 5, {"3": 3}), now=3.1)  # still behind at the next public frame
    assert heard.reply is not None and json.loads(heard.reply) == {"type": "sync"}
    heard = screen.hear(private(5, 3, your_turn=True))
    assert heard.kind == FRAME and heard.advanced and screen.shown == (5, 5)
    assert screen.turn is not None and screen.sync_due(now=10.0) is None


def test_a_full_public_frame_needs_a_new_private_part() -> None:
    screen = Screen()
    screen.hear(public(5, 9, {"3": 9}))
    screen.hear(private(5, 9, your_turn=True))
    screen.hear(public(6, 0, {"3": 0}, full=True))  # a new deal
    assert screen.turn is None
    screen.hear(private(6, 0, your_turn=True))
    turn = screen.turn
    assert turn is not None and (turn.hand, turn.version) == (6, 0)


def test_refusals_are_told_apart() -> None:
    screen = Screen()
    heard = screen.hear(json.dumps({"type": "error", "message": "The hand has moved on: look again."}))
    assert heard.kind == STALE


def test_strength_is_read_as_the_evaluator_names_it() -> None:
    assert [
        high_category(n)
        for n in (
            "ace high",
            "pair of nines",
            "two pair, kings and sevens",
            "three jacks",
            "ten-high straight",
            "ace-high flush",
            "kings full of sevens",
            "four jacks",
            "nine-high straight flush",
            "royal flush",
            "none yet",
        )
    ] == [0, 1, 2, 3, 4, 5, 6, 7, 8, 8, None]
    piles = strength_of(
        "Your best legal high: <strong>pair of nines</strong>. Your best legal low: <strong>8-6-4-2-A low</strong>."
    )
    assert piles == Strength(1, True)


def test_bots_play_a_mix_by_strength_and_keep_two_in() -> None:
    rng = random.Random(1)
    betting = ("fold", "call", "raise:25")
    weak = Counter(play.choose(Turn(1, 1, betting, Strength(0)), rng) for _ in range(2000))
    strong = Counter(play.choose(Turn(1, 1, betting, Strength(6)), rng) for _ in range(2000))
    assert weak["fold"] > weak["raise:25"] and strong["raise:25"] > strong["call"] > 0 and strong["fold"] == 0
    assert all(play.choose(Turn(1, 1, ("in", "out"), Strength(0)), rng, may_leave=False) == "in" for _ in range(50))
    assert play.choose(Turn(1, 1, ("check", "fold"), Strength(0)), rng) == "check"  # checking is free
    declares = Counter(
        play.choose(Turn(1, 1, ("declare:high", "declare:low", "declare:pig"), Strength(5, True)), rng)
        for _ in range(500)
    )
    assert set(declares) == {"declare:high", "declare:low", "declare:pig"}


def test_the_live_counts_are_read_per_version_and_per_socket() -> None:
    from bench import counters

    def exposition(public: int, private: int, actions: int) -> str:
        return (
            "# TYPE club_live_renders_total counter\n"
            f'club_live_renders_total{{kind="public"}} {public}\nclub_live_renders_total{{kind="private"}} {private}\n'
            "# TYPE club_actions_total counter\n"
            f'club_actions_total{{outcome="applied"}} {actions}\nclub_actions_total{{outcome="refused"}} 3\n'
        )

    counts = counters.difference(counters.parse(exposition(10, 30, 10)), counters.parse(exposition(110, 230, 110)))
    assert counts["public renders"] == 100 and counts["private renders"] == 200 and counts["applied"] == 100
    assert counts["socket renders"] == 0 and counts["versions"] is None and counts["socket statements"] is None
    figures = counters.per_version(counts, actions=90, sockets_per_table=6)
    assert figures["public renders per version"] == 1.0 and figures["private renders per action"] == 2.0
    assert figures["renders per socket per version"] == 0.0 and figures["statements per socket per version"] is None
