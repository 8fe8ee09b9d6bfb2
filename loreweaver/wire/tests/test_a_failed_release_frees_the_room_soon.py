"""A turn whose release fails (a Redis that just restarted fails the first call on each
stale connection) is released again as soon as the store answers, so the room plays on
at once instead of after the turn's lease lapses, 15 s later (docs/operations.md,
"Redis stops, or restarts and loses everything")."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, human_keeper_narrates
from loreweaver.testing.servers import dedicated_server
from loreweaver.wire.stores import TURN_LEASE_TTL

failing_release = dedicated_server(TRPG_FAILPOINTS="turn.release*1")


async def test_the_next_line_plays_at_once_after_a_failed_release(failing_release, room):
    await human_keeper_narrates(failing_release, room)
    async with await WsClient.connect(failing_release.ws_url) as member:
        await member.join(failing_release.env.mint(room, "Pat"))
        await member.say("I try the door.")
        await member.expect("narrative", text="I try the door.")
        assert "could not release ticket" in failing_release.log_text()
        await member.say("I try it again.")
        # Well within the lease, which would otherwise hold the room.
        await member.expect("narrative", text="I try it again.", timeout=TURN_LEASE_TTL / 3)
    assert "released late" in failing_release.log_text()
