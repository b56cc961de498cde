"""The worked examples of the rule documents, as the how-to-play pages draw them.

The cards are the documents' own (piranha.txt, Article 4 example "Any mix of cards may
play"; piles.txt "One hand, both ways"); the hands each makes are read from the engine
when the page is drawn, and the tests check the engine agrees with the documents.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.cards import parse_cards
from engine.evaluate import piles_best_high, piles_best_low, piranha_best


@dataclass(frozen=True)
class PiranhaExample:
    board_up: tuple[str, ...] = ("7c", "7d", "Kh")  # face up at the deal
    board_turned: tuple[str, ...] = ("2s", "9c")  # turned after the drop
    players: tuple[tuple[str, tuple[str, ...]], ...] = (
        ("A", ("Kd", "Ks", "4h", "5h")),
        ("B", ("7s", "8c", "3d", "3h")),
    )

    def hands(self) -> list[dict[str, Any]]:
        """Each player's best five from hole + board: name, the five cards, how many are hole cards."""
        board = parse_cards(" ".join(self.board_up + self.board_turned))
        out: list[dict[str, Any]] = []
        for name, hole in self.players:
            value = piranha_best(parse_cards(" ".join(hole)), board)
            used = [c.code for c in value.cards]
            out.append(
                {
                    "player": name,
                    "hole": list(hole),
                    "name": value.name,
                    "cards": used,
                    "from_hole": sum(1 for c in used if c in hole),
                    "value": value,
                }
            )
        best = max(h["value"] for h in out)
        for h in out:
            h["wins"] = h["value"] == best
        return out


@dataclass(frozen=True)
class PilesExample:
    square1: tuple[str, ...] = ("3d", "8s", "Jh", "Jc")  # pile 1
    square2: tuple[str, ...] = ("Ac", "4s", "9h", "Qd")  # pile 2
    row: tuple[str, ...] = ("5h", "Jd", "2c", "Ks", "7d")  # pile 3
    hole: tuple[str, ...] = ("Js", "9c", "6d", "3h", "2s")

    def hands(self) -> dict[str, Any]:
        """The holding's best high and best low: name and the five cards of each."""
        hole, square1, square2, row = (
            parse_cards(" ".join(cards)) for cards in (self.hole, self.square1, self.square2, self.row)
        )
        high, low = piles_best_high(hole, square1, square2, row), piles_best_low(hole, square1, square2, row)
        assert high is not None and low is not None
        return {
            "high": {"name": high.name, "full_name": high.full_name, "cards": [c.code for c in high.cards]},
            "low": {"name": low.name, "cards": [c.code for c in low.cards]},
        }


EXAMPLES: dict[str, Any] = {"piranha": PiranhaExample(), "piles": PilesExample()}
