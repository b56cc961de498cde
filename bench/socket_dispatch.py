"""CPU of handing a group message to a process's own sockets: channels' consumer loop against the site's.

    nice .venv/bin/python bench/socket_dispatch.py                   # 300 sockets, 5 rounds of each
    nice .venv/bin/python bench/socket_dispatch.py --sockets 600 --rounds 9

In one process, on the embedded Redis (the site's channel layer, games/live/layer.py), it opens sockets of six a
group without a server: the site's table sockets (games/live/consumer.py ``TableConsumer``), each a player's
with its access as checked on connect, sending to an ASGI send that only counts the frames. Each round puts
public frames (with the players' stamps, as the publisher does) into the groups with ``deliver_here`` and times
this process's CPU until every socket has forwarded every frame (its dispatch, the stamp check, the send, the
latency counted), once with the site's loop (``_serve``) and once with channels' own (``AsyncConsumer.__call__``:
``await_many_dispatch``), alternated. Printed: microseconds of CPU a message a
socket, each round and the medians. The database is not used (an empty one is made for the settings and dropped).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.django_setup import drop_bench_database, setup_bench_django  # noqa: E402 - the root is on the path

DB_NAME = "bench_socket_dispatch"
SEATS = 6
STAMP = 1  # every player's access stamp, as the publisher reads it
# The first group's table id: far above any table a test or the embedded site's club has, so that nothing else
# on the shared embedded Redis sends to these groups.
FIRST_GROUP = 7_000_001


async def round_of(consumer: type, sockets: int, messages: int, *, grant: Callable[[], Any] | None = None) -> float:
    """Microseconds of this process's CPU a message a socket, ``messages`` messages to each of ``sockets``
    (``grant``: makes each socket's access as checked on connect; by default a session that never ends)."""
    from channels.layers import get_channel_layer
    from django.conf import settings

    from games.live.access import Grant
    from games.live.layer import deliver_here, origin
    from games.live.publish import group_channel_name, table_group
    from kernel import metrics

    layer = get_channel_layer()
    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
    groups = sockets // SEATS
    handled = [0]
    opened = asyncio.Semaphore(0)
    ends = asyncio.Event()

    class Socket(consumer):  # type: ignore[misc, valid-type]
        async def websocket_connect(self, message: dict[str, Any]) -> None:
            # What the site's connect leaves on a player's socket (games/live/consumer.py open_groups): their
            # member and their access as checked, at the stamp the publisher sends with each frame.
            self.user = SimpleNamespace(pk=self.scope["user"])
            self.grant = grant() if grant is not None else Grant(None)
            self.grant.stamp = STAMP
            await self.channel_layer.group_add(table_group(self.scope["group"]), self.channel_name)
            opened.release()

        async def websocket_disconnect(self, message: dict[str, Any]) -> None:
            await self.channel_layer.group_discard(table_group(self.scope["group"]), self.channel_name)
            from channels.exceptions import StopConsumer

            raise StopConsumer

    async def send(message: dict[str, Any]) -> None:  # the server's: each frame a socket sends, counted
        if message["type"] == "websocket.send":
            handled[0] += 1

    def client() -> Any:
        said = [False]

        async def receive() -> dict[str, Any]:
            if not said[0]:
                said[0] = True
                return {"type": "websocket.connect"}
            await ends.wait()
            return {"type": "websocket.disconnect", "code": 1000}

        return receive

    app = Socket.as_asgi()
    scopes = [{"type": "websocket", "group": FIRST_GROUP + n // SEATS, "user": n} for n in range(sockets)]
    tasks = [asyncio.ensure_future(app(scope, client(), send)) for scope in scopes]
    for _ in range(sockets):
        await opened.acquire()
    text = "x" * 2000  # a frame's text: only passed along
    sends = [
        (
            group_channel_name(prefix, table_group(FIRST_GROUP + g)),
            metrics.stamped(
                {
                    "type": "table.public",
                    "text": text,
                    "stamps": {str(n): STAMP for n in range(g * SEATS, (g + 1) * SEATS)},
                    "origin": origin(),
                }
            ),
        )
        for g in range(groups)
    ]
    started = time.process_time()
    for _ in range(messages):
        deliver_here(layer, sends)
        await asyncio.sleep(0)
    deadline = time.monotonic() + 120
    while handled[0] < messages * groups * SEATS:
        assert time.monotonic() < deadline, f"{handled[0]} of {messages * groups * SEATS} forwarded"
        await asyncio.sleep(0.001)
    used = time.process_time() - started
    ends.set()
    await asyncio.gather(*tasks)
    return used / (messages * groups * SEATS) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sockets", type=int, default=300, help="sockets, six a group (default 300)")
    parser.add_argument("--messages", type=int, default=200, help="messages to every group a round (default 200)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of each loop, alternated (default 5)")
    args = parser.parse_args()
    setup_bench_django(DB_NAME, rebuild=True)
    try:
        from channels.consumer import AsyncConsumer

        from games.live.consumer import TableConsumer

        class ChannelsLoop(TableConsumer):
            __call__ = AsyncConsumer.__call__  # channels' await_many_dispatch, the same handlers

        loops = {"site": TableConsumer, "channels": ChannelsLoop}
        figures: dict[str, list[float]] = {name: [] for name in loops}
        for n in range(args.rounds):
            for name, consumer in loops.items():
                figures[name].append(asyncio.run(round_of(consumer, args.sockets, args.messages)))
            print(
                f"round {n + 1}: " + ", ".join(f"{name} {values[-1]:.1f} us" for name, values in figures.items()),
                flush=True,
            )
        print(
            f"median of {args.rounds}, CPU a message a socket: "
            + ", ".join(f"{name} {statistics.median(values):.1f} us" for name, values in figures.items())
        )
    finally:
        drop_bench_database(DB_NAME)


if __name__ == "__main__":
    main()
