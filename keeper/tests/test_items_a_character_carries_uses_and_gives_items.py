"""Items and money on a character, over the wire: `.inv add`, `.inv use`, `.inv give`,
`.inv equip`, `.inv drop` and `.money` change the sheet, tell the table in a line of the
story, and reach each owner's `state` (its `character.items` and `character.money`)."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, connect, system_answer


async def _told(client, line: str, answer: str) -> None:
    """Say `line` and wait for the system's `answer` to it (another turn's state or
    line may come first)."""
    await client.say(line)
    await client.expect("narrative", speaker="system", text=answer)


async def _state_where(client, test, timeout: float = 10) -> dict:
    """The first `state` whose character passes `test`."""
    async for frame in client._frames(timeout, "a state"):
        if frame.get("type") == "state" and frame.get("character") and test(frame["character"]):
            return frame
    raise AssertionError("unreachable")


def _items(character: dict) -> dict[str, dict]:
    return {item["name"]: item for item in character.get("items", [])}


async def test_a_player_takes_uses_equips_and_gives_items_and_the_table_reads_each_change(
    server, room, carrier
):
    async with await connect(carrier, server) as alice, await connect(carrier, server) as bob:
        await alice.join(server.env.mint(room, "Alice"))
        await bob.join(server.env.mint(room, "Bob"))
        await system_answer(alice, ".coc Alice")
        await system_answer(bob, ".coc Bob")

        await alice.say(".inv add Lantern | tool | An oil lantern")
        await bob.expect("narrative", speaker="system", text="Alice takes the Lantern.")
        mine = await _state_where(alice, lambda c: "Lantern" in _items(c))
        assert _items(mine["character"])["Lantern"] == {
            "name": "Lantern",
            "kind": "tool",
            "quantity": 1,
            "equipped": False,
            "description": "An oil lantern",
        }

        await _told(alice, ".inv add Brandy x2 | consumable", "Alice takes the Brandy x2.")
        await _told(alice, ".inv use brandy", "Alice uses the Brandy. (2 → 1)")
        mine = await _state_where(alice, lambda c: _items(c).get("Brandy", {}).get("quantity") == 1)
        await alice.say(".inv use brandy")  # used up: it stays on the sheet at zero until dropped
        await _state_where(alice, lambda c: _items(c).get("Brandy", {}).get("quantity") == 0)

        await _told(alice, ".inv equip lantern", "Alice equips the Lantern.")
        await _state_where(alice, lambda c: _items(c).get("Lantern", {}).get("equipped"))

        await alice.say(".inv give lantern to Bob")
        await bob.expect("narrative", speaker="system", text="Alice gives the Lantern to Bob.")
        theirs = await _state_where(bob, lambda c: "Lantern" in _items(c))
        assert _items(theirs["character"])["Lantern"]["description"] == "An oil lantern"
        await _state_where(alice, lambda c: "Lantern" not in _items(c))

        await _told(alice, ".inv drop brandy", "Alice drops the Brandy.")
        await _state_where(alice, lambda c: not _items(c))


async def test_money_is_counted_in_the_packs_currency_and_never_goes_below_none(server, room):
    async with await WsClient.connect(server.ws_url) as alice:
        await alice.join(server.env.mint(room, "Alice"))
        await system_answer(alice, ".coc Alice")
        assert await system_answer(alice, ".money +30") == "Alice's money: 0 → 30 dollars."
        mine = await _state_where(alice, lambda c: c.get("money") == 30)
        assert mine["character"]["currency"] == "dollars"
        assert await system_answer(alice, ".money -50") == "Alice has only 30 dollars."
        assert await system_answer(alice, ".money") == "Alice has 30 dollars."


async def test_the_inventory_is_shown_only_to_the_one_who_asks(server, room):
    async with (
        await WsClient.connect(server.ws_url) as alice,
        await WsClient.connect(server.ws_url) as bob,
    ):
        await alice.join(server.env.mint(room, "Alice"))
        await bob.join(server.env.mint(room, "Bob"))
        await system_answer(alice, ".coc Alice")
        await system_answer(alice, ".inv add Revolver | weapon")
        listing = await system_answer(alice, ".inv")
        assert "Revolver [weapon]" in listing and "Money: 0 dollars." in listing
        await bob.expect("narrative", speaker="system", text="Alice takes the Revolver.")
        # Bob has no character: his own answer, never Alice's list.
        assert "no active character" in await system_answer(bob, ".inv")
