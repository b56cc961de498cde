"""House-rule agreements for each game (docs/design.md "Rulings where the rule documents are silent").

Each is a frozen dataclass with ``to_dict()`` / ``from_dict()`` (JSON) and
``validate()`` returning member-readable errors (empty when the rules are sound).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any, TypeVar

from .errors import EngineError

MIN_TURN_SECONDS = 10  # docs/design.md: turn clock 10 s to 7 days
MAX_TURN_SECONDS = 7 * 24 * 3600

# Amounts stay where the engine and the books handle them (house ruling, docs/hands-and-data.md "Pot limit").
#: the largest ante, blind, bet or match cap a rule set may agree, in cents (1,000.00)
MAX_STAKE = 100_000
#: the most raises a betting round may allow
MAX_RAISES = 20
#: the pot limit: the most a pot carries into the next hand, in cents (1,000,000.00). Piranha
#: losers whose matches would pass it share it equally instead; a carried pot over it is shared
#: out. With the stakes bounded, no pot, award or payment of a hand then passes 10,000,000.00,
#: the largest single amount the ledger posts.
POT_LIMIT = 100_000_000


def _stake_errors(label: str, value: object, *, least: int) -> list[str]:
    if not _is_int(value) or value < least:  # type: ignore[operator]
        return [f"The {label} must be {'at least 1 cent' if least else 'zero or more cents'}"]
    if value > MAX_STAKE:  # type: ignore[operator]
        return [f"The {label} may be at most {MAX_STAKE // 100:,}.00"]
    return []


_R = TypeVar("_R", "PiranhaRules", "PilesRules")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _from_dict(cls: type[_R], data: Mapping[str, Any]) -> _R:
    if not isinstance(data, Mapping):
        raise EngineError("Rules must be an object")
    names = {f.name for f in fields(cls)}
    unknown = set(data) - names - {"game"}
    if unknown:
        raise EngineError(f"Unknown rule: {', '.join(sorted(map(str, unknown)))}")
    kwargs = {k: v for k, v in data.items() if k in names}
    if "stage_bets" in kwargs and isinstance(kwargs["stage_bets"], list):
        kwargs["stage_bets"] = tuple(kwargs["stage_bets"])
    try:
        return cls(**kwargs)
    except TypeError as exc:  # pragma: no cover - defensive
        raise EngineError(f"Rules could not be read: {exc}") from exc


def _turn_errors(turn_seconds: object) -> list[str]:
    if not _is_int(turn_seconds) or not (
        MIN_TURN_SECONDS <= turn_seconds <= MAX_TURN_SECONDS  # type: ignore[operator]
    ):
        return ["The turn clock must be between 10 seconds and 7 days"]
    return []


def _cut_errors(cut_required: object) -> list[str]:
    return [] if isinstance(cut_required, bool) else ["Requiring a cut must be yes or no"]


def _cut_default_left_out(rules: dict[str, Any]) -> dict[str, Any]:
    """Rules as stored: ``cut_required`` only when agreed, so versions agreed before it read the same."""
    if rules.get("cut_required") is False:
        del rules["cut_required"]
    return rules


@dataclass(frozen=True, slots=True)
class PiranhaRules:
    """Piranha house rules. Defaults are docs/design.md's.

    ante: cents each player dealt in antes (piranha.txt 2.1).
    ante_each_hand: False = ante only on the first hand of a game (docs/design.md option).
    match_cap: most a loser pays into the next pot; None = no cap (piranha.txt 1.3, 4.3).
    betting_round: one fixed-limit round after the deal, before the drop (piranha.txt 3.4).
    bet_size / max_raises: the limit and raise cap of that round.
    nobody_in: "carry" = the pot carries to a fresh deal; "split" = the game ends
        and the pot is split among those dealt in (piranha.txt 3.4, docs/design.md).
    turn_seconds: the turn clock (the service runs it; the engine only records it).
    cut_required: a deal waits, one turn clock at most, until a seated player's browser has cut it.
    """

    ante: int = 25
    ante_each_hand: bool = True
    match_cap: int | None = None
    betting_round: bool = False
    bet_size: int = 25
    max_raises: int = 3
    nobody_in: str = "carry"
    turn_seconds: int = 86400
    cut_required: bool = False  # the deal waits (one turn clock) for a seated player's cut (docs/design.md, the cut)

    game = "piranha"
    min_players = 2
    max_players = 11  # piranha.txt 1.1

    def validate(self) -> list[str]:
        errors: list[str] = []
        errors += _stake_errors("ante", self.ante, least=0)
        if not isinstance(self.ante_each_hand, bool):
            errors.append("Ante each hand must be yes or no")
        if self.match_cap is not None:
            errors += _stake_errors("match cap", self.match_cap, least=1)
        if not isinstance(self.betting_round, bool):
            errors.append("The betting round must be on or off")
        errors += _stake_errors("bet size", self.bet_size, least=1)
        if not _is_int(self.max_raises) or not 0 <= self.max_raises <= MAX_RAISES:
            errors.append(f"The raise cap must be from 0 to {MAX_RAISES}")
        if self.nobody_in not in ("carry", "split"):
            errors.append("When nobody stays in, the pot either carries or is split")
        errors += _turn_errors(self.turn_seconds)
        errors += _cut_errors(self.cut_required)
        return errors

    def to_dict(self) -> dict[str, Any]:
        return _cut_default_left_out({"game": self.game, **asdict(self)})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PiranhaRules:
        return _from_dict(cls, data)


@dataclass(frozen=True, slots=True)
class PilesRules:
    """Piles house rules. Defaults are docs/design.md's.

    forced: "ante" (everyone antes ``ante``) or "blinds" (``small_blind`` and
        ``big_blind`` by the two seats after the button) (piles.txt 2.1).
    stage_bets: the fixed limit of each of the nine betting rounds (piles.txt 3.1, 3.3).
    max_raises: raises allowed in a round after the opening bet (docs/design.md: three).
    low_variant: the variation of piles.txt 5.1: repeated ranks allowed in a low,
        every low card five or lower, high must be a full house or better.
    pig_tie_counts: a pig that ties for a half still wins it (docs/design.md option).
    declare_timeout: "fold" or "high", the default declaration when the clock runs out.
    cut_required: a deal waits, one turn clock at most, until a seated player's browser has cut it.
    """

    forced: str = "ante"
    ante: int = 25
    small_blind: int = 10
    big_blind: int = 25
    stage_bets: tuple[int, ...] = (25, 25, 25, 25, 25, 25, 50, 50, 100)
    max_raises: int = 3
    low_variant: bool = False
    pig_tie_counts: bool = False
    declare_timeout: str = "fold"
    turn_seconds: int = 86400
    cut_required: bool = False  # the deal waits (one turn clock) for a seated player's cut (docs/design.md, the cut)

    game = "piles"
    min_players = 2
    max_players = 7  # piles.txt 1.1: five hole cards each and thirteen shared

    def validate(self) -> list[str]:
        errors: list[str] = []
        if self.forced not in ("ante", "blinds"):
            errors.append("Forced bets are either an ante or blinds")
        errors += _stake_errors("ante", self.ante, least=0)
        errors += _stake_errors("small blind", self.small_blind, least=0)
        big_blind_errors = _stake_errors("big blind", self.big_blind, least=1)
        errors += big_blind_errors
        if not big_blind_errors and _is_int(self.small_blind) and self.small_blind > self.big_blind:
            errors.append("The small blind may not be larger than the big blind")
        if (
            not isinstance(self.stage_bets, tuple)
            or len(self.stage_bets) != 9
            or not all(_is_int(b) and b >= 1 for b in self.stage_bets)
        ):
            errors.append("Give nine bet sizes of at least 1 cent, one per stage")
        elif any(b > MAX_STAKE for b in self.stage_bets):
            errors.append(f"Each stage's bet may be at most {MAX_STAKE // 100:,}.00")
        if not _is_int(self.max_raises) or not 0 <= self.max_raises <= MAX_RAISES:
            errors.append(f"The raise cap must be from 0 to {MAX_RAISES}")
        if not isinstance(self.low_variant, bool):
            errors.append("The low variant must be on or off")
        if not isinstance(self.pig_tie_counts, bool):
            errors.append("Pig ties must be yes or no")
        if self.declare_timeout not in ("fold", "high"):
            errors.append("A declaration that times out either folds or declares high")
        errors += _turn_errors(self.turn_seconds)
        errors += _cut_errors(self.cut_required)
        return errors

    def to_dict(self) -> dict[str, Any]:
        out = {"game": self.game, **asdict(self)}
        out["stage_bets"] = list(self.stage_bets)
        return _cut_default_left_out(out)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PilesRules:
        return _from_dict(cls, data)


Rules = PiranhaRules | PilesRules


def rules_from_dict(data: Mapping[str, Any]) -> Rules:
    """Rules of either game from their JSON form (dispatched by "game")."""
    game = data.get("game") if isinstance(data, Mapping) else None
    if game == "piranha":
        return PiranhaRules.from_dict(data)
    if game == "piles":
        return PilesRules.from_dict(data)
    raise EngineError("Rules must name their game: piranha or piles")
