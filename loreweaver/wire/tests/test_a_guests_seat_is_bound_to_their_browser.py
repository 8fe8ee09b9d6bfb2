"""A guest of a room open to any name is whoever their browser is, not whatever name
they type (rooms/guests.py, docs/sidequest.md "Guests"): the seat is bound to a cookie
the server gives the browser; a name someone at the table holds is refused to everyone
else, however it is spelled; a revoked seat stays revoked and an operator's Disconnect
holds, whatever name the guest comes back under. Over real sockets, on both profiles."""

from __future__ import annotations

import asyncio
import contextlib

from loreweaver.console.tests.test_a_disconnect_that_holds import member_links
from loreweaver.testing.clients import WsClient, ask
from loreweaver.testing.operator_http import OperatorSession
from loreweaver.testing.servers import _database, room_id_of
from loreweaver.wire.tests.sidequest_client import Browser, Gone, SideQuestClient, open_to_any_name

# Each of these reads "Wren" to a player at the table.
WREN_LOOKALIKES = ["wren", "  WREN ", "Wren\u200b", "W\u00adren", "Ｗｒｅｎ", "Wren\u2060", "\ufeffWren"]


async def _open_room(server, room: str) -> WsClient:
    kay = await WsClient.connect(server.ws_url)
    await kay.join(server.env.mint(room, "HarbourKeeper", "keeper"))
    open_to_any_name(server.env, room)
    return kay


async def _visit(server, browser: Browser, name: str, room: str) -> tuple[SideQuestClient, dict]:
    """`browser` connects to `room` as `name`, as the contract-era client does; the
    socket and the first answer (`SESSION_EVENT` or `ERROR`)."""
    guest = await SideQuestClient.open(server, browser=browser)
    await guest.connect(name, world=room)
    while True:
        answer = await guest.recv()
        if answer["type"] in ("SESSION_EVENT", "ERROR"):
            return guest, answer


async def _refusal(server, browser: Browser, name: str, room: str) -> str:
    """What `browser` is told when it may not sit as `name` (the socket then closes)."""
    guest, answer = await _visit(server, browser, name, room)
    assert answer["type"] == "ERROR", (name, answer)
    await guest.until_closed()
    return answer["payload"]["message"]


async def _make_character(guest: SideQuestClient, character: str) -> None:
    await guest.expect("CHARACTER_CREATION", phase="scene")
    for choice in (character, "she/her", "A ferry pilot."):
        await guest.send("CHARACTER_CREATION", {"phase": "scene", "choice": choice})
    await guest.expect("CHARACTER_CREATION", phase="confirmation")
    await guest.send("CHARACTER_CREATION", {"phase": "confirmation", "choice": "1"})
    await guest.expect("CHARACTER_CREATION", phase="complete")


def _guest_seats(env, room: str) -> list[str]:
    with _database(env) as (connection, mark):
        rows = connection.execute(
            f"SELECT name FROM rooms_accesskey WHERE room_id = {mark} AND guest = {mark} ORDER BY name",
            (room_id_of(env, room), True),
        ).fetchall()
    return [name for (name,) in rows]


async def test_a_name_someone_at_the_table_holds_is_refused_to_every_other_browser(server, room):
    kay = await _open_room(server, room)
    async with await WsClient.connect(server.ws_url) as sam:
        await sam.join(server.env.mint(room, "Sam"))  # a keyed player, offline later
    wren_browser = Browser()
    wren, answer = await _visit(server, wren_browser, "Wren", room)
    assert answer["payload"]["event"] == "connected"
    await _make_character(wren, "Wren Hale")
    await wren.send("PLAYER_ACTION", {"action": ".rh 1d100"})
    await wren.until_end()
    await wren.close()

    for name in [*WREN_LOOKALIKES, "harbourkeeper", "HARBOUR\u200bKEEPER", "sam", " Sam "]:
        stranger = Browser()
        told = await _refusal(server, stranger, name, room)
        assert "already called" in told, (name, told)
        assert "Wren Hale" not in told and "1d100" not in told
    assert _guest_seats(server.env, room) == ["Wren"], "a refused name makes no seat"

    wren, answer = await _visit(server, wren_browser, "Wren", room)  # her own browser: her seat
    assert answer["payload"]["event"] == "ready"
    assert answer["payload"]["initial_state"]["characters"][0]["name"] == "Wren Hale"
    await wren.close()
    await kay.close()


async def test_a_name_of_nothing_visible_is_refused(server, room):
    kay = await _open_room(server, room)
    for nothing in ["\u200b\u200b", "\u3164", "\u2800", " \u00a0 "]:
        told = await _refusal(server, Browser(), nothing, room)
        assert "visible characters" in told, (repr(nothing), told)
    assert _guest_seats(server.env, room) == []
    await kay.close()


async def test_a_revoked_guest_stays_out_whatever_name_they_come_back_under(server, room):
    kay = await _open_room(server, room)
    wren_browser = Browser()
    wren, _answer = await _visit(server, wren_browser, "Wren", room)
    await _make_character(wren, "Wren Hale")
    roster = await ask(kay, {"type": "admin_list_keys"}, "admin_keys")
    seat = next(key for key in roster["keys"] if key["name"] == "Wren")
    await ask(kay, {"type": "admin_delete_key", "id": seat["id"]}, "admin_keys")
    await wren.until_closed()  # revoking closes the live seat

    for name in ["Wren", "Robin", "Wren\u200b"]:
        told = await _refusal(server, wren_browser, name, room)
        assert "closed this table to you" in told, (name, told)
    # The name is free again, for someone else: nothing of Wren's comes with it.
    newcomer, answer = await _visit(server, Browser(), "Wren", room)
    assert answer["payload"]["event"] == "connected" and answer["payload"]["has_character"] is False
    await newcomer.close()
    await kay.close()


async def test_an_operators_disconnect_holds_for_a_guest_under_any_name(server, room):
    kay = await _open_room(server, room)
    operator = OperatorSession(server)
    wren_browser = Browser()
    wren, _answer = await _visit(server, wren_browser, "Wren", room)
    disconnect, _revoke = await asyncio.to_thread(member_links, operator, server.env, room, "Wren")
    confirm = await asyncio.to_thread(operator.get, disconnect)
    await asyncio.to_thread(operator.post, disconnect, {"post": "yes", "keep_out": "10"}, confirm)
    with contextlib.suppress(Gone):
        await wren.until_closed()
    for name in ["Wren", "Wren\u200b", "Robin"]:
        told = await _refusal(server, wren_browser, name, room)
        assert "10 minutes" in told, (name, told)
    await kay.close()
