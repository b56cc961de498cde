"""The publisher PUBLISHes a version's frames itself, in one Redis call (games/live/publish.py): its channel
names and shards must stay the pub/sub channel layer's, or every socket would stop hearing them."""

from __future__ import annotations

import pytest
from channels.layers import get_channel_layer
from channels_redis.utils import _consistent_hash

from games.live.publish import club_group, group_channel_name, mine_group, table_group


@pytest.mark.parametrize("group", [table_group(7), mine_group(31), club_group(3)])
async def test_the_publishers_channel_is_the_layers_own(settings, group: str) -> None:
    layer = get_channel_layer()
    prefix = settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("prefix", "asgi")
    channel = group_channel_name(prefix, group)
    assert channel == layer._get_group_channel_name(group)
    shards = layer._get_layer()._shards
    assert shards[_consistent_hash(channel, len(shards))] is layer._get_shard(channel)
