"""The lists the keeper screens read over HTTP (`/table/backups`, `/table/packs`) answer
only a keeper key in the `Authorization` header, and only about its own room: a player,
a missing or wrong key, another room's keeper and a name that tries to leave the room's
backups all get nothing. A download link a keeper asks for opens that one backup and no
other, and a ticket that was tampered with opens nothing."""

from __future__ import annotations

import io
import json
import urllib.error
import urllib.request
import zipfile

from loreweaver.testing.clients import WsClient


def _get(server, path: str, key: str | None) -> tuple[int, bytes]:
    request = urllib.request.Request(server.ws_url.replace("ws://", "http://").rstrip("/") + path)
    if key is not None:
        request.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read()


async def test_only_a_keeper_of_the_room_reads_its_backups_and_packs(server, room):
    env = server.env
    keeper_key, player_key = env.mint(room, "Kay", "keeper"), env.mint(room, "Pat")
    other_keeper = env.mint(room + "-other", "Oz", "keeper")
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(keeper_key)
        for name in ("before-the-storm", "after-the-storm"):
            await keeper.say(f".save {name}")
            saved = await keeper.expect("narrative", speaker="system", timeout=30)
            while "Saved as" not in saved["text"]:
                saved = await keeper.expect("narrative", speaker="system", timeout=30)
    async with await WsClient.connect(server.ws_url) as other:
        await other.join(other_keeper)  # the other room exists, with its keeper

    status, body = _get(server, "/table/backups", keeper_key)
    listed = [b["name"] for b in json.loads(body)["backups"]]
    assert status == 200 and listed == ["after-the-storm.zip", "before-the-storm.zip"], "newest first"
    status, body = _get(server, "/table/backups/before-the-storm.zip", keeper_key)
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        assert status == 200 and json.loads(archive.read("backup.json"))["room"] == room
    status, body = _get(server, "/table/packs", keeper_key)
    assert status == 200 and "harbour-clues" in [p["id"] for p in json.loads(body)["packs"]]

    status, body = _get(server, "/table/backups/before-the-storm.zip/link", keeper_key)
    link = json.loads(body)["url"]
    assert status == 200 and "ticket=" in link and keeper_key not in link
    status, body = _get(server, link, None)  # as the browser follows it: no key
    assert status == 200 and zipfile.ZipFile(io.BytesIO(body)).namelist()[0] == "backup.json"
    elsewhere = link.replace("before-the-storm.zip", "after-the-storm.zip")
    tampered = link[:-3] + ("AAA" if not link.endswith("AAA") else "BBB")
    for refused in (elsewhere, tampered, "/table/backups/before-the-storm.zip?ticket=x"):
        assert _get(server, refused, None)[0] == 403, refused

    for key in (player_key, None, "not-a-key"):
        for path in (
            "/table/backups",
            "/table/backups/before-the-storm.zip",
            "/table/backups/before-the-storm.zip/link",
            "/table/packs",
        ):
            assert _get(server, path, key)[0] == 401, (key, path)
    assert json.loads(_get(server, "/table/backups", other_keeper)[1])["backups"] == []
    for name in ("before-the-storm.zip", "before-the-storm", "..%2F..%2Fkeys.toml", "%2E%2E"):
        assert _get(server, f"/table/backups/{name}", other_keeper)[0] == 404, name
        assert _get(server, f"/table/backups/{name}/link", other_keeper)[0] == 404, name
