"""A room where nobody speaks gets no frames: a quiet channel layer is not a failed one
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
        # The channel layer waits 5 s per look for messages; a look that found nothing
        # once made the server "recover" and resend state to everyone, every 5 s.
        with pytest.raises(TimeoutError):
            unexpected = await member.recv(timeout=7)
            pytest.fail(f"a quiet room sent {unexpected}")
    assert "receive failed" not in hosted_server.log_text()
