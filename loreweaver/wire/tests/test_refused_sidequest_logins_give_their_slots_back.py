"""A SideQuest login the server refuses (a wrong key in the payload or the URL, no key,
a room not open to any name) closes the connection and gives back its slot, even when
the client sends actions at once, before the refusal came (docs/sidequest.md,
"Joining"). Nothing is played for it; afterwards the server's whole cap still joins, on
both carriers."""

from __future__ import annotations

import asyncio

from loreweaver.testing.clients import WsClient
from loreweaver.testing.metrics import connections_settle, gauge, scrape
from loreweaver.testing.servers import dedicated_server
from loreweaver.wire.tests.sidequest_client import SideQuestClient

CAP = 6
REFUSED_LOGINS = 50

# Wrong keys are free here: the throttle that makes each one wait longer is tested
# elsewhere (test_limits_before_join.py), and would only slow this down.
# The whole cap may shake hands at once: it connects before it joins.
capped_server = dedicated_server(
    TRPG_TUI__MAX_CONNECTIONS=str(CAP),
    TRPG_TUI__HANDSHAKE_CONNECTIONS=str(CAP),
    TRPG_RATE__BAD_KEYS_FREE="1000",
)


async def _refused_login(server, room: str, number: int) -> list[dict]:
    """One refused login followed at once by actions; what the client got before the close."""
    variant = number % 4
    client = await SideQuestClient.open(server, "not-a-key" if variant == 0 else None)
    try:
        if variant == 0:  # a wrong key in the URL
            await client.connect("Intruder")
        elif variant == 1:  # a wrong key in the payload
            await client.connect("Intruder", key=f"wrong-{number}")
        elif variant == 2:  # no key at all
            await client.connect("Intruder")
        else:  # a room its operator never opened to any name
            await client.connect("Intruder", world=room)
        await client.act("I slip past the guard.")
        await client.act("/status")
        await client.act("/gm dmg Hero 3")
        await client.send("CHARACTER_CREATION", {"phase": "scene", "choice": "Yes"})
        return await client.until_closed()
    finally:
        await client.close()


async def test_refused_logins_followed_by_actions_leave_every_slot_free(capped_server, room):
    env = capped_server.env
    async with await WsClient.connect(capped_server.ws_url) as host:
        await host.join(env.mint(room, "Host", "keeper"))  # the room exists
    # The baseline is read once the host's own connection is torn down (the server's
    # only other one): read sooner, it can still count the host.
    await connections_settle(capped_server, "ws", 0)
    before = await asyncio.to_thread(scrape, capped_server)

    for number in range(REFUSED_LOGINS):
        received = await _refused_login(capped_server, room, number)
        kinds = {message["type"] for message in received}
        assert kinds == {"ERROR"}, (number, received)  # never a turn, a sheet or a join
        assert received[0]["payload"]["reconnect_required"] is False, (number, received)

    # The server tears each down once it sees the close: every slot comes back.
    for carrier in ("sidequest", "ws"):
        start = gauge(before, "loreweaver_connections", carrier=carrier)
        assert await connections_settle(capped_server, carrier, start) == start, carrier
    log = capped_server.log_text()
    assert "Traceback" not in log and "Exception inside application" not in log, log[-4000:]

    # The whole cap joins, on both carriers, and nobody else is present.
    loreweaver = [await WsClient.connect(capped_server.ws_url) for _ in range(CAP // 2)]
    sidequest = [
        await SideQuestClient.open(capped_server, env.mint(room, f"Quester {n}")) for n in range(CAP // 2)
    ]
    try:
        joins = await asyncio.gather(
            *(client.join(env.mint(room, f"Weaver {n}")) for n, client in enumerate(loreweaver)),
            *(client.joined(f"Quester {n}") for n, client in enumerate(sidequest)),
        )
        assert [frames[0]["type"] for frames in joins[: CAP // 2]] == ["welcome"] * (CAP // 2)
        assert all(event["event"] in ("connected", "ready") for event in joins[CAP // 2 :])
        settled = await loreweaver[0].expect("presence", online=CAP, timeout=15)
        assert sorted(p["name"] for p in settled["players"]) == sorted(
            [f"Weaver {n}" for n in range(CAP // 2)] + [f"Quester {n}" for n in range(CAP // 2)]
        )
    finally:
        for client in [*loreweaver, *sidequest]:
            await client.close()
