"""The operator sees guests' seats for what they are, prunes the ones that expired
unused, and can let a revoked guest's browser back (docs/operations.md, "Strangers")."""

from __future__ import annotations

import asyncio
import datetime
import re

from loreweaver.testing.clients import WsClient, ask
from loreweaver.testing.operator_http import OperatorSession
from loreweaver.testing.servers import room_id_of, set_key_expiry
from loreweaver.wire.tests.sidequest_client import Browser, open_to_any_name
from loreweaver.wire.tests.test_a_guests_seat_is_bound_to_their_browser import (
    _guest_seats,
    _refusal,
    _visit,
)


async def test_the_operator_sees_guest_seats_prunes_expired_ones_and_lifts_a_revocation(server, room):
    env = server.env
    operator = OperatorSession(server)
    kay = await WsClient.connect(server.ws_url)
    await kay.join(env.mint(room, "Kay", "keeper"))
    open_to_any_name(env, room)
    browsers = {name: Browser() for name in ("Wren", "Robin", "Ash")}
    for name, browser in browsers.items():
        guest, _answer = await _visit(server, browser, name, room)
        await guest.close()

    page = await asyncio.to_thread(operator.get, f"/admin/rooms/room/{room_id_of(env, room)}/change/")
    guest_row = r">Wren</a></td><td class='role'>player \(guest\)</td>"
    assert re.search(guest_row, page), "the room page marks a guest's seat"
    assert re.search(r">Kay</a></td><td class='role'>keeper</td>", page)

    set_key_expiry(env, room, "Robin", datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=1))
    listing = await asyncio.to_thread(operator.get, "/admin/rooms/accesskey/")
    answer = await asyncio.to_thread(
        operator.post, "/admin/rooms/accesskey/", {"action": "prune_expired_guests"}, listing
    )
    assert "Pruned 1 guest seat(s) that expired unused." in answer
    assert _guest_seats(env, room) == ["Ash", "Wren"]

    roster = await ask(kay, {"type": "admin_list_keys"}, "admin_keys")
    wren = next(key for key in roster["keys"] if key["name"] == "Wren")
    await ask(kay, {"type": "admin_delete_key", "id": wren["id"]}, "admin_keys")
    assert "closed this table to you" in await _refusal(server, browsers["Wren"], "Wren", room)
    revoked = await asyncio.to_thread(operator.get, "/admin/rooms/guestrevocation/")
    assert "Wren" in revoked and room in revoked
    revocation = re.search(r'href="/admin/rooms/guestrevocation/(\d+)/change/', revoked).group(1)
    delete = f"/admin/rooms/guestrevocation/{revocation}/delete/"
    await asyncio.to_thread(operator.post, delete, {"post": "yes"})
    back, answer = await _visit(server, browsers["Wren"], "Wren", room)
    assert answer["type"] == "SESSION_EVENT", "once the revocation is deleted, that browser may sit again"
    await back.close()
    await kay.close()
