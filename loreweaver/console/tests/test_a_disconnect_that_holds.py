"""The console's Disconnect keeps a member out for the cool-down the operator picks
(their client's automatic rejoin is refused, saying for how long), or lets them back at
once; "Revoke key" closes them and deletes the key (docs/operations.md, "Keys")."""

from __future__ import annotations

import asyncio
import re
import time

from loreweaver.testing.clients import WsClient
from loreweaver.testing.operator_http import OperatorSession
from loreweaver.testing.servers import room_id_of


def _member_links(page: str) -> dict[str, tuple[str, str]]:
    """Each online member's Disconnect and Revoke key links on the room page (the
    holder of the last keeper key is offered no Revoke key: "")."""
    return {
        name: (disconnect, revoke)
        for name, disconnect, revoke in re.findall(
            r"<tr><td>([^<]+)</td><td class='role'>[a-z]+</td><td>[^<]*</td>"
            r"<td><a class='deletelink' href='([^']+)'>Disconnect</a> · "
            r"(?:<a class='deletelink' href='([^']+)'>Revoke key</a>|<span class='help')",
            page,
        )
    }


def member_links(operator: OperatorSession, env, room: str, name: str) -> tuple[str, str]:
    """The Disconnect and Revoke key links of `name` on the room page, once the page
    lists them online (presence is shared state: it may land a moment after welcome)."""
    path = f"/admin/rooms/room/{room_id_of(env, room)}/change/"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        links = _member_links(operator.get(path))
        if name in links:
            return links[name]
        time.sleep(0.1)
    raise AssertionError(f"{name} is not listed online")


async def _links(operator: OperatorSession, env, room: str, name: str) -> tuple[str, str]:
    return await asyncio.to_thread(member_links, operator, env, room, name)


async def _refused(server, key: str) -> str:
    async with await WsClient.connect(server.ws_url) as again:
        await again.send({"type": "join", "key": key})
        error = await again.expect("error", timeout=10)
        await again.wait_closed(timeout=5)
        return error["code"], error["message"]


async def test_a_disconnected_member_is_kept_out_for_the_minutes_chosen(server, room):
    env = server.env
    operator = OperatorSession(server)
    pat_key = env.mint(room, "Pat")
    async with await WsClient.connect(server.ws_url) as kay, await WsClient.connect(server.ws_url) as pat:
        await kay.join(env.mint(room, "Kay", "keeper"))
        await pat.join(pat_key)
        disconnect, _revoke = await _links(operator, env, room, "Pat")
        confirm = await asyncio.to_thread(operator.get, disconnect)
        assert "Keep them out for" in confirm and "revoke the key" in confirm
        await asyncio.to_thread(operator.post, disconnect, {"post": "yes", "keep_out": "10"}, confirm)
        last = await pat.wait_closed(timeout=5)
        assert any("10 minutes" in f.get("text", "") for f in last if f["type"] == "system"), last
        code, message = await _refused(server, pat_key)
        assert code == "bad_key" and "disconnected you" in message and "10 minutes" in message
        await kay.say("Kay still plays.")
        assert (await kay.expect("narrative"))["text"] == "Kay still plays."
    history = await asyncio.to_thread(operator.get, f"/admin/rooms/room/{room_id_of(env, room)}/history/")
    assert "kept out for 10 minutes" in history


async def test_a_disconnect_without_a_cool_down_lets_the_member_back_at_once(server, room):
    env = server.env
    operator = OperatorSession(server)
    pat_key = env.mint(room, "Pat")
    async with await WsClient.connect(server.ws_url) as pat:
        await pat.join(pat_key)
        disconnect, _revoke = await _links(operator, env, room, "Pat")
        await asyncio.to_thread(operator.post, disconnect, {"post": "yes", "keep_out": "0"})
        await pat.wait_closed(timeout=5)
    async with await WsClient.connect(server.ws_url) as back:
        welcomed = await back.join(pat_key)
        assert welcomed[0]["type"] == "welcome"


async def test_revoking_a_key_closes_the_member_and_keeps_them_out_but_never_the_last_keeper(server, room):
    """The last keeper key is not offered for revoking, and refused before any
    confirmation when its address is typed (asking first, then refusing, is a trap)."""
    env = server.env
    operator = OperatorSession(server)
    pat_key = env.mint(room, "Pat")
    async with await WsClient.connect(server.ws_url) as kay, await WsClient.connect(server.ws_url) as pat:
        await kay.join(env.mint(room, "Kay", "keeper"))
        await pat.join(pat_key)
        _disconnect, revoke = await _links(operator, env, room, "Pat")
        confirm = await asyncio.to_thread(operator.get, revoke)
        assert "Revoke the key of <b>Pat</b>" in confirm
        await asyncio.to_thread(operator.post, revoke, {"post": "yes"}, confirm)
        closing = await pat.wait_closed(timeout=5)
        assert [f["code"] for f in closing if f["type"] == "error"] == ["bad_key"]
        code, _message = await _refused(server, pat_key)
        assert code == "bad_key"

        disconnect_kay, revoke_kay = await _links(operator, env, room, "Kay")
        assert revoke_kay == "", "the room page offers no Revoke key for the last keeper key"
        room_page = await asyncio.to_thread(
            operator.get, f"/admin/rooms/room/{room_id_of(env, room)}/change/"
        )
        assert "last keeper key: mint another keeper key to revoke it" in room_page
        typed = disconnect_kay.replace("/disconnect/", "/revoke/")
        page = await asyncio.to_thread(operator.get, typed)
        assert "Kay holds the last keeper key" in page and "Yes, revoke" not in page
        page = await asyncio.to_thread(operator.post, typed, {"post": "yes"})
        assert "Kay holds the last keeper key" in page
        await kay.say("The last keeper stays.")
        assert (await kay.expect("narrative"))["text"] == "The last keeper stays."
