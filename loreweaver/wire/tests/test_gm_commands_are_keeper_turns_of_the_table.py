"""A SideQuest `/gm` is the keeper's command played as a turn of the room (docs/sidequest.md,
"Playing"): refused to a player, and to a keeper demoted after joining (the role is the
key's as it is when the turn runs); a keeper's `/gm dmg` is in the chronicle and in the
next `state` of every loreweaver member; an amount that is not plain digits is refused
in words, in the viewer's language, and the table plays on."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, settle
from loreweaver.testing.servers import dedicated_server
from loreweaver.wire.tests.sidequest_client import SideQuestClient

gm_server = dedicated_server()


def _hp(state: dict) -> int:
    return next(r for r in state["character"]["resources"] if r["id"] == "hp")["value"]


async def _hp_becomes(client: WsClient, value: int) -> dict:
    """The first `state` whose character has `value` hit points."""
    while True:
        state = await client.expect("state")
        if _hp(state) == value:
            return state


async def _gm(client: SideQuestClient, command: str) -> list[dict]:
    """A `/gm` and everything up to its turn's `NARRATION_END`."""
    await client.act(command)
    answer = []
    while answer[-1:] == [] or answer[-1]["type"] != "NARRATION_END":
        answer.append(await client.recv())
    return answer


async def test_gm_is_a_keepers_turn_refused_to_players_and_to_a_demoted_keeper(gm_server, room):
    env = gm_server.env
    async with (
        await WsClient.connect(gm_server.ws_url) as kay,
        await WsClient.connect(gm_server.ws_url) as pip,
        await SideQuestClient.open(gm_server, env.mint(room, "Gail", "keeper")) as gail,
        await SideQuestClient.open(gm_server, env.mint(room, "Sam")) as sam,
    ):
        await kay.join(env.mint(room, "Kay", "keeper"), locale="zh")
        await pip.join(env.mint(room, "Pip"))
        await pip.say(".coc Pip")
        hp = _hp(await pip.expect("state"))
        await gail.joined("Gail")
        await sam.joined("Sam")

        # A player's /gm: the turn refuses it, and nothing changes.
        refused = await _gm(sam, "/gm dmg Pip 3")
        errors = [m["payload"]["message"] for m in refused if m["type"] == "ERROR"]
        assert errors == ["Only the keeper can do that."], refused

        # A keeper's: the table sees it, the chronicle keeps it, the loreweaver state shows it.
        done = await _gm(gail, "/gm dmg Pip 2")
        told = [m["payload"]["text"] for m in done if m["type"] == "NARRATION"]
        assert any(f"Pip takes 2 damage ({hp} → {hp - 2})" in text for text in told), done
        await _hp_becomes(pip, hp - 2)
        await settle(kay)
        await kay.say(".chronicle 3")
        chronicle = (await kay.expect("narrative", speaker="system"))["text"]
        assert ".dmg Pip 2" in chronicle and "Pip takes 2 damage" in chronicle, chronicle

        # Digits only: "²" passes str.isdigit, and is refused in words, never a failure.
        odd = await _gm(gail, "/gm dmg Pip ²")
        assert not [m for m in odd if m["type"] == "ERROR"], odd
        assert any("0-9" in m["payload"]["text"] for m in odd if m["type"] == "NARRATION"), odd
        await kay.say(".dmg Pip ²")
        said = (await kay.expect("narrative", speaker="system"))["text"]
        assert "0-9" in said and "digits" not in said, "the keeper reads it in Chinese"
        moved = await _gm(gail, "/gm teleport The lighthouse")
        assert [m["payload"]["current_location"] for m in moved if m["type"] == "MAP_UPDATE"] == [
            "The lighthouse"
        ], moved
        while (await pip.expect("state")).get("scene", {}).get("name") != "The lighthouse":
            pass

        # Demoted by another keeper after joining: the next /gm is refused.
        await kay.send({"type": "admin_list_keys"})
        gails = next(k for k in (await kay.expect("admin_keys"))["keys"] if k["name"] == "Gail")
        await kay.send({"type": "admin_update_key", "id": gails["id"], "role": "player"})
        await kay.expect("admin_keys")
        refused = await _gm(gail, "/gm dmg Pip 1")
        errors = [m["payload"]["message"] for m in refused if m["type"] == "ERROR"]
        assert errors == ["Only the keeper can do that."], refused
        # Pip's own roll comes after every turn before it: its state still has the HP.
        await pip.say(".r 1d2")
        await pip.collect_until("dice")
        assert _hp(await pip.expect("state")) == hp - 2
