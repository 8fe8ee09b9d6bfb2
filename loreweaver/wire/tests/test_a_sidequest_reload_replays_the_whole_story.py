"""A SideQuest player's reload loses nothing the server can send again (docs/sidequest.md,
"Joining"). Both client generations clear their story when `ready` comes to a freshly
loaded page, so the join tells it again, in order: the player's own actions (as
`PLAYER_ACTION`, which both draw as their player's own lines), the keeper's lines, and
the answers of the commands the whole table saw (`.coc`, `.inv give`, `.quest add`).
Neither generation has a quest panel: an open quest is a journal `Quest` entry, told
unasked when it opens and after a reload; a keeper-only quest never reaches a player.

Each generation is driven as it plays: a guest by its browser's cookie; the
contract-era client (2e38505) connects by world, twice on one socket; the current one
(ffa5a44) by game slug, naming the last `seq` it saw when its page was reloaded."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

import pytest

from loreweaver.testing.clients import WsClient, settle, system_answer
from loreweaver.testing.servers import dedicated_server
from loreweaver.wire.tests.sidequest_client import Browser, SideQuestClient, http_json, open_to_any_name

contract_era = dedicated_server()
current = dedicated_server(TRPG_SIDEQUEST__CLIENT="current")

ACTION = "I look along the harbour for a boat."


@dataclass
class Played:
    """What the player's page was sent while it was open, then after its reload (from
    the `ready` to the party that ends the story so far)."""

    live: list[dict]
    reloaded: list[dict]


class Page:
    """One generation's page in one browser: how it connects, live and after a reload."""

    def __init__(self, server, room: str, generation: str) -> None:
        self.server, self.room, self.generation = server, room, generation
        self.browser = Browser()
        self.slug = ""

    async def open(self) -> SideQuestClient:
        if self.generation == "current" and not self.slug:
            start = {"genre_slug": "pulp_noir", "world_slug": self.room, "mode": "multiplayer"}
            status, game = await asyncio.to_thread(http_json, self.server, "/api/games", start)
            assert status == 200, game
            self.slug = game["slug"]
        return await SideQuestClient.open(self.server, browser=self.browser)

    async def connect(self, client: SideQuestClient, last_seen_seq: int | None = 0) -> None:
        """The first connect of a page (the contract-era client sends a second one later)."""
        if self.generation == "current":
            await client.connect_by_slug(self.slug, "Wren", last_seen_seq)
        else:
            await client.connect("Wren", world=self.room)


async def _play_then_reload(server, room: str, generation: str) -> Played:
    """Kay (a keeper at the loreweaver table) makes a character; Wren joins as a guest,
    makes hers and acts; Kay gives her a lantern, opens a quest and a keeper-only one and
    says a line; then Wren's page is reloaded."""
    page = Page(server, room, generation)
    async with await WsClient.connect(server.ws_url) as kay:
        await kay.join(server.env.mint(room, "Kay", "keeper"))
        open_to_any_name(server.env, room)
        assert (await system_answer(kay, ".coc Kay")).startswith("Kay made Kay:")

        async with await page.open() as wren:
            await page.connect(wren)
            await wren.make_character("Wren Hale")
            await wren.until_end()  # the room's opening: its story has not begun
            await wren.act(ACTION)
            await wren.until_end()
            await settle(kay)
            await system_answer(kay, ".inv add Lantern | tool | An oil lantern")
            await system_answer(kay, ".inv give Lantern to Wren Hale")
            await system_answer(kay, ".quest add Light the lamp | Learn why the lighthouse is dark")
            await system_answer(kay, ".quest secret Ruth's bribe | Silas paid the harbour master")
            await kay.say("The fog rolls in off the water.")
            await wren.expect("TURN_STATUS", player_name="Kay", status="resolved")  # the Keeper answered
            live = list(wren.seen)

    numbered = [m["payload"]["seq"] for m in live if "seq" in m["payload"]]
    last_seen = max(numbered) if generation == "current" else 0
    async with await page.open() as wren:
        await page.connect(wren, last_seen)
        await wren.expect("SESSION_EVENT", event="ready")
        await wren.expect("PARTY_STATUS")  # the story so far comes before it
        reloaded = list(wren.seen)
        if generation == "contract":  # its second connect is answered as the first was
            await page.connect(wren)
            await wren.expect("SESSION_EVENT", event="ready")
            await wren.expect("PARTY_STATUS")
            assert not any(m["type"] in ("NARRATION", "PLAYER_ACTION") for m in wren.seen[len(reloaded) :])
    return Played(live, reloaded)


def _story(messages: list[dict]) -> list[tuple[str, str]]:
    """The lines a page draws, in order: ("mine", action) and ("told", text)."""
    lines = []
    for m in messages:
        if m["type"] == "PLAYER_ACTION":
            lines.append(("mine", m["payload"]["action"]))
        elif m["type"] == "NARRATION":
            lines.append(("told", m["payload"]["text"]))
    return lines


def _in_order(story: list[tuple[str, str]], wanted: list[tuple[str, str]]) -> list[int]:
    """Where each of `wanted` is in `story` (a told line by its beginning), each found once."""
    places = []
    for kind, start in wanted:
        found = [i for i, (k, text) in enumerate(story) if k == kind and text.startswith(start)]
        assert len(found) == 1, f"{kind} {start!r} told {len(found)} times in {story}"
        places.append(found[0])
    return places


@pytest.fixture(params=["contract", "current"])
def generation(request) -> str:
    return request.param


@pytest.fixture
def server(generation, request):
    return request.getfixturevalue("current" if generation == "current" else "contract_era")


async def test_a_reload_tells_the_player_their_own_actions_as_theirs(server, room, generation):
    played = await _play_then_reload(server, room, generation)
    assert not any(m["type"] == "PLAYER_ACTION" for m in played.live), "live, the page shows what it typed"
    mine = [m["payload"] for m in played.reloaded if m["type"] == "PLAYER_ACTION"]
    assert [(p["action"], p["aside"]) for p in mine] == [(ACTION, False)]
    if generation == "current":
        assert isinstance(mine[0]["seq"], int), "numbered like every story line"
    told = [text for kind, text in _story(played.reloaded) if kind == "told"]
    assert not any(ACTION in text for text in told), "never as someone else's line"


async def test_a_reload_tells_the_keepers_item_quest_and_character_lines_in_order(server, room, generation):
    played = await _play_then_reload(server, room, generation)
    wanted = [
        ("told", "Kay made Kay:"),
        ("told", "Wren made Wren Hale:"),
        ("mine", ACTION),
        ("told", "Kay takes the Lantern."),
        ("told", "Kay gives the Lantern to Wren Hale."),
        ("told", "A new quest: Light the lamp."),
        ("told", "Kay: The fog rolls in off the water."),
    ]
    places = _in_order(_story(played.reloaded), wanted)
    assert places == sorted(places), _story(played.reloaded)
    live = [(kind, text) for kind, text in wanted if kind == "told" and not text.startswith("Kay made")]
    _in_order(_story(played.live), live)  # what the page showed before, creation's line included
    seen = json.dumps(played.live + played.reloaded, ensure_ascii=False)
    assert "Ruth" not in seen and "Silas" not in seen, "a keeper-only quest reaches no player"


async def test_an_open_quest_is_a_journal_entry_live_and_after_a_reload_and_a_secret_one_never(
    server, room, generation
):
    played = await _play_then_reload(server, room, generation)
    for messages in (played.live, played.reloaded):
        entries = [e for m in messages if m["type"] == "JOURNAL_RESPONSE" for e in m["payload"]["entries"]]
        quests = [e for e in entries if e["category"] == "Quest"]
        assert [e["content"] for e in quests][-1:] == ["Light the lamp: Learn why the lighthouse is dark"]
        assert all(e["fact_id"].startswith("quest-") and e["source"] and e["confidence"] for e in quests)
    journal_told = [i for i, m in enumerate(played.reloaded) if m["type"] == "JOURNAL_RESPONSE"]
    ready = next(i for i, m in enumerate(played.reloaded) if m["payload"].get("event") == "ready")
    assert journal_told and journal_told[0] > ready, "after the ready that clears the page"
    seen = json.dumps(played.live + played.reloaded, ensure_ascii=False)
    assert "Ruth" not in seen


async def test_a_current_page_that_kept_its_story_is_not_told_its_own_actions_again(current, room):
    page = Page(current, room, "current")
    async with await WsClient.connect(current.ws_url) as kay:
        await kay.join(current.env.mint(room, "Kay", "keeper"))
        open_to_any_name(current.env, room)
        async with await page.open() as wren:
            await page.connect(wren)
            await wren.make_character("Wren Hale")
            await wren.until_end()  # the room's opening: its story has not begun
            await wren.act(ACTION)
            await wren.until_end()
    # The client's own retry on a live page (its socket dropped) names no last seq.
    async with await page.open() as wren:
        await page.connect(wren, None)
        await wren.expect("SESSION_EVENT", event="ready")
        await wren.expect("PARTY_STATUS")
        assert not any(m["type"] == "PLAYER_ACTION" for m in wren.seen), "the page still shows what it typed"
        assert any(m["type"] == "NARRATION" and "seq" in m["payload"] for m in wren.seen)
