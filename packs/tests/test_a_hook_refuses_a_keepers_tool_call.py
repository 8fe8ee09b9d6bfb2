"""`tool_use` fires before each of the Keeper's tool calls, and a hook's
`denyTool(reason)` stops the call: the tool does not run, and the model reads the
refusal as the call's result (docs/packs.md, "Event hooks")."""

from __future__ import annotations

from loreweaver.testing.clients import connect, state_now, system_answer, until_idle
from loreweaver.testing.fake_llm import Text, Tool
from packs.tests.hook_table import turn_on


async def test_a_denied_tool_does_not_run_and_the_model_reads_why(hook_table, hook_llm, room):
    env = hook_table.env
    async with await connect("ws", hook_table) as kay, await connect("ws", hook_table) as pip:
        await kay.join(env.mint(room, "Kay", "keeper"))
        await pip.join(env.mint(room, "Pip"))
        await turn_on(kay, "table-hooks", pip)
        await system_answer(kay, ".var set frozen true")
        before = (await state_now(pip)).get("clock")

        hook_llm.script(Text("Hours pass."), Tool("advance_clock", {"minutes": 240}))
        hook_llm.script(Text("Or so it seems: the light has not moved."))
        await pip.say("I wait for nightfall.")
        frames = await until_idle(pip)
        assert "ui" not in [f["type"] for f in frames], "no clock_advanced: the clock never moved"
        assert (await state_now(pip)).get("clock") == before

        await system_answer(kay, ".var set frozen false")
        hook_llm.script(Tool("advance_clock", {"minutes": 240}))
        hook_llm.script(Text("Night falls."))
        await pip.say("I wait again.")
        frames = await until_idle(pip)
        assert (await state_now(pip)).get("clock") != before, "allowed, the same call runs"
    _asked, denied, _asked_again, allowed = [r for r in hook_llm.chat_requests() if r.get("stream")][-4:]
    result = denied["messages"][-1]
    assert result["role"] == "tool"
    assert "refused advance_clock: time is frozen in this scene" in result["content"]
    assert allowed["messages"][-1]["content"].startswith("it is now")
