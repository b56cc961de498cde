"""Websocket routes; each app lists its own."""

from games.routing import websocket_urlpatterns

__all__ = ["websocket_urlpatterns"]
