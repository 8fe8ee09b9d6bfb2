"""A member whose client falls behind (a slow phone, a busy network) is sent the room's
frames as they come, written to the socket at once while it keeps up, and held in the
server's buffer once it does not: every frame reaches it whole, once, in the room's
order, however the two ways of writing alternate."""

from __future__ import annotations

import asyncio

from loreweaver.testing.clients import WsClient, human_keeper_narrates
from loreweaver.testing.raw_websocket import join_by_hand, read_frame
from loreweaver.testing.servers import dedicated_server

LINE = "The lantern gutters and the shadows lean closer. " * 70  # about 3,500 characters
LINES = 1500  # about 5 MB: more than the sockets between them hold (4 MB at most), so the server buffers

patient_server = dedicated_server(TRPG_TUI__SEND_QUEUE="2000", TRPG_TUI__SEND_BUFFER_BYTES="67108864")


async def test_a_member_who_reads_late_gets_every_frame_whole_and_in_order(patient_server, room):
    await human_keeper_narrates(patient_server, room)  # every line is the turn: no Keeper
    env = patient_server.env
    late = join_by_hand(patient_server.ws_url, env.mint(room, "Late"))
    try:
        async with await WsClient.connect(patient_server.ws_url) as talker:
            await talker.join(env.mint(room, "Talker"))
            for n in range(LINES):
                await talker.say(f"{n} {LINE}")
                await talker.expect("narrative", timeout=10)  # the talker keeps up
            # Only now does the late member read: what it was sent waits in its socket
            # and in the server's buffer behind it.
            told = await asyncio.to_thread(_story_lines_until, late, f"{LINES - 1} ")
    finally:
        late.close()
    assert told == [f"{n} {LINE}" for n in range(LINES)]


def _story_lines_until(sock, last_prefix: str) -> list[str]:
    lines = []
    sock.settimeout(30)
    while not (lines and lines[-1].startswith(last_prefix)):
        frame = read_frame(sock)
        if frame["type"] == "narrative" and frame.get("speaker") == "player":
            lines.append(frame["text"])
    return lines
