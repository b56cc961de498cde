"""The Celery app: broker on Redis, configuration from Django settings (CELERY_*)."""

import os
from typing import Any

from celery import Celery
from kombu.transport import TRANSPORT_ALIASES
from kombu.transport import redis as kombu_redis

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")  # development: scripts/dev.py


class _Channel(kombu_redis.Channel):
    """kombu's Redis channel with its client for commands kept: kombu makes a new redis-py client around the
    channel's connection pool for every command it sends (each task sent: a hand's alarm, a computer turn), and
    redis-py builds its reply handlers anew each time: a fifth to a third of a task's send (docs/live.md "Machinery").
    The client is the pool's: made again when the channel makes a new pool (after a lost connection or a fork)."""

    _kept: Any = None

    def _create_client(self, asynchronous: bool = False) -> Any:
        if asynchronous:  # the consumer's own clients (the worker's BRPOP and LISTEN), kept by kombu already
            return super()._create_client(asynchronous=True)  # type: ignore[misc] # kombu's stubs omit it
        client = self._kept
        if client is None or client.connection_pool is not self.pool:
            client = self._kept = super()._create_client()  # type: ignore[misc]
        return client


class RedisTransport(kombu_redis.Transport):
    """kombu's Redis transport, its channels keeping their client (``_Channel``)."""

    Channel = _Channel


# The broker's URL keeps its scheme (the worker's log says "Connected to redis://..."), which now names this
# transport: set when this module loads, with the ``config`` package, before any connection is made.
for _scheme in ("redis", "rediss"):
    TRANSPORT_ALIASES[_scheme] = "config.celery:RedisTransport"

app = Celery("club")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
