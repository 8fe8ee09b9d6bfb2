"""A pack is fetched only from where the endpoint policy lets a room reach: an address
on the server's own network (here loopback) only when the operator lists it in
`TRPG_PACKS__ALLOWED_SOURCES`, and plain http only from a listed prefix; the refusal
names the setting, and nothing was asked of the source (docs/packs.md, "Installing")."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, settle
from loreweaver.testing.servers import start_serve
from packs.tests.pack_source_server import pack_source


async def test_a_source_the_operator_does_not_list_is_never_asked(fresh_env, room):
    with pack_source({"x.lwpack": b"not asked"}) as source:
        port = source.url.rsplit(":", 1)[1]
        server = start_serve(fresh_env, "--no-iroh", TRPG_PACKS__GITHUB_API=f"https://127.0.0.1:{port}")
        try:
            async with await WsClient.connect(server.ws_url) as kay:
                await kay.join(fresh_env.mint(room, "Kay", "keeper"))
                await settle(kay)

                await kay.say(f".pack install https://127.0.0.1:{port}/download/x.lwpack")
                await kay.expect("narrative", speaker="system")
                said = (await kay.expect("narrative", speaker="system", timeout=30))["text"]
                assert f"This server does not fetch from 127.0.0.1:{port}" in said, said
                assert "TRPG_PACKS__ALLOWED_SOURCES" in said

                await kay.say(".pack install gh:someone/module")
                await kay.expect("narrative", speaker="system")
                said = (await kay.expect("narrative", speaker="system", timeout=30))["text"]
                assert f"This server does not fetch from 127.0.0.1:{port}" in said, said

                await kay.say(f".pack install {source.url}/download/x.lwpack")
                said = (await kay.expect("narrative", speaker="system"))["text"]
                assert "Packs are fetched over https only" in said
            assert source.asked == []
        finally:
            server.stop()
