"""`.inv add <item> [xN]` over a real socket (README, "Playing"): `xN` is how many,
however many digits it has; above the cap (9999) it is refused in the player's
language and nothing is added, never kept as part of the item's name. `.inv give`
reads it the same way."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, system_answer

REFUSED = "A quantity is a whole number from 1 to 9999."


async def test_a_count_above_the_cap_is_refused_and_nothing_is_added(server, room):
    async with await WsClient.connect(server.ws_url) as pip, await WsClient.connect(server.ws_url) as lin:
        await pip.join(server.env.mint(room, "Pip"))
        # A table of Lin's own: Lin's lines to the table are no answer Pip waits for.
        await lin.join(server.env.mint(room + "-zh", "Lin"), locale="zh")
        await system_answer(pip, ".coc Pip")
        await system_answer(lin, ".coc Lin")

        assert await system_answer(pip, ".inv add rope x999999999") == REFUSED
        assert await system_answer(pip, ".inv add rope ×10000 | tool") == REFUSED
        assert await system_answer(pip, ".inv add rope x" + "9" * 3900) == REFUSED, (
            "as many digits as a line holds"
        )
        assert await system_answer(lin, ".inv add 绳子 x999999999") == "数量须为 1 到 9999 之间的整数。"
        assert (await system_answer(pip, ".inv")).startswith("Pip carries nothing.")
        assert (await system_answer(lin, ".inv")).startswith("Lin身上什么也没带。")

        assert await system_answer(pip, ".inv add rope x0012") == "Pip takes the rope x12."
        assert await system_answer(pip, ".inv give rope x999999999 to Pip") == REFUSED
        carried = await system_answer(pip, ".inv")
    assert "  rope x12 [misc]" in carried.splitlines(), carried
    assert "999" not in carried
