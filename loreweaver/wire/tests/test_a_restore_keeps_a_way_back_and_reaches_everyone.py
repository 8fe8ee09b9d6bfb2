"""No restore without a way back, and a restore reaches everyone at once
(docs/operations.md, "Restoring"): every door (a keeper's frame, `.save load`, the
console, `manage.py restore_room`) first writes the room as it was as a listed
`before-restore-…` backup, and restoring that brings back the exact room; every member
connected on either carrier (and a SideQuest guest) is shown the restored room without
reconnecting: the story cleared, a line naming the backup and the one that undoes it,
the story as it is now, a fresh state. Restored lines keep the time they were told."""

from __future__ import annotations

import asyncio
import re

from loreweaver.testing.backups import listed_backups
from loreweaver.testing.clients import Client, WsClient, connect, settle, state_now, system_answer
from loreweaver.testing.fake_llm import png
from loreweaver.testing.media_clients import upload
from loreweaver.testing.operator_http import OperatorSession
from loreweaver.testing.servers import _database, room_id_of
from loreweaver.wire.tests.sidequest_client import Browser, SideQuestClient, open_to_any_name

UNDO = re.compile(r"before-restore-\d{8}-\d{6}-\d+")


async def _table(server, room: str, carrier: str) -> tuple[WsClient, str, Client, str]:
    """Kay (keeper, WebSocket) and Pip (player, over `carrier`) with a story, a
    character with items and money, a quest and a picture; then a backup of it all
    ("calm"), after which the story goes on."""
    kay_key, pip_key = server.env.mint(room, "Kay", "keeper"), server.env.mint(room, "Pip")
    kay = await WsClient.connect(server.ws_url)
    await kay.join(kay_key)
    pip = await connect(carrier, server)
    await pip.join(pip_key)
    await system_answer(kay, ".bot off")  # the keeper narrates: the story is these lines
    await system_answer(pip, ".coc Pip Hale")
    await system_answer(pip, ".inv add Rope x2")
    await system_answer(pip, ".money +3")
    await system_answer(kay, ".quest add Light the lamp | Learn why the lighthouse is dark")
    await upload(kay, png(4, 4, (200, 40, 40)), "image/png", "map.png")
    await kay.say("The fog rolls in.")
    await pip.expect("narrative", text="The fog rolls in.")
    await kay.send({"type": "admin_export_room", "room": room, "path": "calm"})
    assert (await kay.expect("admin_room_op"))["path"] == "calm.zip"
    await kay.say("The storm breaks.")
    await pip.expect("narrative", text="The storm breaks.")
    await system_answer(pip, ".inv add Lantern")
    await settle(kay)
    await settle(pip)
    return kay, kay_key, pip, pip_key


async def _shown_the_restored_room(member: Client, backup: str) -> tuple[str, list[str], dict]:
    """What a connected member is shown after a restore: the notice, the story's lines
    and the fresh state (the `state{reset:true}` comes first, and clears the story)."""
    await member.expect("state", reset=True)
    frames = await member.collect_until("state")
    notices = [f["text"] for f in frames if f["type"] == "system" and backup in f.get("text", "")]
    lines = [f["text"] for f in frames if f["type"] == "narrative"]
    assert notices, frames
    return notices[0], lines, frames[-1]


async def _room_as_seen(server, key: str) -> tuple[list[str], set[str], list[dict], int, list[str]]:
    """The room as a member joining now sees it: story lines, picture hashes, their
    character's items and money, the quests."""
    async with await WsClient.connect(server.ws_url) as member:
        frames = await member.join(key)
        state = await state_now(member)
    lines = [f["text"] for f in frames if f["type"] == "narrative" and f["speaker"] != "system"]
    hashes = {f["hash"] for f in frames if f["type"] == "media"}
    character = state["character"]
    return lines, hashes, character["items"], character["money"], [q["name"] for q in state.get("quests", [])]


async def test_a_keepers_restore_shows_everyone_the_room_and_its_backup_undoes_it(server, room, carrier):
    kay, kay_key, pip, pip_key = await _table(server, room, carrier)
    before = await _room_as_seen(server, pip_key)
    assert "The storm breaks." in before[0] and [i["name"] for i in before[2]] == ["Rope", "Lantern"]
    async with kay, pip:
        await kay.send({"type": "admin_import_room", "path": "calm.zip"})
        op = await kay.expect("admin_room_op")
        assert op["action"] == "import" and UNDO.fullmatch(op["safety_backup"]), op
        # (The keeper is shown it too, perhaps before the answer to the frame.)
        notice, lines, state = await _shown_the_restored_room(pip, "calm")
        assert op["safety_backup"] in notice
        assert lines == ["The fog rolls in."], "the story as the backup kept it, shown whole"
        assert [i["name"] for i in state["character"]["items"]] == ["Rope"] and state["character"][
            "money"
        ] == 3
        listed = [b["name"] for b in listed_backups(server, kay_key)]
        assert any(name.startswith(op["safety_backup"]) for name in listed), listed

        await kay.send({"type": "admin_import_room", "path": op["safety_backup"]})  # undo
        undo = await kay.expect("admin_room_op")
        _notice, lines, _state = await _shown_the_restored_room(pip, op["safety_backup"])
        assert lines == ["The fog rolls in.", "The storm breaks."]
    assert UNDO.fullmatch(undo["safety_backup"]) and undo["safety_backup"] != op["safety_backup"]
    assert await _room_as_seen(server, pip_key) == before, (
        "the exact room: story, items, money, quest, pictures"
    )


async def test_a_loaded_checkpoint_names_its_way_back_and_reaches_a_sidequest_guest(server, room):
    kay, kay_key, pip, _pip_key = await _table(server, room, "ws")
    open_to_any_name(server.env, room)
    async with kay, pip, await SideQuestClient.open(server, browser=Browser()) as wren:
        await wren.connect("Wren", world=room)
        await wren.expect("CHARACTER_CREATION", phase="scene")
        answer = await system_answer(kay, ".save load calm")
        undo = UNDO.search(answer)
        assert undo and f".save load {undo.group()}" in answer, answer
        notice, lines, _state = await _shown_the_restored_room(pip, "calm")
        assert undo.group() in notice and lines[-1] == "The fog rolls in."
        # The guest's page starts over at the connect's answer, then the story, then the notice.
        await wren.expect("SESSION_EVENT", event="connected")
        told = []
        while not any("calm" in text for text in told):
            received = await wren.expect("NARRATION")
            told.append(received["text"])
        assert any("The fog rolls in." in text for text in told) and not any("storm" in t for t in told)
    assert any(b["name"].startswith(undo.group()) for b in listed_backups(server, kay_key))


async def test_the_console_and_the_command_restore_after_a_backup_and_lines_keep_their_times(server, room):
    kay, _kay_key, pip, _pip_key = await _table(server, room, "iroh")
    told_at = _line_times(server.env, room)
    operator = OperatorSession(server)
    listing = await asyncio.to_thread(operator.get, "/admin/rooms/room/backups/")
    link = r"href=\"(/admin/rooms/room/backups/\d+/restore/)\""
    row = rf"<td>{re.escape(room)}</td>\s*<td>calm\.zip</td>.*?{link}"
    restore = re.search(row, listing, re.S)
    assert restore, listing
    confirm = await asyncio.to_thread(operator.get, restore.group(1))
    assert "before-restore" in confirm and "undo" in confirm
    async with kay, pip:
        page = await asyncio.to_thread(operator.post, restore.group(1), {"post": "yes", "room": ""}, confirm)
        assert UNDO.search(page), "the console names the backup of the room as it was"
        _notice, lines, _state = await _shown_the_restored_room(pip, "calm")
        assert lines == ["The fog rolls in."]
    assert _line_times(server.env, room) == {"The fog rolls in.": told_at["The fog rolls in."]}

    result = await asyncio.to_thread(server.env.manage, "restore_room", "calm")
    assert result.returncode == 0, result.stderr
    undo = UNDO.search(result.stdout)
    assert undo and f"restore_room {undo.group()}" in result.stdout, result.stdout


def _line_times(env, room: str) -> dict[str, str]:
    """Each story line of the room, with the time it was stored."""
    with _database(env) as (connection, mark):
        rows = connection.execute(
            f"SELECT text, created_at FROM rooms_transcriptentry WHERE room_id = {mark}",
            (room_id_of(env, room),),
        ).fetchall()
    return {text: str(moment) for text, moment in rows}


async def test_a_sidequest_page_in_play_starts_over_with_the_restored_story(server, room):
    """Both client generations clear their story only at a `ready` that follows another
    phase, so a guest in play is told `connected`, then `ready`, then the story."""
    async with await WsClient.connect(server.ws_url) as kay:
        await kay.join(server.env.mint(room, "Kay", "keeper"))  # the room exists now
        open_to_any_name(server.env, room)
        await system_answer(kay, ".bot off")
        async with await SideQuestClient.open(server, browser=Browser()) as wren:
            await wren.connect("Wren", world=room)
            await wren.make_character("Wren Hale")
            await system_answer(kay, ".save harbour")
            await kay.say("The storm breaks.")
            while "storm" not in (await wren.expect("NARRATION"))["text"]:
                pass
            await system_answer(kay, ".save load harbour")
            kinds = []
            while not kinds or kinds[-1] != ("SESSION_EVENT", "ready"):
                received = await wren.recv()
                kinds.append((received["type"], received["payload"].get("event")))
            assert ("SESSION_EVENT", "connected") in kinds, "the page leaves play first, so ready clears it"
            told = []
            while not any("harbour" in text for text in told):
                told.append((await wren.expect("NARRATION"))["text"])
            assert not any("storm" in text for text in told), told
