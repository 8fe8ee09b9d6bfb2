"""`.help` is a list grouped by topic (docs/rules.md): each command once, under the
topic of what it does, in the viewer's language; a keeper also sees the keeper's own
commands, grouped the same way."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, system_answer


async def test_a_players_help_groups_each_command_once_under_its_topic(server, room):
    async with await WsClient.connect(server.ws_url) as pip:
        await pip.join(server.env.mint(room, "Pip"))
        lines = (await system_answer(pip, ".help")).splitlines()
    headings = [line for line in lines if line.endswith(":") and not line.startswith(" ")]
    assert headings[:3] == ["Commands:", "Dice and checks:", "Characters:"]
    assert "Keeper commands:" not in headings
    commands = [line.split()[0] for line in lines if line.startswith("  .")]
    assert len(commands) == len(set(commands)) and ".r" in commands and ".bio" in commands
    dice = lines.index("Dice and checks:")
    assert lines[dice + 1].startswith("  .r ")


async def test_a_keeper_sees_the_keeper_commands_grouped_too_in_chinese(server, room):
    async with await WsClient.connect(server.ws_url) as kay:
        await kay.join(server.env.mint(room, "Kay", "keeper"), locale="zh")
        lines = (await system_answer(kay, ".help")).splitlines()
    assert "掷骰与检定：" in lines
    keeper_part = lines[lines.index("守秘人指令：") :]
    assert "守秘人：" in keeper_part and any(line.startswith("  .") for line in keeper_part)
