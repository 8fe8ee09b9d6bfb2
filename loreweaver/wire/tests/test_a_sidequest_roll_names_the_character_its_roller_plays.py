"""A roll told to a SideQuest client names the roller as the loreweaver table does: the
character a player plays, not the player (docs/rules.md, "Who a roll names"), and the
skill by the name its sheet prints."""

from __future__ import annotations

from base import frames
from loreweaver.testing.clients import WsClient, system_answer
from loreweaver.wire.sidequest_table import dice_line
from loreweaver.wire.tests.sidequest_client import SideQuestClient


async def test_a_sidequest_players_check_is_told_under_their_characters_name(server, room):
    key = server.env.mint(room, "Alice")
    async with await WsClient.connect(server.ws_url) as table:
        await table.join(key)
        await system_answer(table, ".coc Eleanor Hart")
    async with await SideQuestClient.open(server, key) as alice:
        assert (await alice.joined("Alice"))["event"] == "ready"
        await alice.until_end()  # the room's opening: its story has not begun
        await alice.act(".ra Spot Hidden")
        told = [m["payload"].get("text", "") for m in await alice.until_end() if m["type"] == "NARRATION"]
    checks = [text for text in told if "Spot Hidden" in text]
    assert checks and all(text.startswith("Eleanor Hart: Spot Hidden ") for text in checks), told


def test_a_roll_told_on_its_own_reads_in_the_readers_language():
    check = frames.dice("Eleanor Hart", "check", "1d100", [40], 40, target=60, skill="spot_hidden")
    assert dice_line(check, "en") == "Eleanor Hart rolls Spot Hidden: 40/60"
    assert dice_line(check, "zh") == "Eleanor Hart 掷 侦查：40/60"
