"""The contract-era SideQuest web client (sidequest-ui 2e38505) plays a whole session
here, sending exactly what it sends (docs/sidequest.md, "The two client generations"):
its lobby reads `/api/genres`; it connects without a key, twice on one socket; creation
choices are 1-based indexes, "Create Character" confirms with "1", and `back` and
`edit` (spelled `targetStep`) move between scenes; then actions, a dot command and a
journal request, each ending with one NARRATION_END; a picture; and a reconnect. A loreweaver
member of the same room hears the SideQuest player's lines."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.request

import websockets

from loreweaver.testing.clients import WsClient, settle, system_answer
from loreweaver.testing.fake_llm import png
from loreweaver.testing.media_clients import upload
from loreweaver.testing.servers import _database, dedicated_server
from loreweaver.wire.tests.sidequest_client import Browser, SideQuestClient, open_to_any_name, ws_url

table = dedicated_server()

# The genres the client has a look for (its `useChromeArchetype`): any other slug
# throws while the page renders.
CLIENT_GENRES = {
    "low_fantasy",
    "victoria",
    "elemental_harmony",
    "heavy_metal",
    "neon_dystopia",
    "space_opera",
    "road_warrior",
    "mutant_wasteland",
    "spaghetti_western",
    "pulp_noir",
    "caverns_and_claudes",
}


def _genres(server) -> dict:
    url = server.ws_url.replace("ws://", "http://").rstrip("/") + "/api/genres"
    return json.loads(urllib.request.urlopen(url, timeout=10).read())


class ContractEraClient(SideQuestClient):
    """What sidequest-ui 2e38505 puts on the wire, message for message."""

    async def connect_as_the_client_does(self, name: str, genre: str, world: str) -> None:
        # Once when the socket opens and once from its 300 ms timer.
        connect = {"event": "connect", "player_name": name, "genre": genre, "world": world}
        await self.send("SESSION_EVENT", connect)
        await self.send("SESSION_EVENT", connect)

    async def choose(self, choice: str) -> dict:
        await self.send("CHARACTER_CREATION", {"phase": "scene", "choice": choice})
        return await self.expect("CHARACTER_CREATION")

    async def act(self, action: str) -> list[dict]:
        """An action as the client sends it, and what came back up to NARRATION_END."""
        await self.send("PLAYER_ACTION", {"action": action, "aside": False})
        return await self.until_end()


async def test_the_contract_era_client_plays_creation_actions_a_dot_command_and_a_reconnect(table, room):
    env = table.env
    async with await WsClient.connect(table.ws_url) as kay:
        await kay.join(env.mint(room, "Kay", "keeper"))  # the room exists; the keeper opens it
        open_to_any_name(env, room)
        listed = await asyncio.to_thread(_genres, table)
        assert set(listed) <= CLIENT_GENRES
        assert listed["pulp_noir"]["worlds"] == [room], "a CoC room is listed under pulp_noir"
        assert all(isinstance(world, str) for entry in listed.values() for world in entry["worlds"])

        browser = Browser()  # Wren's browser keeps the cookie her seat is bound to
        async with await ContractEraClient.open(table, browser=browser) as wren:
            await wren.connect_as_the_client_does("Wren", "pulp_noir", room)
            assert (await wren.expect("SESSION_EVENT"))["event"] == "connected"
            first = await wren.expect("CHARACTER_CREATION")
            assert first["scene_index"] == 0, "the client shows Back from scene_index 1 on"
            # The second connect is answered as the first was: no error.
            assert (await wren.expect("SESSION_EVENT"))["event"] == "connected"
            assert (await wren.expect("CHARACTER_CREATION"))["scene_index"] == 0

            pronouns = await wren.choose("Wren Hale")
            assert pronouns["scene_index"] == 1 and pronouns["choices"][1]["label"] == "he/him"
            origin = await wren.choose("2")  # the second choice, as a 1-based index
            await wren.send("CHARACTER_CREATION", {"action": "back"})
            again = await wren.expect("CHARACTER_CREATION")
            assert again["scene_index"] == 1 and again["previous_choice"] == 1
            assert (await wren.choose("3"))["scene_index"] == origin["scene_index"] == 2
            confirmation = await wren.choose("A ferry pilot who knows every reef.")
            assert confirmation["phase"] == "confirmation"
            assert list(confirmation["character_preview"].values()) == [
                "Wren Hale",
                "they/them",
                "A ferry pilot who knows every reef.",
            ]
            await wren.send("CHARACTER_CREATION", {"action": "edit", "targetStep": 1})
            assert (await wren.expect("CHARACTER_CREATION"))["previous_choice"] == 2
            confirmation = await wren.choose("1")  # the rest of the answers are kept
            assert list(confirmation["character_preview"].values())[1:] == [
                "she/her",
                "A ferry pilot who knows every reef.",
            ]
            await wren.send("CHARACTER_CREATION", {"phase": "confirmation", "choice": "1"})
            character = (await wren.expect("CHARACTER_CREATION", phase="complete"))["character"]
            assert character["name"] == "Wren Hale" and character["pronouns"] == "she/her"

            party = await wren.expect("PARTY_STATUS")
            me = next(m for m in party["members"] if m["name"] == "Wren")  # as the client finds itself
            assert (
                me["character_name"] == "Wren Hale"
                and me["sheet"]["stats"]
                and "ferry pilot" in me["sheet"]["backstory"]
            )
            assert me["inventory"] == {"items": [], "gold": 0}

            answer = await wren.act("I look along the harbour for a boat.")
            kinds = [m["type"] for m in answer]
            assert kinds.index("THINKING") < kinds.index("NARRATION") and kinds.count("NARRATION_END") == 1
            assert "ERROR" not in kinds
            turn = [m["payload"] for m in answer if m["type"] == "TURN_STATUS"]
            assert [(t["player_name"], t["status"]) for t in turn] == [
                ("Wren", "active"),
                ("Wren", "resolved"),
            ]
            heard = await kay.expect("narrative", speaker="player")
            assert heard["name"] == "Wren" and heard["text"] == "I look along the harbour for a boat."

            rolled = await wren.act(".r 1d20")
            narrations = [m["payload"]["text"] for m in rolled if m["type"] == "NARRATION"]
            assert [m["type"] for m in rolled].count("NARRATION_END") == 1
            assert sum(text.count("1d20") for text in narrations) == 1, f"the roll is told once: {narrations}"

            for command in (".help", ".st", ".recap", ".nosuchcommand", "。r 2d6"):
                answer = await wren.act(command)
                assert [m["type"] for m in answer].count("NARRATION") >= 1, (command, answer)

            # A picture the keeper puts in the room: the client's gallery fetches its link.
            picture = png(6, 6, (10, 120, 60))
            await upload(kay, picture, "image/png", "map.png")
            image = await wren.expect("IMAGE")
            fetched = await asyncio.to_thread(lambda: urllib.request.urlopen(image["url"], timeout=10).read())
            assert fetched == picture and image["render_id"]

            # The room's lore: footnotes without a model, and the journal the client asks for.
            await settle(kay)  # what Kay was sent so far, so the answers below are the lore's
            await system_answer(
                kay, ".lore add The Lamp | lamp, lighthouse | The lamp at Gull Rock has been dark a year."
            )
            await system_answer(kay, ".lore secret Silas | ferry | Silas sank the ferry.")
            answer = await wren.act("I ask the harbourmaster about the lamp and the ferry.")
            notes = [n for m in answer if m["type"] == "NARRATION" for n in m["payload"]["footnotes"]]
            assert [n["summary"] for n in notes] == ["The Lamp: The lamp at Gull Rock has been dark a year."]
            assert "Silas" not in json.dumps(answer), "keeper-only lore reaches no player"
            await wren.send("JOURNAL_REQUEST", {"sort_by": "time"})
            entries = (await wren.expect("JOURNAL_RESPONSE"))["entries"]
            assert [e["content"] for e in entries if e["category"] == "Lore"] == [notes[0]["summary"]]
            assert all(e["source"] and e["confidence"] and e["fact_id"] for e in entries)
            assert "Silas" not in json.dumps(entries)
            await wren.send("JOURNAL_REQUEST", {"category": "Place", "sort_by": "time"})
            assert all(e["category"] == "Place" for e in (await wren.expect("JOURNAL_RESPONSE"))["entries"])

        # A reconnect (the client's 1 s retry): the same browser is the same member.
        async with await ContractEraClient.open(table, browser=browser) as wren:
            await wren.connect_as_the_client_does("Wren", "pulp_noir", room)
            ready = await wren.expect("SESSION_EVENT", event="ready")
            assert ready["initial_state"]["characters"][0]["name"] == "Wren Hale"
            answer = await wren.act("I untie the boat.")
            told = [m["payload"].get("text", "") for m in wren.seen if m["type"] == "NARRATION"]
            assert wren.seen[0]["type"] == "SESSION_EVENT", "the story comes after ready"
            assert not any(text.startswith("Wren: ") for text in told), "my own lines are not told back"
            assert any(re.fullmatch(r"Wren Hale rolls 2d6: \d+", text) for text in told), (
                "a command's roll, on its own, under the character's name"
            )
            assert any("goes over this place slowly" in text for text in told), (
                "the story so far, after ready"
            )
    assert not any(m["type"] == "ERROR" for m in wren.seen), [m for m in wren.seen if m["type"] == "ERROR"]


async def test_a_room_is_listed_under_the_genre_its_operator_chose(table, room):
    env = table.env
    async with await WsClient.connect(table.ws_url) as kay:
        await kay.join(env.mint(room, "Kay", "keeper"))
    open_to_any_name(env, room)
    with _database(env) as (connection, mark):
        connection.execute(
            f"UPDATE rooms_room SET sidequest_genre = {mark} WHERE name = {mark}", ("victoria", room)
        )
    listed = await asyncio.to_thread(_genres, table)
    assert room in listed["victoria"]["worlds"] and room not in json.dumps(listed.get("pulp_noir", {}))


async def test_a_closed_room_is_never_listed(table, room):
    async with await WsClient.connect(table.ws_url) as kay:
        await kay.join(table.env.mint(room, "Kay", "keeper"))
    assert room not in json.dumps(await asyncio.to_thread(_genres, table))
    async with websockets.connect(ws_url(table)) as socket:
        await socket.send(
            json.dumps(
                {
                    "type": "SESSION_EVENT",
                    "payload": {
                        "event": "connect",
                        "player_name": "Wren",
                        "genre": "pulp_noir",
                        "world": room,
                    },
                    "player_id": "",
                }
            )
        )
        refused = json.loads(await asyncio.wait_for(socket.recv(), 10))
        assert refused["type"] == "ERROR" and refused["payload"]["reconnect_required"] is False


async def test_confrontation_messages_get_a_notice_and_seats_are_confirmed(table, room):
    """Beats, their dice and yielding (both client generations send some of them) have no
    place at this table: each is answered with a notice that ends the client's wait.
    The current client's seat, taken after creation, is confirmed."""
    async with await ContractEraClient.open(table, table.env.mint(room, "Wren")) as wren:
        await wren.connect_as_the_client_does("Wren", "pulp_noir", room)
        await wren.expect("CHARACTER_CREATION")
        for kind, payload in (
            ("BEAT_SELECTION", {"beat_id": "strike", "actor": "player"}),
            ("DICE_THROW", {"request_id": "r1", "throw_params": {}, "face": [14], "beat_id": "strike"}),
            ("YIELD", {}),
        ):
            await wren.send(kind, payload)
            answer = await wren.until_end()
            notice = next(m["payload"]["text"] for m in answer if m["type"] == "NARRATION")
            assert "no confrontations" in notice, (kind, answer)
        await wren.send("PLAYER_SEAT", {"character_slot": "Wren Hale"})
        seat = await wren.expect("SEAT_CONFIRMED")
        assert seat["character_slot"] == "Wren Hale" and seat["player_id"]
    assert not any(m["type"] == "ERROR" for m in wren.seen)
