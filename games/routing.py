"""Websocket routes of the tables and lobbies (frames and close codes: docs/live.md)."""

from typing import Any

from django.urls import path

from games.live.consumer import LobbyConsumer, TableConsumer

websocket_urlpatterns: list[Any] = [
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
    path("ws/clubs/<int:club_id>/lobby/", LobbyConsumer.as_asgi()),
]
