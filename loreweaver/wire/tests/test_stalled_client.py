"""A client that stops reading neither blocks its room nor grows server memory without
bound: its frames queue up to a bound, then the server disconnects it.

Policy: a connection may have TRPG_TUI__SEND_QUEUE frames waiting in its session and,
on WebSocket, TRPG_TUI__SEND_BUFFER_BYTES waiting in the transport once the kernel's
socket buffer is full; past either bound it is closed and leaves the room's presence.
"""

from __future__ import annotations

import re

import psutil

from loreweaver.testing.clients import IrohClient, WsClient, human_keeper_narrates
from loreweaver.testing.raw_websocket import join_by_hand
from loreweaver.testing.servers import dedicated_server
from rooms.keys import member_id_for

LINE = "The rain does not stop. " * 160  # about 3,800 characters, under the 4,000 cap
FLOOD = 1500  # at most about 6 MB per reader: far past every bound
AFTER_THE_DROP = 64  # lines the room goes on after the drop (a send queue's worth)


strict_server = dedicated_server(TRPG_TUI__SEND_QUEUE="64", TRPG_TUI__SEND_BUFFER_BYTES="65536")


def _names(presence: dict) -> list[str]:
    return [player["name"] for player in presence["players"]]


async def _flood_and_watch(server, talker_key, watcher_key, stalled_name: str):
    """Flood the room until the stalled member has been dropped and the room has gone on
    for a send queue's worth of lines more; return (the presence frames the watcher saw,
    server RSS growth in bytes)."""
    process = psutil.Process(server.pid)
    async with (
        await WsClient.connect(server.ws_url) as talker,
        await WsClient.connect(server.ws_url) as watcher,
    ):
        await talker.join(talker_key)
        joined = await watcher.join(watcher_key)
        before = process.memory_info().rss
        presence_seen = [frame for frame in joined if frame["type"] == "presence"]
        # A drop is the stalled member leaving a presence that held them.
        present = any(stalled_name in _names(frame) for frame in presence_seen)
        dropped_at = None
        for n in range(FLOOD):
            await talker.say(f"{n} {LINE}")
            while True:  # the watcher reads everything: the room keeps flowing for it
                frame = await watcher.recv(timeout=10)
                if frame["type"] == "presence":
                    presence_seen.append(frame)
                    if stalled_name in _names(frame):
                        present = True
                    elif present and dropped_at is None:
                        dropped_at = n
                if frame["type"] == "narrative":
                    assert frame["text"].startswith(f"{n} ")
                    break
            if dropped_at is not None and n >= dropped_at + AFTER_THE_DROP:
                break
        growth = process.memory_info().rss - before
    return presence_seen, growth


async def test_a_websocket_client_that_stops_reading_is_disconnected(strict_server, room):
    await human_keeper_narrates(strict_server, room)  # a flood of lines, no Keeper turns
    env = strict_server.env
    stalled_key, talker_key, watcher_key = (env.mint(room, n) for n in ("Stuck", "Talker", "Watcher"))
    stalled = join_by_hand(strict_server.ws_url, stalled_key)
    try:
        presence_seen, growth = await _flood_and_watch(strict_server, talker_key, watcher_key, "Stuck")
    finally:
        stalled.close()
    assert presence_seen, "the stalled member left the room's presence during the flood"
    assert "Stuck" not in [p["name"] for p in presence_seen[-1]["players"]]
    assert growth < 64 * 1024 * 1024
    _the_drop_is_logged(strict_server, stalled_key)


def _the_drop_is_logged(server, key: str) -> None:
    """The operator's log names who was dropped and how much they were owed."""
    dropped = re.search(
        rf"member={re.escape(member_id_for(key))} stopped reading with \d+ frames, (\d+) bytes owed; dropped",
        server.log_text(),
    )
    assert dropped, server.log_text()[-2000:]
    assert int(dropped.group(1)) > 0


async def test_an_iroh_client_that_stops_reading_is_disconnected(strict_server, room):
    await human_keeper_narrates(strict_server, room)  # a flood of lines, no Keeper turns
    env = strict_server.env
    stalled_key, talker_key, watcher_key = (env.mint(room, n) for n in ("Frozen", "Talker", "Watcher"))
    stalled = await IrohClient.connect(strict_server.ticket)
    await stalled.join(stalled_key)  # ... and never reads again
    try:
        presence_seen, growth = await _flood_and_watch(strict_server, talker_key, watcher_key, "Frozen")
    finally:
        await stalled.close()
    assert presence_seen, "the stalled member left the room's presence during the flood"
    assert "Frozen" not in [p["name"] for p in presence_seen[-1]["players"]]
    assert growth < 64 * 1024 * 1024
    _the_drop_is_logged(strict_server, stalled_key)
