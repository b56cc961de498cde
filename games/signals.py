"""What games tells, or asks of, the apps above it, without importing them: the notices app connects its
receivers in ``NoticesConfig.ready`` (notices/apps.py). docs/architecture.md "Notices".

And what the services tell the live wing above them after a commit (``versions_publish``,
``table_changed_publish``, ``lobby_announce``, ``chat_announce``): ``GamesConfig.ready`` (games/apps.py)
connects the publishers of games/live/publish.py, so the services never import the live wing.

A running hand has one alarm (games/services/alarms.py): games sets it for the hand's clocks running out,
and asks the apps above whether they need it to ring earlier for the seats it waits for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.dispatch import Signal

if TYPE_CHECKING:
    from games.models import Hand
    from games.selectors.snapshot import Carried

#: A hand's alarm is being set. kwargs: ``clocks`` (the hand's clock entries by seat: games/services/clocks.py
#: ``turn_clocks``) and ``now``; each receiver returns the moments after ``now`` at which it needs the alarm
#: to ring (notices: a waiting seat's "your turn" notice and reminder), an empty list when none.
hand_alarm_moments = Signal()

#: A hand's alarm rang. kwargs: ``hand_id`` and ``now``; each receiver does what is due in that hand by
#: ``now`` (notices: sends the turn notices and reminders due) and makes a second ring a no-op.
hand_alarm_rang = Signal()


def moments_of(responses: Sequence[tuple[object, object]]) -> list[datetime]:
    """Every moment the receivers returned."""
    return [moment for _, found in responses if isinstance(found, list) for moment in found]


# ---- what a committed change tells the live wing --------------------------------------------------

#: Hands changed in one transaction. kwargs: ``touched`` (each hand with the version it had before: -1, dealt
#: in it), ``club_id``, ``known`` (what the transaction knew of each hand beside its row, by hand id, or None).
versions_committed = Signal()

#: A table's seats, ruling or clocks changed. kwargs: ``table_id``, ``club_id``.
table_changed = Signal()

#: A club's table opened or closed. kwargs: ``club_id``.
lobby_changed = Signal()

#: A chat message for a table's sockets (a line said or hidden). kwargs: ``table_id``, ``message``.
chat_said = Signal()


def versions_publish(
    touched: Sequence[tuple[Hand, int]], club_id: int, known: Mapping[int, Carried] | None = None
) -> None:
    """On commit: the table's frames of each hand ``touched`` at its new version."""
    versions_committed.send(sender=None, touched=touched, club_id=club_id, known=known)


def table_changed_publish(table_id: int, club_id: int) -> None:
    """On commit of a seat change, a ruling or a clock moved: the table's full frames, then the lobby."""
    table_changed.send(sender=None, table_id=table_id, club_id=club_id)


def lobby_announce(club_id: int) -> None:
    """A table opened or closed: the club's lobby pages re-render."""
    lobby_changed.send(sender=None, club_id=club_id)


def chat_announce(table_id: int, message: dict[str, Any]) -> None:
    """A chat message to the table's sockets."""
    chat_said.send(sender=None, table_id=table_id, message=message)
