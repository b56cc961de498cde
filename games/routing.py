"""Websocket routes of the tables and lobbies."""

from typing import Any

websocket_urlpatterns: list[Any] = []
