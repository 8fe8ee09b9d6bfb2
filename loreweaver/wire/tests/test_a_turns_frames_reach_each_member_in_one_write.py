"""A turn's frames reach each member who watches it in one write: its line and the
table's `state` after it leave the server as one piece (one TCP segment on loopback),
not one per frame (docs/performance.md, "One write per member for a turn's frames")."""

from __future__ import annotations

import socket
import struct

from loreweaver.testing.clients import WsClient, human_keeper_narrates, settle

# `struct tcp_info` (linux/tcp.h): tcpi_segs_in, the segments the socket received.
_SEGS_IN = 140


def _segments_in(client: WsClient) -> int:
    raw = client.socket.transport.get_extra_info("socket")
    info = raw.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    return struct.unpack_from("I", info, _SEGS_IN)[0]


async def test_a_watching_member_gets_a_lines_frames_in_one_segment(server, room):
    await human_keeper_narrates(server, room)  # story lines get no Keeper turn
    env = server.env
    async with await WsClient.connect(server.ws_url) as ann, await WsClient.connect(server.ws_url) as bo:
        await ann.join(env.mint(room, "Ann"))
        await bo.join(env.mint(room, "Bo"))
        await settle(bo)  # Bo sends nothing from here on: all Bo receives is the server's frames
        before = _segments_in(bo)

        await ann.say("I light the lamp.")
        await bo.expect("narrative", text="I light the lamp.")
        await bo.expect("state")

        assert _segments_in(bo) - before == 1
