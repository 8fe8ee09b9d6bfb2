"""A scripted SideQuest client plays the contract's lifecycle on `/ws` (docs/sidequest.md):
connect with a key, three creation scenes, confirmation, complete, actions answered
by the offline Keeper (a check among them), an aside, the slash commands, a reconnect
after `reconnect_required`; every message the server sends is validated against the
contract's shapes. A loreweaver client at the same table shares one story with it."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Annotated, Any, Literal

import pytest
import websockets
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from loreweaver.testing.clients import WsClient, settle, until_idle
from loreweaver.testing.fake_llm import FakeLlm, Text, Tool, png
from loreweaver.testing.media_clients import upload
from loreweaver.testing.servers import dedicated_server
from loreweaver.wire.tests.sidequest_client import Browser, open_to_any_name
from rooms.models import SIDEQUEST_GENRES

offline_server = dedicated_server()


class Contract(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class CharacterState(Contract):
    name: str
    hp: int
    max_hp: int
    level: int
    class_: str = Field(alias="class")
    statuses: list[str]
    inventory: list[str]


class StateDelta(Contract):
    location: str | None = None
    characters: list[CharacterState] | None = None
    quests: dict[str, str] | None = None
    items_gained: list[dict] | None = None


class Footnote(Contract):
    marker: int | None = None
    fact_id: str | None = None
    summary: str
    category: Literal["Lore", "Place", "Person", "Quest", "Ability"]
    is_new: bool


class Narration(Contract):
    text: str
    state_delta: StateDelta
    footnotes: list[Footnote]


class NarrationEnd(Contract):
    state_delta: StateDelta


class Choice(Contract):
    label: str
    description: str


class Scene(Contract):
    phase: Literal["scene"]
    scene_index: int
    total_scenes: int
    prompt: str
    choices: list[Choice]
    allows_freeform: bool
    input_type: str
    summary: str | None = None
    message: str | None = None
    character_preview: dict | None = None
    previous_choice: int | None = None
    previous_input: str | None = None


class Confirmation(Contract):
    phase: Literal["confirmation"]
    prompt: str
    character_preview: dict
    choices: list[Choice]


class Complete(Contract):
    phase: Literal["complete"]
    character: dict


class Connected(Contract):
    event: Literal["connected"]
    has_character: bool


class InitialState(Contract):
    characters: list[CharacterState]
    location: str
    quests: dict[str, str]
    turn_count: int


class Ready(Contract):
    event: Literal["ready"]
    initial_state: InitialState


class MemberSheet(Contract):
    stats: dict[str, int]
    abilities: list[str]
    backstory: str
    race: str


class Inventory(Contract):
    items: list[dict]
    gold: int


class Member(Contract):
    player_id: str
    name: str
    character_name: str
    current_hp: int
    max_hp: int
    statuses: list[str]
    class_: str = Field(alias="class")
    level: int
    portrait_url: str | None = None
    sheet: MemberSheet | None = None
    inventory: Inventory | None = None


class PartyStatus(Contract):
    members: list[Member]


class Sheet(Contract):
    name: str
    class_: str = Field(alias="class")
    race: str
    level: int
    stats: dict[str, int]
    abilities: list[str]
    backstory: str
    personality: str
    pronouns: str
    equipment: list[str]
    portrait_url: str | None = None


class MapUpdate(Contract):
    current_location: str
    region: str
    explored: list[dict]
    fog_bounds: dict[str, int]


class Error(Contract):
    message: str
    reconnect_required: bool


class Empty(Contract):
    pass


class Image(Contract):
    url: str
    description: str
    handout: bool
    render_id: str
    tier: Literal["portrait", "scene", "landscape", "abstract", "text", "cartography", "tactical"]
    scene_type: str | None = None
    generation_ms: int | None = None


class TurnStatus(Contract):
    player_name: str
    status: Literal["active", "resolved"]
    state_delta: StateDelta


class ChapterMarker(Contract):
    title: str
    location: str


class CombatEvent(Contract):
    in_combat: bool
    enemies: list[dict]
    turn_order: list[str]
    current_turn: str


class AudioCue(Contract):
    mood: str | None = None
    music_track: str | None = None
    sfx_triggers: list[str] | None = None
    channel: Literal["music", "sfx"]
    action: Literal["play", "fade_in", "fade_out", "stop", "configure"]
    volume: float | None = None


PAYLOADS: dict[str, Any] = {
    "NARRATION": Narration,
    "NARRATION_END": NarrationEnd,
    "THINKING": Empty,
    "SESSION_EVENT": Connected | Ready,
    "CHARACTER_CREATION": Annotated[Scene | Confirmation | Complete, Field(discriminator="phase")],
    "PARTY_STATUS": PartyStatus,
    "CHARACTER_SHEET": Sheet,
    "INVENTORY": Inventory,
    "MAP_UPDATE": MapUpdate,
    "ERROR": Error,
    "TURN_STATUS": TurnStatus,
    "CHAPTER_MARKER": ChapterMarker,
    "COMBAT_EVENT": CombatEvent,
    "AUDIO_CUE": AudioCue,
    "IMAGE": Image,
}


class SideQuestClient:
    """A client of the contract: every message received is checked against it."""

    def __init__(self, socket) -> None:
        self.socket = socket
        self.seen: list[dict] = []

    async def send(self, kind: str, payload: dict) -> None:
        await self.socket.send(json.dumps({"type": kind, "payload": payload, "player_id": ""}))

    async def recv(self) -> dict:
        message = json.loads(await asyncio.wait_for(self.socket.recv(), 20))
        assert set(message) == {"type", "payload", "player_id"}, message
        TypeAdapter(PAYLOADS[message["type"]]).validate_python(message["payload"])
        self.seen.append(message)
        return message

    async def expect(self, kind: str, **fields: Any) -> dict:
        while True:
            message = await self.recv()
            if message["type"] == kind and all(message["payload"].get(k) == v for k, v in fields.items()):
                return message["payload"]

    async def turn(self, action: str, *, aside: bool = False) -> list[dict]:
        """An action, and what came back up to its NARRATION_END."""
        await self.send("PLAYER_ACTION", {"action": action, "aside": aside})
        answer = []
        while True:
            message = await self.recv()
            answer.append(message)
            if message["type"] == "NARRATION_END":
                return answer


async def until_state(client) -> list[dict]:
    """Every frame up to and including the next `state`."""
    return await client.collect_until("state")


def _ws(server, key: str | None = None) -> str:
    url = server.ws_url.rstrip("/") + "/ws"
    return url + (f"?key={key}" if key else "")


async def test_the_genres_list_only_genres_the_client_has_a_look_for(offline_server):
    url = offline_server.ws_url.replace("ws://", "http://").rstrip("/") + "/api/genres"
    body = json.loads(await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=10).read()))
    assert set(body) <= set(SIDEQUEST_GENRES)
    assert all(isinstance(entry["worlds"], list) for entry in body.values())


async def test_without_a_key_the_answer_is_an_error_and_the_socket_closes(offline_server):
    async with websockets.connect(_ws(offline_server)) as socket:
        client = SideQuestClient(socket)
        await client.send(
            "SESSION_EVENT", {"event": "connect", "player_name": "Stranger", "genre": "coc7", "world": ""}
        )
        error = await client.expect("ERROR")
        assert error["reconnect_required"] is False and "key" in error["message"]
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(socket.recv(), 10)


async def test_bad_input_gets_an_error_never_a_silent_close(offline_server, room):
    async with websockets.connect(_ws(offline_server, offline_server.env.mint(room, "Sam"))) as socket:
        client = SideQuestClient(socket)
        await client.send("PLAYER_ACTION", {"action": "I wait."})
        assert (await client.expect("ERROR"))["reconnect_required"] is True, "an action before connect"
        await socket.send(json.dumps({"type": "DANCE", "payload": {}, "player_id": ""}))
        assert "type" in (await client.expect("ERROR"))["message"]
        await socket.send("not json")
        await client.expect("ERROR")
        await client.send(
            "SESSION_EVENT", {"event": "connect", "player_name": "Sam", "genre": "coc7", "world": ""}
        )
        await client.expect("CHARACTER_CREATION", phase="scene")
        await client.send("PLAYER_ACTION", {"action": "x" * 2001})
        assert "action" in (await client.expect("ERROR"))["message"]
        await client.send("PLAYER_ACTION", {"action": 7})
        await client.expect("ERROR")


async def test_a_sidequest_player_and_a_loreweaver_player_share_the_table(offline_server, room):
    env = offline_server.env
    key = env.mint(room, "Sam")
    async with (
        websockets.connect(_ws(offline_server, key)) as socket,
        await WsClient.connect(offline_server.ws_url) as pip,
    ):
        await pip.join(env.mint(room, "Pip"))
        client = SideQuestClient(socket)
        await client.send(
            "SESSION_EVENT", {"event": "connect", "player_name": "Sam", "genre": "coc7", "world": ""}
        )
        assert (await client.expect("SESSION_EVENT"))["has_character"] is False
        scenes = [await client.expect("CHARACTER_CREATION", phase="scene")]
        for choice in ("Sam Reyes", "they/them"):
            await client.send("CHARACTER_CREATION", {"phase": "scene", "choice": choice})
            scenes.append(await client.expect("CHARACTER_CREATION", phase="scene"))
        assert [scene["scene_index"] for scene in scenes] == [0, 1, 2] and scenes[1]["choices"]
        await client.send(
            "CHARACTER_CREATION", {"phase": "scene", "choice": "A dockhand who reads the tides."}
        )
        confirmation = await client.expect("CHARACTER_CREATION", phase="confirmation")
        assert confirmation["character_preview"]["Name"] == "Sam Reyes"
        await client.send("CHARACTER_CREATION", {"phase": "confirmation", "choice": "Yes"})
        character = (await client.expect("CHARACTER_CREATION", phase="complete"))["character"]
        assert character["name"] == "Sam Reyes" and character["hp"] > 0
        made = await client.expect("NARRATION")  # the table's line for it, as the others saw it
        assert made["text"].startswith("Sam made Sam Reyes:")
        await client.expect("NARRATION_END")  # the room's opening: its story has not begun
        await settle(pip)
        await pip.say(".st")  # the same character a loreweaver client reads
        await pip.expect("narrative", speaker="system")

        listen = await client.turn("I listen at the harbour office door.")
        kinds = [message["type"] for message in listen]
        assert "THINKING" in kinds and kinds[-1] == "NARRATION_END"
        assert kinds.index("THINKING") < kinds.index("NARRATION"), "thinking, then the narration"
        narration = "\n".join(m["payload"]["text"] for m in listen if m["type"] == "NARRATION")
        assert "rolls" in narration, "the engine's check is in the narration"
        assert listen[-1]["payload"]["state_delta"]["characters"][0]["name"] == "Sam Reyes"
        seen_by_pip = await until_idle(pip)
        assert any(f.get("text") == "I listen at the harbour office door." for f in seen_by_pip)
        assert any(f["type"] == "narrative" and f["speaker"] == "kp" for f in seen_by_pip)

        aside = await client.turn("brb, coffee", aside=True)
        assert aside[-1]["type"] == "NARRATION_END"
        assert [m["type"] for m in aside if m["type"] == "NARRATION"] == [], "an aside is not narrated"
        await pip.expect("narrative", speaker="player", text="(( brb, coffee ))")
        after = await until_state(pip)
        assert not [f for f in after if f["type"] in ("turn_status", "narrative")], (
            "no Keeper turn for an aside"
        )

        await pip.say("I light the lamp.")
        heard = await client.expect("NARRATION")
        assert heard["text"] == "Pip: I light the lamp."
        await until_idle(pip)

        # A picture a loreweaver player uploads reaches the SideQuest client as a link
        # only a member was given.
        picture = png(6, 6, (10, 120, 60))
        await upload(pip, picture, "image/png", "map.png")
        image = await client.expect("IMAGE")
        fetched = await asyncio.to_thread(lambda: urllib.request.urlopen(image["url"], timeout=10).read())
        assert fetched == picture and image["description"] == "map.png"
        forged = image["url"][:-4] + ("AAAA" if not image["url"].endswith("AAAA") else "BBBB")
        with pytest.raises(urllib.error.HTTPError, match="404"):
            await asyncio.to_thread(lambda: urllib.request.urlopen(forged, timeout=10).read())

        for action in ("I climb the stairs.", "I search the desk.", "I read the ledger."):
            answer = await client.turn(action)
            assert answer[-1]["type"] == "NARRATION_END"

        await client.send("PLAYER_ACTION", {"action": "/status"})
        assert (await client.expect("CHARACTER_SHEET"))["name"] == "Sam Reyes"
        await client.send("PLAYER_ACTION", {"action": "/inventory"})
        await client.expect("INVENTORY")
        await client.send("PLAYER_ACTION", {"action": "/map"})
        await client.expect("MAP_UPDATE")
        for command in ("/help", "/tone grim 3"):
            await client.send("PLAYER_ACTION", {"action": command})
            await client.expect("NARRATION")
        saved = await client.turn("/save")
        assert saved[-1]["type"] == "NARRATION_END"
        assert any(m["type"] == "NARRATION" and "keeper" in m["payload"]["text"].lower() for m in saved)
        await client.send("PLAYER_ACTION", {"action": "/gm set day 3"})
        assert "keeper" in (await client.expect("ERROR"))["message"]

    # A reconnect: told to connect again, then ready with the character it made.
    async with websockets.connect(_ws(offline_server, key)) as socket:
        client = SideQuestClient(socket)
        await client.send("PLAYER_ACTION", {"action": "I look around."})
        assert (await client.expect("ERROR"))["reconnect_required"] is True
        await client.send(
            "SESSION_EVENT", {"event": "connect", "player_name": "Sam", "genre": "coc7", "world": ""}
        )
        ready = await client.expect("SESSION_EVENT", event="ready")
        assert ready["initial_state"]["characters"][0]["name"] == "Sam Reyes"


@pytest.fixture(scope="module")
def two_processes(hosted_env):
    from loreweaver.testing.servers import start_serve

    first, second = start_serve(hosted_env, "--no-iroh"), start_serve(hosted_env, "--no-iroh")
    yield first, second
    first.stop()
    second.stop()


async def test_on_two_processes_a_sidequest_and_a_loreweaver_client_share_the_room(two_processes, room):
    first, second = two_processes
    env = first.env
    async with (
        websockets.connect(_ws(first, env.mint(room, "Sam"))) as socket,
        await WsClient.connect(second.ws_url) as pip,
    ):
        await pip.join(env.mint(room, "Pip"))
        client = SideQuestClient(socket)
        await client.send(
            "SESSION_EVENT", {"event": "connect", "player_name": "Sam", "genre": "coc7", "world": ""}
        )
        await client.expect("CHARACTER_CREATION", phase="scene")
        answer = await client.turn("I knock on the lighthouse door.")
        assert answer[-1]["type"] == "NARRATION_END"
        assert (await pip.expect("narrative", speaker="player", name="Sam"))[
            "text"
        ] == "I knock on the lighthouse door."
        await pip.say("Nobody answers.")
        assert (await client.expect("NARRATION"))["text"] == "Pip: Nobody answers."


def _keeper_turns(frames: list[dict]) -> int:
    """Keeper turns begun in `frames` (a turn's first `busy` names no activity)."""
    return sum(
        1 for f in frames if f["type"] == "turn_status" and f["status"] == "busy" and "activity" not in f
    )


async def test_structured_turns_wait_for_every_player_or_the_rounds_time(offline_server, room):
    env = offline_server.env
    async with (
        await WsClient.connect(offline_server.ws_url) as kay,
        websockets.connect(_ws(offline_server, env.mint(room, "Sam"))) as sam_socket,
        websockets.connect(_ws(offline_server, env.mint(room, "Ann"))) as ann_socket,
    ):
        await kay.join(env.mint(room, "Kay", "keeper"))
        await kay.say(".turns structured 2")
        assert "Structured turns" in (await kay.expect("narrative", speaker="system"))["text"]
        sam, ann = SideQuestClient(sam_socket), SideQuestClient(ann_socket)
        for client, name in ((sam, "Sam"), (ann, "Ann")):
            await client.send(
                "SESSION_EVENT", {"event": "connect", "player_name": name, "genre": "coc7", "world": ""}
            )
            await client.expect("CHARACTER_CREATION", phase="scene")
        await settle(kay)

        # Round one: Sam acts, the Keeper waits for Ann; Ann acts, one Keeper turn answers both.
        answer = await sam.turn("I take the left passage.")
        assert answer[-1]["type"] == "NARRATION_END"
        assert (await ann.expect("TURN_STATUS"))["player_name"] == "Sam"
        waiting = await kay.expect("system")
        assert "Ann" in waiting["text"]
        await ann.turn("I hold the lantern high.")
        frames = await until_idle(kay)
        assert _keeper_turns(frames) == 1
        assert [f["text"] for f in frames if f["type"] == "narrative" and f["speaker"] == "player"] == [
            "I hold the lantern high."
        ]
        await sam.expect("NARRATION")

        # Round two: Ann stays silent; when the round's time is up the Keeper answers Sam.
        await sam.turn("I listen for footsteps.")
        frames = await until_idle(kay, timeout=30)
        assert _keeper_turns(frames) == 1


@pytest.fixture(scope="module")
def scripted_keeper(tmp_path_factory):
    from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, keeper_model, start_serve

    llm = FakeLlm().start()
    env = create_env(tmp_path_factory.mktemp("sidequest-ai"), hosted=hosted_profile())
    server = start_serve(env, **keeper_model(llm.url))
    yield server, llm
    server.stop()
    destroy_env(env)
    llm.stop()


async def test_facts_the_keeper_establishes_become_footnotes(scripted_keeper, room):
    server, llm = scripted_keeper
    env = server.env
    async with (
        await WsClient.connect(server.ws_url) as kay,
        websockets.connect(_ws(server, env.mint(room, "Sam"))) as socket,
    ):
        await kay.join(env.mint(room, "Kay", "keeper"))
        await kay.say(".lore add The pier | pier | The old pier collapsed in the storm of 1911.")
        await kay.say(".lore secret The cult | cult | The mayor leads the cult.")
        await settle(kay)
        client = SideQuestClient(socket)
        await client.send(
            "SESSION_EVENT", {"event": "connect", "player_name": "Sam", "genre": "coc7", "world": ""}
        )
        await client.expect("CHARACTER_CREATION", phase="scene")

        llm.script(
            Text("Tom mutters a word. "),
            Tool("remember", {"title": "The password", "keywords": ["password"], "content": "It is HERON."}),
        )
        llm.script(Text("You reach the old pier, where the cult once met."))
        answer = await client.turn("I ask Tom for the password.")
        notes = [note for m in answer if m["type"] == "NARRATION" for note in m["payload"]["footnotes"]]
        new = [note for note in notes if note["is_new"]]
        callbacks = [note for note in notes if not note["is_new"]]
        assert [note["summary"] for note in new] == ["The password: It is HERON."] and new[0]["marker"] == 1
        assert [note["summary"] for note in callbacks] == [
            "The pier: The old pier collapsed in the storm of 1911."
        ]
        assert callbacks[0]["fact_id"].startswith("lore-")
        assert "mayor" not in json.dumps(client.seen), "a keeper-only fact is never a footnote"


async def test_a_keeper_runs_the_table_with_gm_commands(offline_server, room):
    env = offline_server.env
    async with (
        await WsClient.connect(offline_server.ws_url) as pip,
        websockets.connect(_ws(offline_server, env.mint(room, "Gail", "keeper"))) as socket,
    ):
        await pip.join(env.mint(room, "Pip"))
        await pip.say(".coc Pip")
        hp = next(r for r in (await pip.expect("state"))["character"]["resources"] if r["id"] == "hp")[
            "value"
        ]
        gail = SideQuestClient(socket)
        await gail.send(
            "SESSION_EVENT", {"event": "connect", "player_name": "Gail", "genre": "coc7", "world": ""}
        )
        await gail.expect("SESSION_EVENT")

        await gail.send("PLAYER_ACTION", {"action": "/gm teleport The lighthouse"})
        assert (await gail.expect("MAP_UPDATE"))["current_location"] == "The lighthouse"
        while (await pip.expect("state")).get("scene", {}).get("name") != "The lighthouse":
            pass
        await gail.send("PLAYER_ACTION", {"action": "/gm dmg Pip 2"})
        assert "Pip takes 2 damage" in (await gail.expect("NARRATION"))["text"]
        await gail.expect("NARRATION_END")  # a `/gm` is a turn of the table like any other
        while True:
            state = await pip.expect("state")
            if next(r for r in state["character"]["resources"] if r["id"] == "hp")["value"] == hp - 2:
                break
        spawned = await gail.turn("/gm spawn Old Tom")
        assert any("Old Tom" in m["payload"].get("text", "") for m in spawned if m["type"] == "NARRATION")


async def test_a_room_the_operator_opened_admits_any_name_as_a_player(offline_server, room):
    env = offline_server.env
    async with await WsClient.connect(offline_server.ws_url) as kay:
        await kay.join(env.mint(room, "Kay", "keeper"))  # the room exists
    url = offline_server.ws_url.replace("ws://", "http://").rstrip("/") + "/api/genres"
    listed = json.loads(await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=10).read()))
    assert room not in json.dumps(listed), "a room is never listed unless it is open"
    connect = {"event": "connect", "player_name": "Wanderer", "genre": "coc7", "world": room}
    async with websockets.connect(_ws(offline_server)) as socket:
        closed = SideQuestClient(socket)
        await closed.send("SESSION_EVENT", connect)
        assert (await closed.expect("ERROR"))["reconnect_required"] is False

    open_to_any_name(env, room)
    listed = json.loads(await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=10).read()))
    assert room in listed["pulp_noir"]["worlds"]
    browser = Browser()
    for _visit in range(2):  # the same browser is the same member each time
        async with await browser.connect(_ws(offline_server)) as socket:
            guest = SideQuestClient(socket)
            await guest.send("SESSION_EVENT", connect)
            event = await guest.expect("SESSION_EVENT")
            if event["event"] == "connected":
                await guest.expect("CHARACTER_CREATION", phase="scene")
                for choice in ("Wren", "she/her", "A wanderer.", "Yes"):
                    await guest.send("CHARACTER_CREATION", {"phase": "any", "choice": choice})
                await guest.expect("CHARACTER_CREATION", phase="complete")
            else:
                assert event["initial_state"]["characters"][0]["name"] == "Wren"
            await guest.send("PLAYER_ACTION", {"action": "/gm set day 2"})
            assert "keeper" in (await guest.expect("ERROR"))["message"], "a guest is a player"
