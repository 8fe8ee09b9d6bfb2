"""`avatar_set`: an image of this room on the
caller's own active character, shown in `state.character.avatar` and `party[].avatar`."""

from __future__ import annotations

import os

from loreweaver.testing.clients import connect
from loreweaver.testing.media_clients import sha, upload

PORTRAIT = b"\x89PNG\r\n\x1a\n" + os.urandom(900)


async def test_a_member_puts_a_portrait_on_their_own_character(media_server, room, carrier):
    env = media_server.env
    async with await connect(carrier, media_server) as ada, await connect(carrier, media_server) as bo:
        await ada.join(env.mint(room, "Ada"))
        await bo.join(env.mint(room, "Bo"))
        stored = await upload(ada, PORTRAIT, "image/png", "ada.png")

        await ada.send({"type": "avatar_set", "hash": stored["hash"]})
        assert (await ada.expect("error"))["code"] == "avatar_no_character"
        await ada.say(".coc Ada")
        await ada.expect("narrative", speaker="system")
        await bo.say(".coc Bo")
        await bo.expect("narrative", speaker="system")

        await bo.send({"type": "avatar_set", "hash": stored["hash"], "character": "Ada"})
        assert (await bo.expect("error"))["code"] == "forbidden"
        await ada.send({"type": "avatar_set", "hash": "f" * 64})
        assert (await ada.expect("error"))["code"] == "media_not_found"

        await ada.send({"type": "avatar_set", "hash": stored["hash"]})
        avatar = {"hash": sha(PORTRAIT), "mime": "image/png", "size": len(PORTRAIT), "name": "ada.png"}
        while True:
            state = await ada.expect("state")
            if state.get("character", {}).get("avatar"):
                break
        assert state["character"]["avatar"] == avatar
        while True:
            seen = await bo.expect("state")
            party = {m["name"]: m for m in seen["party"]}
            if "avatar" in party.get("Ada", {}):
                break
        assert party["Ada"]["avatar"] == avatar and "avatar" not in party["Bo"]
