"""What a character carries and what the party pursues, told to a SideQuest client
(docs/sidequest.md, "Playing"): `INVENTORY` for `/inventory`, the viewer's party entry's
`inventory`, `items_gained` and `quests` in `state_delta`, `ITEM_DEPLETED` when an
item's quantity reaches zero, `RESOURCE_MIN_REACHED` when a resource reaches its
minimum (the item then gone from `INVENTORY` and the party entry, which both client
generations would draw as one carried), `ACHIEVEMENT_EARNED` when a quest completes; a
keeper-only quest never. The current client (sidequest-ui ffa5a44) also gets the money's
name as `currency_name`, which it shows beside `gold` ("coin" without it)."""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict

from loreweaver.testing.clients import WsClient, system_answer
from loreweaver.testing.servers import dedicated_server
from loreweaver.wire.tests.sidequest_client import SideQuestClient


class Contract(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Item(Contract):
    name: str
    type: str
    equipped: bool
    quantity: int
    description: str


class Inventory(Contract):
    items: list[Item]
    gold: int


class CurrentInventory(Inventory):
    """What the current client's inventory panel reads (`InventoryData`)."""

    currency_name: str


current = dedicated_server(TRPG_SIDEQUEST__CLIENT="current")


class ItemGained(Contract):
    name: str
    description: str
    category: str


class ItemDepleted(Contract):
    item_name: str
    remaining_before: int


class ResourceMinReached(Contract):
    resource_name: str
    min_value: int


class AchievementEarned(Contract):
    achievement_id: str
    name: str
    description: str
    trope_id: str
    trigger: str


async def _turn(client: SideQuestClient, action: str) -> list[dict]:
    """An action and every message up to its `NARRATION_END`."""
    await client.act(action)
    return await client.until_end()


def _end_delta(messages: list[dict]) -> dict:
    return messages[-1]["payload"]["state_delta"]


async def _seated(server, room: str, name: str) -> tuple[str, WsClient]:
    """A key for `name` with a character made at the loreweaver table (the SideQuest
    client then joins `ready`)."""
    key = server.env.mint(room, name)
    client = await WsClient.connect(server.ws_url)
    await client.join(key)
    await system_answer(client, f".coc {name}")
    return key, client


async def test_items_taken_and_money_reach_the_inventory_the_party_and_the_delta(server, room):
    key, table = await _seated(server, room, "Sam")
    async with table, await SideQuestClient.open(server, key) as sam:
        assert (await sam.joined("Sam"))["event"] == "ready"
        await sam.until_end()  # the room's opening: its story has not begun

        took = await _turn(sam, ".inv add Lantern | tool | An oil lantern")
        delta = _end_delta(took)
        assert [ItemGained(**item) for item in delta["items_gained"]] == [
            ItemGained(name="Lantern", description="An oil lantern", category="tool")
        ]
        assert delta["characters"][0]["inventory"] == ["Lantern"]
        assert any(
            m["type"] == "NARRATION" and "Sam takes the Lantern." in m["payload"]["text"] for m in took
        )
        again = await _turn(sam, ".inv equip lantern")
        assert "items_gained" not in _end_delta(again), "each gain is told once"

        paid = await _turn(sam, ".money +12")
        await sam.act("/inventory")
        shown = Inventory(**await sam.expect("INVENTORY"))
        assert shown == Inventory(
            items=[
                Item(name="Lantern", type="tool", equipped=True, quantity=1, description="An oil lantern")
            ],
            gold=12,
        )

        await sam.act("/status")
        # The contract-era client names money only as `gold`: the sheet lists it with its unit.
        assert (await sam.expect("CHARACTER_SHEET"))["equipment"] == ["Lantern", "12 dollars"]
        party = [m["payload"] for m in paid if m["type"] == "PARTY_STATUS"][-1]
        me = next(member for member in party["members"] if member["name"] == "Sam")
        assert Inventory(**me["inventory"]) == shown


async def test_an_item_used_up_and_a_resource_spent_are_told_as_their_own_messages(server, room):
    key, table = await _seated(server, room, "Sam")
    async with table, await SideQuestClient.open(server, key) as sam:
        await sam.joined("Sam")
        await sam.until_end()  # the room's opening: its story has not begun
        await _turn(sam, ".inv add Brandy x2 | consumable")
        await _turn(sam, ".inv use brandy")
        used = await _turn(sam, ".inv use brandy")
        depleted = [m["payload"] for m in used if m["type"] == "ITEM_DEPLETED"]
        assert [ItemDepleted(**p) for p in depleted] == [ItemDepleted(item_name="Brandy", remaining_before=1)]
        party = [m["payload"] for m in used if m["type"] == "PARTY_STATUS"][-1]
        me = next(member for member in party["members"] if member["name"] == "Sam")
        assert Inventory(**me["inventory"]) == Inventory(items=[], gold=0), (
            "a used-up item is not drawn as carried"
        )
        await sam.act("/inventory")
        assert Inventory(**await sam.expect("INVENTORY")) == Inventory(items=[], gold=0)

        spent = await _turn(sam, ".st HP-99")
        reached = [m["payload"] for m in spent if m["type"] == "RESOURCE_MIN_REACHED"]
        assert [ResourceMinReached(**p) for p in reached] == [
            ResourceMinReached(resource_name="HP", min_value=0)
        ]


async def test_an_item_from_someone_else_is_told_without_an_action_of_ones_own(server, room):
    key, table = await _seated(server, room, "Sam")
    async with table, await SideQuestClient.open(server, key) as sam:
        await sam.joined("Sam")
        await sam.until_end()  # the room's opening: its story has not begun
        alice = await WsClient.connect(server.ws_url)
        async with alice:
            await alice.join(server.env.mint(room, "Alice"))
            await system_answer(alice, ".coc Alice")
            await system_answer(alice, ".inv add Logbook | quest | Silas's log")
            await alice.say(".inv give logbook to Sam")
            end = await sam.expect("NARRATION_END")
        assert end["state_delta"]["items_gained"] == [
            {"name": "Logbook", "description": "Silas's log", "category": "quest"}
        ]


async def test_quests_ride_the_delta_a_completed_one_is_an_achievement_and_a_secret_one_never_arrives(
    server, room
):
    key, table = await _seated(server, room, "Sam")
    async with table, await SideQuestClient.open(server, key) as sam:
        await sam.joined("Sam")
        await sam.until_end()  # the room's opening: its story has not begun
        async with await WsClient.connect(server.ws_url) as kay:
            await kay.join(server.env.mint(room, "Kay", "keeper"))
            await system_answer(kay, ".quest secret Ruth's bribe | Silas paid the harbour master")
            await system_answer(kay, ".quest add Light the lamp | Learn why the lighthouse is dark")
            delta = _end_delta(await _turn(sam, ".quest"))
            assert delta["quests"] == {"Light the lamp": "in_progress"}

            await system_answer(kay, ".quest set Ruth's bribe completed")
            await system_answer(kay, ".quest set Light the lamp completed")
            earned = AchievementEarned(**await sam.expect("ACHIEVEMENT_EARNED"))
            assert (earned.name, earned.description, earned.trigger) == (
                "Light the lamp",
                "Learn why the lighthouse is dark",
                "resolved",
            )
            delta = _end_delta(await _turn(sam, ".quest"))
            assert delta["quests"] == {"Light the lamp": "completed"}
        assert "Ruth" not in json.dumps(sam.seen, ensure_ascii=False)


async def test_the_current_client_is_told_what_the_money_is_called(current, room):
    key, table = await _seated(current, room, "Sam")
    async with table, await SideQuestClient.open(current, key) as sam:
        await sam.joined("Sam")
        await sam.until_end()  # the room's opening: its story has not begun
        paid = await _turn(sam, ".money +12")
        party = [m["payload"] for m in paid if m["type"] == "PARTY_STATUS"][-1]
        me = next(member for member in party["members"] if member["name"] == "Sam")
        assert CurrentInventory(**me["inventory"]) == CurrentInventory(
            items=[], gold=12, currency_name="dollars"
        )
        await sam.act("/inventory")
        shown = CurrentInventory(**await sam.expect("INVENTORY"))
        assert (shown.gold, shown.currency_name) == (12, "dollars")
