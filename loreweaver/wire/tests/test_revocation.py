"""Revocation and changes take effect at once, on every process and both carriers: a
deleted key's sessions are closed, a demoted keeper loses keeper powers on the next
frame, a renamed member speaks under the new name, the operator can disconnect a
member (docs/operations.md, "Keys")."""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from loreweaver.testing.clients import Client, IrohClient, WsClient
from loreweaver.testing.operator_http import OperatorSession
from loreweaver.testing.servers import room_id_of, start_iroh_sidecar, start_serve

WITHIN = 1.0  # seconds from the change to the closed session


async def _key_id(keeper: Client, name: str) -> str:
    await keeper.send({"type": "admin_list_keys"})
    listing = await keeper.expect("admin_keys")
    return next(entry["id"] for entry in listing["keys"] if entry["name"] == name)


async def _closed_with(client: Client) -> list[str]:
    frames = await client.wait_closed(timeout=10)
    return [f.get("code", "") for f in frames if f["type"] == "error"]


async def _all_closed_within(clients: list[Client], since: float) -> list[list[str]]:
    codes = await asyncio.gather(*(_closed_with(client) for client in clients))
    assert time.monotonic() - since < WITHIN, "closed within a second"
    return list(codes)


async def test_a_deleted_keys_sessions_are_closed_on_both_carriers(server, room):
    env = server.env
    keeper_key, player_key = env.mint(room, "Kay", "keeper"), env.mint(room, "Pat")
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(keeper_key)
        sessions = [await WsClient.connect(server.ws_url), await IrohClient.connect(server.ticket)]
        for session in sessions:
            await session.join(player_key)
        pat = await _key_id(keeper, "Pat")
        await keeper.send({"type": "admin_delete_key", "id": pat})
        await keeper.expect("admin_keys")
        assert await _all_closed_within(sessions, time.monotonic()) == [["bad_key"], ["bad_key"]]
        for session in sessions:
            await session.close()
        await keeper.say("Is anyone there?")
        assert (await keeper.expect("narrative"))["text"] == "Is anyone there?"


async def test_deleting_a_rooms_data_closes_its_members(server, room):
    env = server.env
    keeper_key = env.mint(room, "Kay", "keeper")
    async with (
        await WsClient.connect(server.ws_url) as keeper,
        await IrohClient.connect(server.ticket) as pat,
    ):
        await keeper.join(keeper_key)
        await pat.join(env.mint(room, "Pat"))
        await keeper.send({"type": "admin_delete_room_data", "room": room})
        assert (await keeper.expect("admin_room_op"))["action"] == "delete"
        since = time.monotonic()
        assert await _all_closed_within([pat, keeper], since) == [["bad_key"], ["bad_key"]]


async def test_a_demoted_keeper_is_refused_at_the_next_frame(server, room):
    env = server.env
    async with (
        await WsClient.connect(server.ws_url) as first,
        await IrohClient.connect(server.ticket) as second,
    ):
        await first.join(env.mint(room, "First", "keeper"))
        await second.join(env.mint(room, "Second", "keeper"))
        await first.send({"type": "admin_update_key", "id": await _key_id(first, "Second"), "role": "player"})
        await first.expect("admin_keys")
        # At once, without waiting for the news to reach the demoted session.
        await second.send({"type": "admin_list_keys"})
        await second.say(".note the cult meets at midnight")
        seen: dict[str, dict] = {}
        while len(seen) < 3:  # the refusals, and the news of the demotion, in any order
            frame = await second.recv()
            if frame["type"] in ("admin_error", "welcome") or frame.get("speaker") == "system":
                seen[frame["type"] if frame["type"] != "narrative" else "refusal"] = frame
        assert seen["admin_error"]["code"] == "forbidden"
        assert "keeper" in seen["refusal"]["text"].lower()
        assert seen["welcome"]["you"]["role"] == "player"
        await first.say(".note")
        notes = (await first.expect("narrative", speaker="system"))["text"]
    assert "midnight" not in notes


async def test_a_renamed_members_next_line_carries_the_new_name(server, room):
    env = server.env
    async with (
        await WsClient.connect(server.ws_url) as keeper,
        await IrohClient.connect(server.ticket) as pat,
    ):
        await keeper.join(env.mint(room, "Kay", "keeper"))
        await pat.join(env.mint(room, "Pat"))
        await keeper.send(
            {"type": "admin_update_key", "id": await _key_id(keeper, "Pat"), "name": "Patricia"}
        )
        await keeper.expect("admin_keys")
        await pat.say("Call me by my new name.")
        line, roster = None, None
        while line is None or roster is None:  # the line and the new roster, in any order
            frame = await keeper.recv()
            if frame.get("text") == "Call me by my new name.":
                line = frame
            elif frame["type"] == "presence" and "Patricia" in [p["name"] for p in frame["players"]]:
                roster = frame
        assert line["name"] == "Patricia"
        assert (await pat.expect("welcome"))["you"]["name"] == "Patricia"


@pytest.fixture(scope="module")
def processes(hosted_env):
    web, other_web, sidecar = (
        start_serve(hosted_env, "--no-iroh"),
        start_serve(hosted_env, "--no-iroh"),
        start_iroh_sidecar(hosted_env),
    )
    yield web, other_web, sidecar
    for process in (web, other_web, sidecar):
        process.stop()


async def test_a_deleted_key_is_closed_on_every_process(processes, room):
    web, other_web, sidecar = processes
    env = web.env
    player_key = env.mint(room, "Pat")
    async with await WsClient.connect(web.ws_url) as keeper:
        await keeper.join(env.mint(room, "Kay", "keeper"))
        sessions = [await WsClient.connect(other_web.ws_url), await IrohClient.connect(sidecar.ticket)]
        for session in sessions:
            await session.join(player_key)
        await keeper.send({"type": "admin_delete_key", "id": await _key_id(keeper, "Pat")})
        await keeper.expect("admin_keys")
        assert await _all_closed_within(sessions, time.monotonic()) == [["bad_key"], ["bad_key"]]
        for session in sessions:
            await session.close()


async def test_the_operator_disconnects_a_member_from_the_room_page(processes, room):
    web, other_web, sidecar = processes
    env = web.env
    operator = OperatorSession(web)
    async with (
        await WsClient.connect(other_web.ws_url) as pat,
        await IrohClient.connect(sidecar.ticket) as pat_again,
        await WsClient.connect(web.ws_url) as kay,
    ):
        pat_key = env.mint(room, "Pat")
        await pat.join(pat_key)
        await pat_again.join(pat_key)
        await kay.join(env.mint(room, "Kay", "keeper"))
        room_page = await asyncio.to_thread(
            operator.get, f"/admin/rooms/room/{room_id_of(env, room)}/change/"
        )
        assert "Pat" in room_page and "Kay" in room_page and "Disconnect" in room_page
        rows = {
            name: (carriers, link)
            for name, carriers, link in re.findall(
                r"<td>([^<]+)</td><td class='role'>[a-z]+</td><td>([^<]*)</td>"
                r"<td><a class='deletelink' href='([^']+)'",
                room_page,
            )
        }
        assert rows["Pat"][0] == "Iroh, WebSocket" and rows["Kay"][0] == "WebSocket", "how each is connected"
        links = {name: link for name, (_carriers, link) in rows.items()}
        confirm = await asyncio.to_thread(operator.get, links["Pat"])
        assert "Disconnect" in confirm and "Pat" in confirm
        await asyncio.to_thread(operator.post, links["Pat"], {"post": "yes"}, confirm)
        since = time.monotonic()
        for session in (pat, pat_again):
            await session.wait_closed(timeout=5)
        assert time.monotonic() - since < WITHIN
        gone = await kay.expect("presence", timeout=5)
        while [p["name"] for p in gone["players"]] != ["Kay"]:
            gone = await kay.expect("presence", timeout=5)
        history = await asyncio.to_thread(operator.get, f"/admin/rooms/room/{room_id_of(env, room)}/history/")
        assert "Disconnected Pat" in history
