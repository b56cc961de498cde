"""The names other modules send to the Channels groups with (games/live/publish.py does the work)."""

from games.live.publish import (
    announce_flush,
    club_group,
    groups_send,
    lobby_announce,
    table_group,
)
from games.live.publish import table_changed_publish as table_changed_announce

__all__ = ["announce_flush", "club_group", "groups_send", "lobby_announce", "table_changed_announce", "table_group"]
