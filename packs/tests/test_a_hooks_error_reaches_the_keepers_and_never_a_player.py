"""A hook that throws (here a ReferenceError), goes past an emitter's cap or asks for a
variable write the room does not take is told to
the room's keepers as a keeper-only line, not only to the server's log; a player's
connection never receives it, and the turn completes (docs/packs.md, "Event hooks")."""

from __future__ import annotations

from loreweaver.testing.clients import connect, until_idle
from loreweaver.testing.fake_llm import Text
from packs.tests.hook_table import turn_on

SOURCE = "broken-hooks/skills/rules/hooks.js"


async def test_a_hooks_error_is_a_keeper_only_line(hook_table, hook_llm, room):
    env = hook_table.env
    async with await connect("ws", hook_table) as kay, await connect("ws", hook_table) as pip:
        await kay.join(env.mint(room, "Kay", "keeper"))
        await pip.join(env.mint(room, "Pip"))
        await turn_on(kay, "broken-hooks", pip)

        hook_llm.script(Text("Water drips."))
        await pip.say("I listen.")
        seen = {"pip": await until_idle(pip), "kay": await until_idle(kay)}
    for frames in seen.values():
        (reply,) = [f for f in frames if f["type"] == "narrative" and f["speaker"] == "kp"]
        assert reply["text"].startswith("Water drips.\n\nDrip 0.") and reply["text"].endswith("Drip 7.")
    warnings = [f["text"] for f in seen["kay"] if f["type"] == "system"]
    assert f"Hook {SOURCE} failed: reply_ready: ReferenceError: 'narate' is not defined" in warnings
    assert f"Hook {SOURCE}: narrate() went over its limit of 8 a turn; the rest was dropped." in warnings
    assert (
        f"Hook {SOURCE}: a variable write was refused: mood takes a whole number, true or false, or text."
        in warnings
    )
    assert not [f for f in seen["pip"] if SOURCE in str(f)], "a player never hears of it"
