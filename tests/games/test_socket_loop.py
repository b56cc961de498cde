"""The sockets' own loop (games/live/consumer.py ``_serve``, docs/live.md "Machinery"): a socket's handlers run one at
a time, whether the message came from its client or from a group, and a handler that fails on a group message
closes its socket (1011) instead of leaving it open and deaf. On the site's channel layer (Redis)."""

from __future__ import annotations

import asyncio
from typing import Any

from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from games.live.consumer import _JsonConsumer
from games.live.frames import CLOSE_SERVER_ERROR


class Probe(_JsonConsumer):
    """A socket of the site's kind whose handlers say when they run: the client's takes a while."""

    channels: list[str] = []  # of every socket opened, in order

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: list[str] = []

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        Probe.channels.append(self.channel_name)
        await self.channel_layer.group_add(self.scope["group"], self.channel_name)
        await self.accept()

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        self.seen.append("client begins")
        await asyncio.sleep(0.3)  # as an action awaiting its database work
        self.seen.append("client ends")
        await self.send(text_data=",".join(self.seen))

    async def probe_word(self, event: dict[str, Any]) -> None:
        self.seen.append("group")
        await self.send(text_data=",".join(self.seen))

    async def probe_fail(self, event: dict[str, Any]) -> None:
        raise RuntimeError("a handler's fault")


async def _opened(group: str) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(Probe.as_asgi(), "/probe/")
    comm.scope["group"] = group
    connected, _ = await comm.connect(timeout=5)
    assert connected
    return comm


async def test_a_group_message_waits_for_the_client_messages_handler() -> None:
    group = "probe.one-at-a-time"
    comm = await _opened(group)
    await comm.send_to(text_data="act")
    await asyncio.sleep(0.05)  # the client's handler has begun
    await get_channel_layer().group_send(group, {"type": "probe.word"})
    assert await comm.receive_from(timeout=5) == "client begins,client ends"
    assert await comm.receive_from(timeout=5) == "client begins,client ends,group"
    await comm.disconnect()


async def test_a_handler_failing_on_a_group_message_closes_its_socket_which_then_leaves_its_channel() -> None:
    group = "probe.failing"
    comm = await _opened(group)
    layer = get_channel_layer()
    await layer.group_send(group, {"type": "probe.fail"})
    closed = await comm.receive_output(timeout=5)
    assert (closed["type"], closed["code"]) == ("websocket.close", CLOSE_SERVER_ERROR)
    await layer.group_send(group, {"type": "probe.word"})  # read and dropped
    assert await comm.receive_nothing(timeout=0.3)
    await comm.disconnect()
    assert Probe.channels[-1] not in layer._get_layer().channels  # its queue and its subscription gone
