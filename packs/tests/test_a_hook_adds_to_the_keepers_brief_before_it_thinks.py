"""`turn_start` fires before the Keeper thinks, and what a hook `inject`s is in the
model's request for that very turn; `getvar` reads the keepers' view, a keeper-only
variable included (docs/packs.md, "Event hooks")."""

from __future__ import annotations

from loreweaver.testing.clients import connect, system_answer, until_idle
from loreweaver.testing.fake_llm import Text
from packs.tests.hook_table import turn_on


async def test_what_a_hook_injects_is_in_the_models_request_for_that_turn(hook_table, hook_llm, room):
    env = hook_table.env
    async with await connect("ws", hook_table) as kay, await connect("ws", hook_table) as pip:
        await kay.join(env.mint(room, "Kay", "keeper"))
        await pip.join(env.mint(room, "Pip"))
        await turn_on(kay, "table-hooks", pip)
        await system_answer(kay, ".var set alarm 3")  # keeper-only: players never see it

        hook_llm.script(Text("The gate is shut."))
        await pip.say("I knock on the gate.")
        await until_idle(pip)
    request = [r for r in hook_llm.chat_requests() if r.get("stream")][-1]
    said = [m["content"] for m in request["messages"] if isinstance(m.get("content"), str)]
    assert "The warden watches Pip (alarm 3)." in "\n".join(said)
    assert "The bell tower is ringing: every guard is awake." in "\n".join(said)
    injected = next(i for i, m in enumerate(request["messages"]) if "The warden watches" in str(m["content"]))
    assert request["messages"][-1]["content"].endswith("I knock on the gate."), "the line is still last"
    assert injected == len(request["messages"]) - 2, "the hooks' section comes just before the line"
