"""`admin_mint_key` with `purpose` and `expires_in`: what the keeper screen's "Mint bind
token (10 min)" sends. The replies say the purpose and when a key runs out; a bind token
and an expired key are refused at join (docs/decisions.md, "Keys and keeper administration")."""

from __future__ import annotations

import datetime

import pytest

from loreweaver.testing.clients import WsClient, connect
from loreweaver.testing.servers import set_key_expiry


async def _keeper(server, room: str) -> WsClient:
    client = await WsClient.connect(server.ws_url)
    await client.join(server.env.mint(room, "Keeper", "keeper"))
    return client


async def test_a_bind_token_reports_its_purpose_and_expiry_and_cannot_join(server, room, carrier):
    async with await _keeper(server, room) as keeper:
        before = datetime.datetime.now(datetime.UTC)
        await keeper.send(
            {"type": "admin_mint_key", "name": "Chat", "purpose": "chat_bind", "expires_in": 600}
        )
        reply = await keeper.expect("admin_keys")
    minted = reply["minted"]
    assert minted["purpose"] == "chat_bind"
    expires_at = datetime.datetime.strptime(minted["expires_at"], "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.UTC
    )
    assert before + datetime.timedelta(seconds=595) <= expires_at <= before + datetime.timedelta(seconds=605)
    listed = next(k for k in reply["keys"] if k["name"] == "Chat")
    assert (listed["purpose"], listed["expires_at"]) == ("chat_bind", minted["expires_at"])
    async with await connect(carrier, server) as stranger:
        await stranger.send({"type": "join", "key": minted["key"]})
        refused = await stranger.wait_closed()
    assert refused[0]["type"] == "error" and refused[0]["code"] == "bad_key"


@pytest.mark.parametrize("seconds", [59, 30 * 24 * 3600 + 1, 0])
async def test_a_life_outside_a_minute_to_thirty_days_is_a_bad_request(server, room, seconds):
    async with await _keeper(server, room) as keeper:
        await keeper.send({"type": "admin_mint_key", "name": "Odd", "expires_in": seconds})
        refused = await keeper.expect("admin_error")
        await keeper.send({"type": "admin_list_keys"})
        listing = await keeper.expect("admin_keys")
    assert refused["code"] == "bad_request"
    assert "Odd" not in [k["name"] for k in listing["keys"]], "nothing was minted"


async def test_a_key_is_refused_and_unlisted_once_its_time_has_passed(server, room):
    async with await _keeper(server, room) as keeper:
        await keeper.send({"type": "admin_mint_key", "name": "Guest", "expires_in": 60})
        guest_key = (await keeper.expect("admin_keys"))["minted"]["key"]
        async with await WsClient.connect(server.ws_url) as guest:
            assert (await guest.join(guest_key))[0]["type"] == "welcome", "it works before it runs out"
        set_key_expiry(
            server.env, room, "Guest", datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=1)
        )
        async with await WsClient.connect(server.ws_url) as late:
            await late.send({"type": "join", "key": guest_key})
            assert (await late.wait_closed())[0]["code"] == "bad_key"
        await keeper.send({"type": "admin_list_keys"})
        assert "Guest" not in [k["name"] for k in (await keeper.expect("admin_keys"))["keys"]]


async def test_a_joined_member_is_let_go_when_the_key_runs_out(server, room):
    async with await _keeper(server, room) as keeper:
        await keeper.send({"type": "admin_mint_key", "name": "Visitor", "expires_in": 60})
        visitor_key = (await keeper.expect("admin_keys"))["minted"]["key"]
    soon = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=2)
    set_key_expiry(server.env, room, "Visitor", soon)
    async with await WsClient.connect(server.ws_url) as visitor:
        await visitor.join(visitor_key)
        last = await visitor.wait_closed(timeout=15)
    assert last[-1]["type"] == "error" and last[-1]["code"] == "bad_key"
    assert datetime.datetime.now(datetime.UTC) >= soon
