"""The hosted profile: a keeper's `.language zh` on one process switches the members
of the room on every process at once (the room's bus, `room.language`), each reading
the announcement and what follows in Chinese without reconnecting. Real processes on
one Redis and one Postgres: two daphne processes and the Iroh sidecar."""

from __future__ import annotations

import re

import pytest

from loreweaver.testing.clients import IrohClient, WsClient, system_answer
from loreweaver.testing.servers import start_iroh_sidecar, start_serve

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def processes(hosted_env):
    web, web2 = start_serve(hosted_env, "--no-iroh"), start_serve(hosted_env, "--no-iroh")
    sidecar = start_iroh_sidecar(hosted_env)
    yield web, web2, sidecar
    for process in (web, web2, sidecar):
        process.stop()


async def test_language_zh_on_one_process_switches_the_members_on_every_process(processes, room):
    web, web2, sidecar = processes
    env = web.env
    async with (
        await WsClient.connect(web.ws_url) as kay,
        await WsClient.connect(web2.ws_url) as bo,
        await IrohClient.connect(sidecar.ticket) as cy,
    ):
        await kay.join(env.mint(room, "Kay", "keeper"), locale="en")
        await bo.join(env.mint(room, "Bo"), locale="en")
        await cy.join(env.mint(room, "Cy"), locale="en")

        await kay.say(".language zh")
        for member in (kay, bo, cy):
            await member.expect("narrative", speaker="system", text="房间语言已切换为中文。")

        # A roll on the second process: its outcome label, read on the sidecar and on the first.
        await bo.say(".ra 侦查 50")
        labels = [(await member.expect("dice"))["outcome"]["label"] for member in (kay, bo, cy)]
        assert all(CJK.search(label) for label in labels), labels
        replies = [(await member.expect("narrative", speaker="system"))["text"] for member in (kay, bo, cy)]
        assert replies[0] == replies[1] == replies[2] and CJK.search(replies[0]), replies
        # Each member's own replies, on its own process.
        for member in (bo, cy):
            assert await system_answer(member, ".language") == "房间语言：中文。"

        await kay.say(".language en")
        for member in (bo, cy):
            await member.expect("narrative", speaker="system", text="Room language is now English.")
        await cy.say(".ra Spot Hidden 50")
        assert not CJK.search((await bo.expect("dice"))["outcome"]["label"])
