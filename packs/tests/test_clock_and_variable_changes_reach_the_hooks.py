"""The Keeper's `advance_clock` fires `clock_advanced` with the clock before and after,
and a turn that wrote variables (a Keeper tool, a hook) fires `variables_changed`
once, naming what changed (docs/packs.md, "Event hooks")."""

from __future__ import annotations

from loreweaver.testing.clients import connect, until_idle
from loreweaver.testing.fake_llm import Text, Tool
from packs.tests.hook_table import turn_on


async def test_the_clock_and_the_variables_the_turn_changed_reach_the_hooks(hook_table, hook_llm, room):
    env = hook_table.env
    async with await connect("ws", hook_table) as kay, await connect("ws", hook_table) as pip:
        await kay.join(env.mint(room, "Kay", "keeper"))
        await pip.join(env.mint(room, "Pip"))
        await turn_on(kay, "table-hooks", pip)

        hook_llm.script(
            Tool("advance_clock", {"minutes": 90}), Tool("set_variable", {"id": "alarm", "add": 1})
        )
        hook_llm.script(Text("An hour and a half later, a bell rings."))
        await pip.say("We wait in the square.")
        frames = await until_idle(pip)
    texts = [block["text"] for frame in frames if frame["type"] == "ui" for block in frame["blocks"]]
    assert texts == [
        "The clock went from Day 1, 00:00 to Day 1, 01:30.",
        "Changed: alarm add, alarm set; alarm reads 99",
    ], "once each; the hook reads its own write as it asked for it"
