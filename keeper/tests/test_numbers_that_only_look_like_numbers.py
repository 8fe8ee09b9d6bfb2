"""A keeper's command whose number is not plain digits ("²" passes str.isdigit but not
int) is answered like any other malformed command: the table plays on, and nobody is
disconnected."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient


async def test_superscript_numbers_get_an_answer_not_a_server_error(server, room):
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(server.env.mint(room, "Kay", "keeper"))
        await keeper.say(".turns structured ²")
        usage = await keeper.expect("narrative", speaker="system")
        assert ".turns free or .turns structured" in usage["text"]
        await keeper.say(".chronicle ²")
        answer = await keeper.expect("narrative", speaker="system")
        assert "chronicle" in answer["text"].lower()
        await keeper.say("Still here.")
        assert (await keeper.expect("narrative", text="Still here."))["speaker"] == "player"
