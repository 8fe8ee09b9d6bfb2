"""A SideQuest message over 64 KiB, before or after the connect, is answered in the
contract's shape (`ERROR {message, reconnect_required}`, never a loreweaver `error`
frame), then the socket closes with 1009 and its slot is given back (docs/sidequest.md)."""

from __future__ import annotations

import json

from loreweaver.testing.metrics import connections_settle, gauge, scrape
from loreweaver.testing.servers import dedicated_server
from loreweaver.wire.tests.sidequest_client import SideQuestClient

KIB = 1024

oversize_server = dedicated_server()


def _huge_action() -> str:
    return json.dumps({"type": "PLAYER_ACTION", "payload": {"action": "x" * (70 * KIB)}, "player_id": ""})


async def test_an_oversized_message_gets_the_contracts_error_then_the_close(oversize_server, room):
    env = oversize_server.env
    start = gauge(scrape(oversize_server), "loreweaver_connections", carrier="sidequest")

    async with await SideQuestClient.open(oversize_server, env.mint(room, "Sam")) as joined:
        assert (await joined.joined("Sam"))["event"] == "connected"
        await joined.send_raw(_huge_action())
        received = await joined.until_closed()
        errors = [m["payload"] for m in received if m["type"] == "ERROR"]
        assert errors and "64 KiB" in errors[-1]["message"], received
        assert errors[-1]["reconnect_required"] is False
        assert joined.close_code == 1009

    async with await SideQuestClient.open(oversize_server) as early:
        await early.send_raw(_huge_action())
        received = await early.until_closed()
        assert [m["type"] for m in received] == ["ERROR"], received
        assert early.close_code == 1009

    assert await connections_settle(oversize_server, "sidequest", start) == start
