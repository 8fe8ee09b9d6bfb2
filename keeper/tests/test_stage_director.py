"""The Stage Director (`present`): the Keeper hands the players a letter, a clipping, a
title card, a pin on a map or a picture the room has, as a `ui` frame after its
narration; the offline Keeper does so in the sample adventure (keeper/kp/stage.py)."""

from __future__ import annotations

import pytest

from keeper.kp import tools
from keeper.kp.sample import GUIDED_ACTIONS
from keeper.tests.test_sample_adventure import _turn
from loreweaver.testing.clients import WsClient
from loreweaver.testing.servers import dedicated_server
from media_store.models import MediaItem
from rooms.services import room_get_or_create

offline_server = dedicated_server()


@pytest.fixture
def context(db):
    room = room_get_or_create(name="stage")
    return tools.ToolContext(room.pk, "tui:aaaa0001", "Ada", "en")


def _blocks(outcome: tools.ToolOutcome) -> list[dict]:
    return [block for frame in outcome.ui for block in frame["blocks"]]


def test_a_letter_becomes_an_inline_ui_frame(context):
    outcome = tools.run(
        "present",
        {"template": "letter", "body": "Come alone.\x07", "from": "A friend", "hidden": "x"},
        context,
    )
    assert outcome.ui == [
        {
            "type": "ui",
            "panel": "inline",
            "blocks": [{"kind": "letter", "body": "Come alone.", "from": "A friend"}],
        }
    ]
    assert "table sees" in outcome.result


def test_a_template_missing_what_it_needs_shows_nothing_and_tells_the_model(context):
    for arguments in (
        {"template": "clipping", "body": "no headline"},
        {"template": "poster", "body": "no such template"},
        {"template": "image", "picture": "a picture nobody uploaded"},
    ):
        outcome = tools.run("present", arguments, context)
        assert outcome.ui == [] and outcome.result, arguments


def test_a_pin_goes_on_a_picture_of_the_room_by_its_title(context):
    MediaItem.objects.create(
        room_id=context.room_id,
        sha256="cd" * 32,
        kind="image",
        mime="image/png",
        size=1234,
        name="harbour.png",
        uploader_id="tui:aaaa0001",
        uploader_name="Ada",
        frame_id="media-1",
        title="Harbour map",
    )
    pinned = tools.run(
        "present",
        {"template": "map_pin", "picture": "harbour map", "label": "The pier", "x": 0.25, "y": 0.5},
        context,
    )
    assert _blocks(pinned) == [
        {
            "kind": "map_pin",
            "hash": "cd" * 32,
            "mime": "image/png",
            "size": 1234,
            "label": "The pier",
            "x": 0.25,
            "y": 0.5,
        }
    ]
    off_the_map = tools.run(
        "present",
        {"template": "map_pin", "picture": "harbour map", "label": "Far", "x": 3, "y": 0.5},
        context,
    )
    assert off_the_map.ui == []


async def test_the_sample_adventure_opens_with_a_title_card(offline_server, room):
    async with await WsClient.connect(offline_server.ws_url) as keeper:
        await keeper.join(offline_server.env.mint(room, "Kay", "keeper"))
        await keeper.say(GUIDED_ACTIONS[0])
        opening = await _turn(keeper)
        kinds = [frame["type"] for frame in opening]
        card = opening[kinds.index("ui")]
        assert card["blocks"] == [
            {
                "kind": "title_card",
                "title": "The Lamp at Gull Rock",
                "subtitle": "Kingsmouth, autumn 1923",
                "act": "Act I",
            }
        ]
        first_narrative = next(
            i
            for i, f in enumerate(opening)
            if f["type"] in ("narrative", "narrative_delta") and f["speaker"] == "kp"
        )
        # The card opens the scene: it comes before the Keeper's narration of it.
        assert kinds.index("ui") < first_narrative
