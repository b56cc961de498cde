"""The site's channel layer: channels_redis's pub/sub layer, less the trip through Redis to this process's own
sockets (docs/live.md "Groups").

The publisher (games/live/publish.py) puts a group message straight into the queue of every socket of this
process in that group, on the socket's event loop (``deliver_here``), and PUBLISHes it to Redis only when a
subscriber other than this process listens (``PUBLISH_BEYOND``: one script call a version). The message
carries this process's ``origin``; when another process's subscriber makes Redis echo it back here, this
layer's receiver drops it. So each process's sockets get each message once, in the order it was sent.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import uuid
from collections.abc import Sequence
from typing import Any

import redis
from channels_redis.pubsub import RedisPubSubChannelLayer, RedisPubSubLoopLayer, RedisSingleShardConnection
from channels_redis.utils import _wrap_close

from kernel.pools import kept_in_thread

# For each channel KEYS[i], in order: PUBLISH its message ARGV[2i-1] only when it has more subscribers than
# ARGV[2i] (this process's own, served already). One call for a version's messages to one Redis.
PUBLISH_BEYOND = """
for i, channel in ipairs(KEYS) do
  if redis.call('PUBSUB', 'NUMSUB', channel)[2] > tonumber(ARGV[2 * i]) then
    redis.call('PUBLISH', channel, ARGV[2 * i - 1])
  end
end
return 0
"""
# The script's name in Redis (EVALSHA): Redis names scripts by their SHA-1.
PUBLISH_BEYOND_SHA = hashlib.sha1(PUBLISH_BEYOND.encode(), usedforsecurity=False).hexdigest()

_BOOT = uuid.uuid4().hex[:12]


def command(client: redis.Redis, *args: Any) -> Any:
    """``args`` sent as one Redis command to ``client``'s server, and its reply as Redis gave it (bytes, ints,
    lists; an error reply raised). For the commands of every action (the access stamps, the publisher's script):
    redis-py's own call wraps each command in layers these do not use (retries with backoff, reply callbacks,
    observability hooks, event dispatch), and writes a command with a long argument (a frame) in one system call
    per piece: here one write a command (bench/access_path.py). Each thread sends on a connection of its own
    (``kept_in_thread``), not one lent by the client's pool, whose lending takes its lock, checks the connection
    with a system call and dispatches events each time. A command that failed closes its connection (no
    half-read reply reaches the next); one that found its connection broken since its last command (a Redis
    restart: Redis ran nothing of it) is sent once more on a new one."""
    pool = client.connection_pool
    connection = kept_in_thread("redis command", pool, lambda: pool.connection_class(**pool.connection_kwargs))
    fresh = connection._sock is None  # new, or closed by a failed command: it connects on sending
    try:
        return _sent(connection, args)
    except redis.ConnectionError:
        if fresh:
            raise
        return _sent(connection, args)


def _sent(connection: redis.Connection, args: tuple[Any, ...]) -> Any:
    try:
        connection.send_packed_command([b"".join(connection.pack_command(*args))])
        return connection.read_response()
    except redis.ResponseError:  # an error reply, read whole: the connection is sound
        raise
    except BaseException:
        connection.disconnect()
        raise


def origin() -> str:
    """This process's name on the messages it sends: a forked child has a name of its own."""
    return f"{_BOOT}.{os.getpid()}"


class _Shard(RedisSingleShardConnection):
    def _receive_message(self, message: Any) -> None:
        """The layer's receiver, less the messages this process sent (its own sockets have them already), each
        decoded once for all the sockets it goes to, not once by each."""
        if message is None:
            return
        name = message["channel"]
        name = name.decode() if isinstance(name, bytes) else name
        sent = self.channel_layer.channel_layer.deserialize(message["data"])
        if isinstance(sent, dict) and sent.get("origin") == origin():
            return
        _put(self.channel_layer, [(name, sent)])


class _LoopLayer(RedisPubSubLoopLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        shards: list[RedisSingleShardConnection] = self._shards  # type: ignore[has-type]
        self._shards = [_Shard(shard.host, self) for shard in shards]


class LiveChannelLayer(RedisPubSubChannelLayer):
    """channels_redis's pub/sub layer whose receivers drop this process's own messages (``deliver_here``
    served them), and whose sockets' queues hold each message decoded once, the same object for every socket
    it goes to: no decode per socket, and the frame a socket last handled (its dispatch loop keeps it) is
    not a copy of its own. Handlers only read a message."""

    def deserialize(self, message: Any) -> Any:
        return message if isinstance(message, dict) else super().deserialize(message)

    def _get_layer(self) -> RedisPubSubLoopLayer:
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            layer = self._layers[loop] = _LoopLayer(*self._args, **self._kwargs, channel_layer=self)
            _wrap_close(self, loop)
        return layer


def deliver_here(layer: LiveChannelLayer, sends: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, int]:
    """Put each (group's Redis channel, message) into the queue of every socket of this process that joined
    the group, on that socket's event loop, in order; called from any thread. Returns, for each group's
    channel, how many of this process's subscribers (one per event loop) were served."""
    served: dict[str, int] = {}
    for loop, loop_layer in list(layer._layers.items()):
        groups = loop_layer.groups
        here = [(channel, data) for channel, data in sends if channel in groups]
        if not here:
            continue
        try:
            loop.call_soon_threadsafe(_put, loop_layer, here)
        except RuntimeError:  # its loop has closed
            continue
        for channel, _data in here:
            served[channel] = served.get(channel, 0) + 1
    return served


def _put(loop_layer: RedisPubSubLoopLayer, sends: Sequence[tuple[str, Any]]) -> None:
    """On the loop: each (channel, message) into the queue of the socket of that channel, or of each socket in
    the group of that channel (channels_redis's receiver, with a decoded message)."""
    channels = loop_layer.channels
    for channel, sent in sends:
        if channel in channels:
            channels[channel].put_nowait(sent)
            continue
        for name in tuple(loop_layer.groups.get(channel, ())):
            queue = channels.get(name)
            if queue is not None:
                queue.put_nowait(sent)
