"""With no model connected, `admin_generate` answers a clear `ok:false` and installs
nothing; the model-backed cases are in keeper/tests/test_forge.py."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient


async def test_the_offline_keeper_cannot_generate(server, room):
    async with await WsClient.connect(server.ws_url) as client:
        await client.join(server.env.mint(room, "Kay", "keeper"))
        await client.send({"type": "admin_generate", "kind": "module", "description": "a haunted mill"})
        result = await client.expect("admin_generated", timeout=30)
        await client.say(".module")
        module = (await client.expect("narrative", speaker="system"))["text"]
    assert result["ok"] is False and result["id"] == "" and result["name"] == ""
    assert "no model is connected" in result["error"]
    assert module == "No module yet."
