""".rh rolls in secret: only the roller and the keepers see it (README, "Playing"). Over a
real socket, another player's `.recap` and `.report` carry no trace of it (neither the
line typed nor a count), `.recap` still tells the last turns the table saw however many
hidden rolls came after them, a SideQuest journal's turn numbers do not move for them;
the roller's `.report` counts their own, and the keepers read every hidden roll, result
and all, in `.chronicle`; a hidden roll an earlier version chronicled with its line is
left out too (docs/decisions.md, "Campaign memory")."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, settle, system_answer
from loreweaver.testing.servers import _database, room_id_of
from loreweaver.wire.tests.sidequest_client import SideQuestClient

# Totals no other roll of the test makes: seeing one is seeing that roll.
KEEPERS_SECRET, PIPS_SECRET, PIPS_PUBLIC = "1d1+4093", "1d1+5150", "1d1+6"


async def test_another_players_recap_and_report_show_no_hidden_roll(server, room):
    async with (
        await WsClient.connect(server.ws_url) as kay,
        await WsClient.connect(server.ws_url) as pip,
        await WsClient.connect(server.ws_url) as ann,
    ):
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        await pip.join(server.env.mint(room, "Pip"))
        await ann.join(server.env.mint(room, "Ann"))
        assert "5151" in await system_answer(pip, f".rh {PIPS_SECRET}")
        assert "7" in await system_answer(pip, f".r {PIPS_PUBLIC}")
        await settle(kay)  # the table saw Pip's roll; what follows is answers only
        await settle(ann)
        for _ in range(9):  # more hidden rolls than `.recap` tells turns
            assert "4094" in await system_answer(kay, f".rh {KEEPERS_SECRET}")

        recap = await system_answer(ann, ".recap")
        assert f"Pip rolls {PIPS_PUBLIC}: 7" in recap, "the last turn the table saw is still told"
        for trace in (".rh", "4093", "4094", "5150", "5151", "Kay"):
            assert trace not in recap, (trace, recap)
        report = await system_answer(ann, ".report")
        assert "Pip: 1 rolls" in report and "Kay" not in report, report

        # The roller: their own hidden roll is counted for them, and .recap is the
        # table's side for everyone (their roll was told to them as it was made).
        assert "Pip: 2 rolls" in await system_answer(pip, ".report")
        assert ".rh" not in await system_answer(pip, ".recap")

        # The keepers: every hidden roll, with its result, in the chronicle.
        report = await system_answer(kay, ".report")
        assert "Kay: 9 rolls" in report and "Pip: 2 rolls" in report, report
        chronicle = await system_answer(kay, ".chronicle 20")
        assert "Kay 1d1+4093: 4094 (hidden)" in chronicle and "Pip 1d1+5150: 5151 (hidden)" in chronicle


async def test_hidden_rolls_move_no_turn_number_of_a_sidequest_journal(server, room):
    key = server.env.mint(room, "Sam")
    async with (
        await WsClient.connect(server.ws_url) as kay,
        await WsClient.connect(server.ws_url) as table,
    ):
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        await table.join(key)
        await system_answer(table, ".coc Sam")
        await system_answer(kay, ".scene The Harbour")
        for _ in range(3):
            await system_answer(kay, f".rh {KEEPERS_SECRET}")
        await system_answer(kay, ".scene The Lighthouse")
        async with await SideQuestClient.open(server, key) as sam:
            assert (await sam.joined("Sam"))["event"] == "ready"
            await sam.send("JOURNAL_REQUEST", {"category": "Place", "sort_by": "time"})
            places = (await sam.expect("JOURNAL_RESPONSE"))["entries"]
    learned = {entry["content"]: entry["learned_turn"] for entry in places}
    assert learned == {"The Harbour": 1, "The Lighthouse": 2}, learned


async def test_a_hidden_roll_chronicled_with_its_line_by_an_earlier_version_is_left_out(server, room):
    async with await WsClient.connect(server.ws_url) as kay, await WsClient.connect(server.ws_url) as ann:
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        await ann.join(server.env.mint(room, "Ann"))
        await system_answer(kay, f".rh {KEEPERS_SECRET}")
        # What an earlier version wrote (and a backup of it restores): the line typed kept.
        with _database(server.env) as (connection, mark):
            connection.execute(
                f"UPDATE keeper_chronicleentry SET line = {mark} WHERE room_id = {mark}",
                (f".rh {KEEPERS_SECRET}", room_id_of(server.env, room)),
            )
        await system_answer(ann, ".r 1d1+6")
        recap = await system_answer(ann, ".recap")
    assert "Ann rolls 1d1+6: 7" in recap and ".rh" not in recap and "Kay" not in recap, recap
