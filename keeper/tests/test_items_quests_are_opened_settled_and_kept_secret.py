"""A room's quests over the wire: a keeper opens one (`.quest add`), settles it
(`.quest set`) and keeps one for the keepers (`.quest secret`); every viewer's `state.quests` carries
what they may see, and a secret quest never reaches a player's connection at all."""

from __future__ import annotations

import json

from loreweaver.testing.clients import keeper_and_player, settle, system_answer


async def _state_where(client, test, seen: list[dict], timeout: float = 10) -> dict:
    """The first `state` that passes `test`; every frame read on the way is kept in `seen`."""
    async for frame in client._frames(timeout, "a state"):
        seen.append(frame)
        if frame.get("type") == "state" and test(frame):
            return frame
    raise AssertionError("unreachable")


def _quests(state: dict) -> dict[str, dict]:
    return {quest["name"]: quest for quest in state.get("quests", [])}


async def test_the_keeper_opens_and_completes_a_quest_and_players_see_it_in_their_state(server, room):
    seen: list[dict] = []
    async with keeper_and_player(server, room) as (keeper, player):
        await keeper.say(".quest add Light the lamp | Learn why the lighthouse is dark")
        await player.expect("narrative", speaker="system", text="A new quest: Light the lamp.")
        state = await _state_where(player, lambda s: "Light the lamp" in _quests(s), seen)
        assert _quests(state)["Light the lamp"] == {
            "name": "Light the lamp",
            "status": "in_progress",
            "description": "Learn why the lighthouse is dark",
        }
        assert "Light the lamp [in progress]" in await system_answer(player, ".quest")

        await keeper.say(".quest set light the lamp completed")
        await player.expect("narrative", speaker="system", text="Quest Light the lamp: completed.")
        await _state_where(
            player, lambda s: _quests(s).get("Light the lamp", {}).get("status") == "completed", seen
        )


async def test_a_players_quest_commands_are_refused_but_listing(server, room):
    async with keeper_and_player(server, room) as (_keeper, player):
        assert "keeper" in (await system_answer(player, ".quest add Mine")).lower()
        assert await system_answer(player, ".quest") == "No quests yet."


async def test_a_secret_quest_never_reaches_a_players_connection(server, room):
    seen: list[dict] = []
    async with keeper_and_player(server, room) as (keeper, player):
        answer = await system_answer(keeper, ".quest secret Ruth's bribe | Silas paid the harbour master")
        assert answer == "A new quest for the keepers only: Ruth's bribe."
        await keeper.say(".quest add Light the lamp")
        mine = await _state_where(keeper, lambda s: "Light the lamp" in _quests(s), [])
        assert _quests(mine)["Ruth's bribe"]["secret"] is True
        assert "Ruth's bribe" in await system_answer(keeper, ".quest")

        await system_answer(keeper, ".quest set Ruth's bribe failed")
        await keeper.say(".quest set Light the lamp failed")
        await _state_where(
            player, lambda s: _quests(s).get("Light the lamp", {}).get("status") == "failed", seen
        )
        listing = await system_answer(player, ".quest")
        await settle(player)
    # Everything this player was sent, as sent.
    assert "Ruth" not in json.dumps(seen, ensure_ascii=False) and "Ruth" not in listing


async def test_a_quest_hidden_later_leaves_the_players_state(server, room):
    async with keeper_and_player(server, room) as (keeper, player):
        await system_answer(keeper, ".quest add Ruth's bribe")
        await _state_where(player, lambda s: "Ruth's bribe" in _quests(s), [])
        answer = await system_answer(keeper, ".quest secret Ruth's bribe")
        assert answer == "Quest Ruth's bribe is for the keepers only now."
        await system_answer(keeper, ".quest add Light the lamp")
        state = await _state_where(player, lambda s: "Light the lamp" in _quests(s), [])
        assert list(_quests(state)) == ["Light the lamp"]
        again = await system_answer(keeper, ".quest secret Ruth's bribe | Silas paid the harbour master")
        assert again == "Quest Ruth's bribe is for the keepers only now.", "a retyped line never reveals it"
        assert (
            await system_answer(keeper, ".quest reveal Ruth's bribe")
            == "A quest comes to light: Ruth's bribe."
        )
        state = await _state_where(player, lambda s: "Ruth's bribe" in _quests(s), [])
        assert "secret" not in _quests(state)["Ruth's bribe"]
