"""A typed roll with public dice is a turn the hooks hear of after the fact: its
`dice_rolled` names the command and the roll, and what a hook `narrate`s is a Keeper
line of its own that every member sees (docs/packs.md, "Event hooks")."""

from __future__ import annotations

from loreweaver.testing.clients import connect
from packs.tests.hook_table import turn_on


async def test_a_hook_narrates_after_a_typed_roll(hook_table, room):
    env = hook_table.env
    async with await connect("ws", hook_table) as kay, await connect("ws", hook_table) as pip:
        await kay.join(env.mint(room, "Kay", "keeper"))
        await pip.join(env.mint(room, "Pip"))
        await turn_on(kay, "table-hooks", pip)

        await pip.say(".r 1d6")
        for client in (pip, kay):
            dice = await client.expect("dice")
            line = await client.expect("narrative", speaker="kp")
            assert line["text"] == f"The dice clatter (.r: Pip 1d6 = {dice['total']})."
