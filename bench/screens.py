"""What a bot's screen shows, read from the frames of its table socket: the one place that knows the live
wing's frames (games/consumers.py, docs/live.md), so that bench/load.py's bots and bench/live_parts.py
play whatever the server sends.

A ``Screen`` is fed every text frame the socket receives (``hear``) and keeps:
- ``shown``: the newest (hand, version) the screen shows (hand ids only grow, so keys order versions);
- ``turn``: what the member may do now, when the hand waits for them (the buttons offered and the hand's
  strength as the screen words it), or None.

Protocols (told apart by the frames themselves; ``protocol`` names the one heard):
- ``area`` (main before the live wing's rebuild): each socket is pushed its member's whole table area,
  ``{"type": "table.html", "hand", "version", "your_turn", "html"}``, after every version it has not shown.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

Key = tuple[int, int]
NOTHING: Key = (-1, -1)

BUTTON = re.compile(r'<button type="submit" name="action" value="([^"]+)"')
# The member's own hand as games/area/own_hand.jinja words it (the engine's evaluator's names).
PIRANHA_BEST = re.compile(r"Your best hand: <strong>([^<]*)</strong>")
PILES_BEST = re.compile(r"Your best legal high: <strong>([^<]*)</strong>\. Your best legal low: <strong>([^<]*)</strong>")
STALE_WORDS = "moved on"  # games/errors.py StaleVersion: another action came first

# Heard.kind
FRAME, OK, STALE, REFUSED, OTHER = "frame", "ok", "stale", "refused", "other"


@dataclass(frozen=True, slots=True)
class Strength:
    """The best high hand's category (games/engine/evaluate.py: 0 high card .. 8 straight flush; None: no
    legal high yet) and whether a low is made (Piles; None: not a Piles hand or not known)."""

    high: int | None = None
    low: bool | None = None


@dataclass(frozen=True, slots=True)
class Turn:
    hand: int
    version: int
    offers: tuple[str, ...]  # button values: 'in', 'check', 'raise:25', 'declare:pig', ...
    strength: Strength


@dataclass(frozen=True, slots=True)
class Heard:
    """One frame as the bot needs it. ``kind``: FRAME (the table's state; ``key`` its version, ``advanced``
    when it is newer than what was shown), OK (an action applied: ``key`` the version it made), STALE or
    REFUSED (``words``: what the server said), OTHER."""

    kind: str
    key: Key | None = None
    advanced: bool = False
    words: str = ""


def high_category(name: str) -> int | None:
    """The category of a high hand named as games/engine/evaluate.py's ``high_name`` names it (0 high card ..
    8 straight flush), or None ("none yet")."""
    n = name.strip().lower()
    if "straight flush" in n or n == "royal flush":
        return 8
    if n.startswith("four "):
        return 7
    if " full of " in n:
        return 6
    if n.endswith("flush"):
        return 5
    if n.endswith("straight"):
        return 4
    if n.startswith("three "):
        return 3
    if n.startswith("two pair"):
        return 2
    if n.startswith("pair of"):
        return 1
    return 0 if n.endswith(" high") else None


def strength_of(html: str) -> Strength:
    """The member's hand strength from their own hand's words in ``html`` (their cards as the engine's
    evaluator names them); an empty Strength when the screen words none."""
    piles = PILES_BEST.search(html)
    if piles is not None:
        return Strength(high_category(piles.group(1)), piles.group(2).strip().endswith(" low"))
    piranha = PIRANHA_BEST.search(html)
    return Strength(high_category(piranha.group(1))) if piranha is not None else Strength()


def turn_of_area(html: str, hand: int, version: int) -> Turn:
    """The buttons and strength a table area (today's whole-area frame, or the page's area) offers."""
    return Turn(hand, version, tuple(BUTTON.findall(html)), strength_of(html))


def action_message(turn: Turn, value: str) -> str:
    """The socket frame that sends ``value`` against the version the turn was offered at."""
    return json.dumps({"type": "action", "hand": turn.hand, "version": turn.version, "action": value})


def sync_message() -> str:
    return json.dumps({"type": "sync"})


class Screen:
    """One socket's screen. ``ready`` once it shows its table (its first table frame)."""

    def __init__(self) -> None:
        self.protocol: str | None = None
        self.shown: Key = NOTHING
        self._turn: Turn | None = None
        self._acted: Key = NOTHING  # the newest version this member's own action made (action.ok)
        self.frames = 0  # table frames received

    @property
    def ready(self) -> bool:
        return self.protocol is not None

    @property
    def turn(self) -> Turn | None:
        """What the member may do now: None when it is not their turn, or when the turn on screen is older
        than a version their own last action made (it could offer the decision just taken)."""
        turn = self._turn
        if turn is None or (turn.hand, turn.version) < self._acted:
            return None
        return turn

    def hear(self, raw: str | bytes) -> Heard:
        message = json.loads(raw)
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "table.html":
            self.protocol = "area"
            return self._area(message)
        if kind == "action.ok":
            key = (int(message["hand"]), int(message["version"]))
            self._acted = max(self._acted, key)
            return Heard(OK, key)
        if kind == "error":
            words = str(message.get("message"))
            return Heard(STALE if STALE_WORDS in words else REFUSED, words=words)
        return Heard(OTHER)

    def _area(self, message: dict[str, Any]) -> Heard:
        if message.get("hand") is None:  # no hand at the table (yet)
            return Heard(OTHER)
        self.frames += 1
        key = (int(message["hand"]), int(message["version"]))
        if key <= self.shown:
            return Heard(FRAME, key)
        self.shown = key
        self._turn = turn_of_area(str(message["html"]), *key) if message.get("your_turn") else None
        return Heard(FRAME, key, advanced=True)
