"""At `reply_ready` a hook's `narrate` is added to the Keeper's reply and its
`rewriteReply` replaces it: the reply streams as the model wrote it, and its closing
frame, which replaces the draft, is the reply as the hooks left it (what is kept too).
Its `setvar` goes through the declared variable: a number past its bounds is kept at
the bound, and a keeper-only variable stays the keepers' (docs/packs.md, "Event hooks")."""

from __future__ import annotations

from loreweaver.testing.clients import connect, state_now, until_idle
from loreweaver.testing.fake_llm import Text
from packs.tests.hook_table import keeper_rows, turn_on


def _drafts_and_closing(frames: list[dict]) -> tuple[dict[str, str], list[dict]]:
    drafts: dict[str, str] = {}
    for frame in frames:
        if frame["type"] == "narrative_delta":
            drafts[frame["id"]] = drafts.get(frame["id"], "") + frame["text"]
    return drafts, [f for f in frames if f["type"] == "narrative" and f["speaker"] == "kp"]


async def test_narrate_and_setvar_change_the_reply_and_a_bounded_variable(hook_table, hook_llm, room):
    env = hook_table.env
    async with await connect("ws", hook_table) as kay, await connect("ws", hook_table) as pip:
        await kay.join(env.mint(room, "Kay", "keeper"))
        await pip.join(env.mint(room, "Pip"))
        await turn_on(kay, "table-hooks", pip)

        hook_llm.script(Text("The bell "), Text("tolls once."))
        await pip.say("I pull the rope.")
        drafts, closing = _drafts_and_closing(await until_idle(pip))
        (reply,) = closing
        assert drafts[reply["id"]] == "The bell tolls once.", "the reply streamed as the model wrote it"
        assert reply["text"] == "The bell tolls once.\n\nSomewhere below, a second bell answers."

        player_state, keeper_state = await state_now(pip), await state_now(kay)
        assert "alarm" not in keeper_rows(player_state)
        alarm = keeper_rows(keeper_state)["alarm"]
        assert alarm["value"] == 3 and alarm["max"] == 3 and alarm["keeper_only"], "99 was held at the bound"

    async with await connect("ws", hook_table) as late:
        replay = await late.join(env.mint(room, "Lee"))
    assert "Somewhere below, a second bell answers." in [f.get("text", "").split("\n\n")[-1] for f in replay]


async def test_rewrite_reply_replaces_the_streamed_draft(hook_table, hook_llm, room):
    env = hook_table.env
    async with await connect("ws", hook_table) as kay, await connect("ws", hook_table) as pip:
        await kay.join(env.mint(room, "Kay", "keeper"))
        await pip.join(env.mint(room, "Pip"))
        await turn_on(kay, "table-hooks", pip)

        hook_llm.script(Text("[draft] You see "), Text("the harbour."))
        await pip.say("I look around.")
        drafts, closing = _drafts_and_closing(await until_idle(pip))
        (reply,) = closing
        assert drafts[reply["id"]] == "[draft] You see the harbour."
        assert reply["text"] == "The fog lifts. You see the harbour."
