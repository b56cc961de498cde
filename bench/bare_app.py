"""The baseline of bench/load.py: a bare Channels app on the same stack (uvicorn, the pub/sub channel
layer on Redis, PostgreSQL). One consumer: each message is one INSERT and one SELECT, then a group send
to the six sockets of its group, each of which forwards it. Served by the same server command as the
site: ``uvicorn bench.bare_app:application``."""

from __future__ import annotations

import json
import os
from typing import Any

import django
from django.conf import settings

if not settings.configured:
    import dj_database_url

    settings.configure(
        DEBUG=False,
        INSTALLED_APPS=["channels"],
        SECRET_KEY=os.environ.get("SECRET_KEY", ""),
        ALLOWED_HOSTS=["*"],
        DATABASES={"default": dj_database_url.parse(os.environ["DATABASE_URL"], conn_max_age=60)},
        CHANNEL_LAYERS={
            "default": {
                "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
                "CONFIG": {"hosts": [os.environ["REDIS_URL"]], "prefix": "bare"},
            }
        },
    )
    django.setup()

from channels.db import database_sync_to_async  # noqa: E402
from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.db import connection  # noqa: E402
from django.urls import path  # noqa: E402


def _write_and_read(group: int, seq: int) -> int:
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO bench_bare (grp, seq) VALUES (%s, %s)", [group, seq])
        cursor.execute("SELECT count(*) FROM bench_bare WHERE grp = %s AND seq = %s", [group, seq])
        return int(cursor.fetchone()[0])


class BareConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = int(self.scope["url_route"]["kwargs"]["group"])
        await self.channel_layer.group_add(f"bare.{self.group}", self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(f"bare.{self.group}", self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        message = json.loads(text_data or "{}")
        seq = int(message.get("seq", 0))
        await database_sync_to_async(_write_and_read)(self.group, seq)
        await self.channel_layer.group_send(f"bare.{self.group}", {"type": "bare.update", "seq": seq})

    async def bare_update(self, event: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps({"type": "update", "seq": event["seq"]}))


application = ProtocolTypeRouter({"websocket": URLRouter([path("bare/<int:group>/", BareConsumer.as_asgi())])})
