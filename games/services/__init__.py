"""Every write of the games app (docs/style.md: services own writes), re-exported by name."""

from games.services.closing import table_close
from games.services.dealing import hand_deal
from games.services.decks import deck_for_new_hand
from games.services.hands import hand_act, hand_apply_timeout
from games.services.proof import hand_dispute_open
from games.services.rulesets import rule_set_create, rule_set_edit, rule_version_freeze
from games.services.seating import (
    seat_leave,
    seat_sit_in,
    seat_sit_out,
    seat_take,
    table_create,
    table_new_game,
)
from games.services.tables import table_start

__all__ = [
    "deck_for_new_hand",
    "hand_act",
    "hand_apply_timeout",
    "hand_deal",
    "hand_dispute_open",
    "rule_set_create",
    "rule_set_edit",
    "rule_version_freeze",
    "seat_leave",
    "seat_sit_in",
    "seat_sit_out",
    "seat_take",
    "table_close",
    "table_create",
    "table_new_game",
    "table_start",
]
