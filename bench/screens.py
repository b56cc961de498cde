"""What a bot's screen shows, read from the frames of its table socket: the one place that knows the live
wing's frames (games/consumers.py on main, games/live/ and docs/live.md after issue 27), so that
bench/load.py's bots (and bench/live_parts.py, through ``bench.load.choose``) play whatever the server
sends.

A ``Screen`` is fed every text frame the socket receives (``hear``) and keeps:
- ``shown``: the newest (hand, version) the screen shows whole (hand ids only grow, so keys order versions):
  with the frames protocol, its public frame and, when the member's own part changed, their private frame;
- ``turn``: what the member may do now, when the hand waits for them (the buttons offered and the hand's
  strength as the screen words it), or None.

Protocols (told apart by the frames themselves; ``protocol`` names the one heard):
- ``area`` (main before the live wing's rebuild): each socket is pushed its member's whole table area,
  ``{"type": "table.html", "hand", "version", "your_turn", "html"}``, after every version it has not shown.
- ``frames`` (docs/live.md, issue 27): a ``table.public`` frame per version, the same bytes for every
  viewer (ordered by ``(hand, version, at)``; ``marks``: per seat the version its own part last changed;
  ``full``: every seated member's part changed), and a ``table.private`` frame to a member only when their
  own part changed (``parts``: their hand, buttons and seat row; ``your_turn``). A turn is taken from the
  private frame once its public frame is there, against the newest public frame's version (as the
  page's script sets the form's version). A private part that the public frame says is older than the
  member's mark disables the buttons; still behind at the next public frame, or after ``SYNC_AFTER``
  seconds, the screen asks ``sync`` (one full render), as static/js/table.js does.
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
PILES_BEST = re.compile(
    r"Your best legal high: <strong>([^<]*)</strong>\. Your best legal low: <strong>([^<]*)</strong>"
)
STALE_WORDS = "moved on"  # games/errors.py StaleVersion: another action came first
SYNC_AFTER = 1.5  # seconds a private part may stay behind its public frame (docs/live.md, "Gaps")
Order = tuple[int, int, int]  # (hand, version, at) of the frames protocol

# Heard.kind
FRAME, OK, STALE, REFUSED, OTHER = "frame", "ok", "stale", "refused", "other"


@dataclass(frozen=True, slots=True)
class Strength:
    """The best high hand's category (engine/evaluate.py: 0 high card .. 8 straight flush; None: no
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
    reply: str | None = None  # a frame the bot must send now (``sync``)


@dataclass(frozen=True, slots=True)
class Private:
    """A member's newest private frame (the frames protocol)."""

    order: Order
    seat: int | None
    your_turn: bool
    offers: tuple[str, ...]
    strength: Strength


def high_category(name: str) -> int | None:
    """The category of a high hand named as engine/evaluate.py's ``high_name`` names it (0 high card ..
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


GAME_OVER = "The game is over."  # the area's words at a game's last hand (templates/jinja2/games/area.jinja)


class Screen:
    """One socket's screen. ``ready`` once it shows its table (its first table frame)."""

    def __init__(self) -> None:
        self.protocol: str | None = None
        self.shown: Key = NOTHING
        self.frames = 0  # table frames received (the frames protocol: public ones)
        self.private_frames = 0
        self.game_over = False  # the table's game ended (piranha.txt 3.3): it deals no more
        self._turn: Turn | None = None  # the area protocol's
        self._acted: Key = NOTHING  # the newest version this member's own action made (action.ok)
        # The frames protocol's: the newest public frame's order, marks and fullness, the newest private frame,
        # and since when (monotonic) the private part has been behind the public frame.
        self._public: Order = (-1, -1, -1)
        self._marks: dict[str, int] = {}
        self._full = False
        self._private: Private | None = None
        self._behind_since: float | None = None

    @property
    def ready(self) -> bool:
        return self.protocol is not None

    @property
    def turn(self) -> Turn | None:
        """What the member may do now: None when it is not their turn, or when the turn on screen is older
        than a version their own last action made (it could offer the decision just taken)."""
        turn = self._turn if self.protocol != "frames" else self._private_turn()
        if turn is None or (turn.hand, turn.version) < self._acted:
            return None
        return turn

    def hear(self, raw: str | bytes, now: float = 0.0) -> Heard:
        message = json.loads(raw)
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "table.html":
            self.protocol = "area"
            return self._area(message)
        if kind == "table.public":
            self.protocol = "frames"
            return self._public_frame(message, now)
        if kind == "table.private":
            self.private_frames += 1
            return self._private_frame(message)
        if kind == "action.ok":
            key = (int(message["hand"]), int(message["version"]))
            self._acted = max(self._acted, key)
            return Heard(OK, key)
        if kind == "error":
            words = str(message.get("message"))
            return Heard(STALE if STALE_WORDS in words else REFUSED, words=words)
        return Heard(OTHER)

    def sync_due(self, now: float) -> str | None:
        """``sync`` when the private part has been behind its public frame for SYNC_AFTER seconds."""
        if self._behind_since is not None and now - self._behind_since >= SYNC_AFTER:
            self._behind_since = None  # asked: the full render answers
            return sync_message()
        return None

    # -- the area protocol --

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

    # -- the frames protocol --

    def _public_frame(self, message: dict[str, Any], now: float) -> Heard:
        if message.get("hand") is None:
            return Heard(OTHER)
        self.frames += 1
        order = (int(message["hand"]), int(message["version"]), int(message.get("at") or 0))
        key = order[:2]
        if order <= self._public:
            return Heard(FRAME, key)
        was_behind = self._behind_since is not None
        self._public, self._full = order, bool(message.get("full"))
        self.game_over = bool(message.get("finished")) and GAME_OVER in str(message.get("html", ""))
        self._marks = {str(k): int(v) for k, v in (message.get("marks") or {}).items()}
        reply = None
        if self._private_behind():
            if was_behind:  # still behind at the next public frame: one full render
                reply, self._behind_since = sync_message(), None
            elif self._behind_since is None:
                self._behind_since = now
            return Heard(FRAME, key, reply=reply)  # not whole yet: the member's own part is to come
        self._behind_since = None
        return self._whole()

    def _whole(self) -> Heard:
        """The screen shows the newest public frame with its member's part up to date."""
        key = self._public[:2]
        advanced = key > self.shown
        self.shown = max(self.shown, key)
        return Heard(FRAME, key, advanced=advanced)

    def _private_frame(self, message: dict[str, Any]) -> Heard:
        if message.get("hand") is None:
            return Heard(OTHER)
        order = (int(message["hand"]), int(message["version"]), int(message.get("at") or 0))
        if self._private is not None and order <= self._private.order:
            return Heard(OTHER)
        was_behind = self._private_behind()
        parts = message.get("parts") or {}
        html = "".join(str(v) for v in parts.values()) if isinstance(parts, dict) else ""
        seat = message.get("seat")
        self._private = Private(
            order,
            None if seat is None else int(seat),
            bool(message.get("your_turn")),
            tuple(BUTTON.findall(html)),
            strength_of(html),
        )
        if was_behind and not self._private_behind():  # the part the public frame waited for
            self._behind_since = None
            return self._whole()
        return Heard(OTHER)

    def _private_behind(self) -> bool:
        """Whether the newest public frame says this member's own part changed after the private frame held."""
        private = self._private
        if private is None:
            return False  # a spectator, or the connect's full render still to come
        if self._full and self._public > private.order:
            return True
        mark = self._marks.get(str(private.seat)) if private.seat is not None else None
        return mark is not None and (self._public[0], mark) > private.order[:2]

    def _private_turn(self) -> Turn | None:
        private = self._private
        if private is None or not private.your_turn or self._private_behind():
            return None
        hand, version = self._public[:2]
        if private.order[:2] > (hand, version) or private.order[0] != hand:  # its public frame is not here yet
            return None
        return Turn(hand, version, private.offers, private.strength)
