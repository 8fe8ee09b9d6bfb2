"""A room where nobody speaks gets no frames: a quiet room bus is not a failed one
(docs/operations.md, "Faults")."""

from __future__ import annotations

import pytest

from loreweaver.testing.clients import WsClient, settle
from loreweaver.testing.servers import start_serve


@pytest.fixture(scope="module")
def hosted_server(hosted_env):
    process = start_serve(hosted_env, "--no-iroh")
    yield process
    process.stop()


async def test_a_member_of_a_quiet_hosted_room_hears_nothing_for_longer_than_the_layers_wait(
    hosted_server, room
):
    async with await WsClient.connect(hosted_server.ws_url) as member:
        await member.join(hosted_server.env.mint(room, "Pat"))
        await settle(member)
        # A read of the bus that found nothing for a while (the channel layer this
        # replaced looked for 5 s at a time) once made the server "recover" and resend
        # state to everyone, every 5 s.
        with pytest.raises(TimeoutError):
            unexpected = await member.recv(timeout=7)
            pytest.fail(f"a quiet room sent {unexpected}")
    assert "connection lost" not in hosted_server.log_text()
