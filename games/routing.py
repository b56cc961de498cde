"""Websocket routes of the tables and lobbies (close codes and messages: games/consumers.py)."""

from typing import Any

from django.urls import path

from games.consumers import LobbyConsumer, TableConsumer

websocket_urlpatterns: list[Any] = [
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
    path("ws/clubs/<int:club_id>/lobby/", LobbyConsumer.as_asgi()),
]
