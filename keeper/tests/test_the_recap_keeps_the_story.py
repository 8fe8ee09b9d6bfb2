"""`.recap` over real sockets keeps what happened: the offline Keeper's notice that no
model is connected is a notice, not the turn's story; an NPC's line comes after the
Keeper's line that introduced it and before the one that followed; and the Keeper's
markdown reaches the recap as plain words (docs/decisions.md, "Campaign memory")."""

from __future__ import annotations

import re

from loreweaver.testing.clients import keeper_and_player, settle, system_answer, until_idle
from loreweaver.testing.fake_llm import Text, Tool, Usage

NOTICE = "No model is connected"


async def _told(client, line: str) -> list[dict]:
    """The frames of the Keeper's turn that answers `line`, from the line to `idle`."""
    frames = await until_idle(client)
    start = next(i for i, f in enumerate(frames) if f.get("text") == line)
    return frames[start:]


def _entry(recap: str, line: str) -> str:
    """The recap's entry for the turn that `line` began (an entry is a line of the recap)."""
    return next(entry for entry in recap.splitlines() if line in entry)


async def test_the_offline_keepers_notice_is_not_the_turns_story(server, room):
    line = "I wait by the window and watch the harbour lights."
    async with keeper_and_player(server, room, "Pip") as (_keeper, player):
        await player.say(line)
        frames = await _told(player, line)
        recap = await system_answer(player, ".recap")
    entry = _entry(recap, line)
    assert NOTICE not in recap and "…" not in entry, recap
    narration = [f["text"] for f in frames if f["type"] == "narrative" and f["speaker"] == "kp"]
    assert narration and not any(NOTICE in text for text in narration), "the notice is not narration"
    assert all(text in entry for text in narration), recap
    notices = [f["text"] for f in frames if f["type"] == "system"]
    assert any(NOTICE in text for text in notices), "the table is still told no model is connected"


async def test_an_npcs_line_comes_after_the_keepers_line_that_introduced_it(server, room):
    line = "Silas Reed, what was that bell?"
    async with keeper_and_player(server, room, "Pip") as (keeper, player):
        await system_answer(keeper, ".npc add Silas Reed | the lighthouse keeper | he rang it himself")
        await settle(player)
        await player.say("I shake the rain off my coat.")  # the offline Keeper's notice goes first
        await until_idle(player)
        await player.say(line)
        frames = await _told(player, line)
        recap = await system_answer(player, ".recap")
    told = [f for f in frames if f["type"] == "narrative" and f["speaker"] in ("kp", "npc")]
    assert [f["speaker"] for f in told] == ["kp", "npc", "kp"], frames
    opening, npc, closing = told
    turn = recap[recap.index(line) :]
    said = f"{npc['name']}: {npc['text']}"
    assert turn.index(opening["text"]) < turn.index(said) < turn.index(closing["text"]), recap
    entry = _entry(recap, line)
    assert opening["text"] in entry and said in entry and closing["text"] in entry, recap


async def test_the_keepers_markdown_reaches_the_recap_as_plain_words(ai_server, llm, room):
    llm.script(
        Text("## The Quay\n\n*Rain* hammers the **old** quay; "),
        Text("a sign reads `NO BOATS` and __Ruth__ waits, _pipe_ in hand."),
        Tool("speak_as_npc", {"npc": "Ruth", "direction": "warn them"}),
        Usage(900, 40),
    )
    llm.say("*Not* tonight, **love**.")
    llm.script(Text("> She turns away.\n\n- the dinghy\n- the steps"), Usage(1000, 20))
    line = "I walk down to the quay"
    async with keeper_and_player(ai_server, room, "Ada") as (keeper, player):
        await system_answer(keeper, ".npc add Ruth | the harbour master | she knows")
        await settle(player)
        await player.say(line)
        frames = await _told(player, line)
        recap = await system_answer(player, ".recap")
    narration = " ".join(f["text"] for f in frames if f["type"] == "narrative" and f["speaker"] == "kp")
    assert "**old**" in narration and "`NO BOATS`" in narration, "the table was shown markdown"
    entry = _entry(recap, line)
    for words in (
        "The Quay",
        "Rain hammers the old quay; a sign reads NO BOATS and Ruth waits, pipe in hand.",
        "Ruth: Not tonight, love.",
        "She turns away.",
        "the dinghy",
        "the steps",
    ):
        assert words in entry, (words, recap)
    assert not re.search(r"[*`#>]|__|\b_|_\b", entry), entry


async def test_a_star_or_an_underscore_that_marks_nothing_stays_in_the_recap(ai_server, llm, room):
    llm.script(Text("The slate reads 2 * 3 = 6, chalked by the harbour_master."), Usage(900, 20))
    line = "I read the slate"
    async with keeper_and_player(ai_server, room, "Ada") as (_keeper, player):
        await player.say(line)
        await _told(player, line)
        recap = await system_answer(player, ".recap")
    assert "The slate reads 2 * 3 = 6, chalked by the harbour_master." in _entry(recap, line), recap
