"""A keeper turns the example pack's panels on in a room: every member gets its own
`ui_manifest` at once (keeper-only panels never in a player's), a joiner gets it
right after the first `state`, and a `panel_intent` acts as the member could type,
only for a panel of their own manifest (docs/packs.md)."""

from __future__ import annotations

import contextlib

from loreweaver.testing.clients import connect, settle
from loreweaver.testing.media_clients import get, sha
from packs import lwpack
from packs.tests.conftest import EXAMPLE

PLAYER_PANELS = ["harbour-clues/clue-board"]
KEEPER_PANELS = ["harbour-clues/clue-board", "harbour-clues/keeper-checklist"]


def _ids(manifest: dict) -> list[str]:
    return [panel["id"] for panel in manifest["panels"]]


@contextlib.asynccontextmanager
async def _table_with_panels_on(server, room: str, carrier: str):
    """A keeper (Kay) and a player (Pip) in `room`, the example pack's panels turned on
    and both manifests read; yields (kay, pip, the keeper's manifest)."""
    env = server.env
    async with await connect(carrier, server) as kay, await connect(carrier, server) as pip:
        await kay.join(env.mint(room, "Kay", "keeper"))
        await pip.join(env.mint(room, "Pip"))
        await settle(pip)
        await kay.say(".panels enable harbour-clues")
        keeper_manifest = await kay.expect("ui_manifest")
        await pip.expect("ui_manifest")
        await settle(pip)
        await settle(kay)
        yield kay, pip, keeper_manifest


async def test_each_member_gets_the_panels_of_their_role_when_a_keeper_turns_them_on(
    panel_server, room, carrier
):
    env = panel_server.env
    async with (
        await connect(carrier, panel_server) as kay,
        await connect(carrier, panel_server) as pip,
    ):
        joined = await kay.join(env.mint(room, "Kay", "keeper"))
        assert joined[-1] == {"type": "ui_manifest", "panels": []}  # installed is not enabled
        await pip.join(env.mint(room, "Pip"))
        await settle(kay)

        await pip.say(".panels enable harbour-clues")
        assert "keeper" in (await pip.expect("narrative", speaker="system"))["text"]

        await kay.say(".panels enable harbour-clues")
        keeper_manifest = await kay.expect("ui_manifest")
        player_manifest = await pip.expect("ui_manifest")
        assert _ids(keeper_manifest) == KEEPER_PANELS
        assert _ids(player_manifest) == PLAYER_PANELS
        for panel in keeper_manifest["panels"] + player_manifest["panels"]:
            assert "audience" not in panel
        board = player_manifest["panels"][0]
        assert board["title"] == {"en": "Clue board", "zh": "线索板"} and board["tier"] == 1
        picture = next(block for block in board["blocks"] if block.get("kind") == "image")
        assert set(picture) >= {"hash", "mime", "size"} and "src" not in picture
        assert picture["mime"] == "image/png"
        gated = next(block for block in board["blocks"] if "visible_when" in block)
        assert gated["visible_when"] == "day >= 3"
        assert "harbour-clues" in (await pip.expect("narrative", speaker="system"))["text"]

        # A joiner gets the manifest right after the first state.
        async with await connect(carrier, panel_server) as late:
            frames = await late.join(env.mint(room, "Lee"))
            types = [frame["type"] for frame in frames]
            assert types[-2:] == ["state", "ui_manifest"]
            assert _ids(frames[-1]) == PLAYER_PANELS

        await kay.say(".panels disable harbour-clues")
        assert (await pip.expect("ui_manifest"))["panels"] == []
        assert (await kay.expect("ui_manifest"))["panels"] == []


async def test_a_panel_intent_acts_as_the_member_and_only_for_their_own_panels(panel_server, room, carrier):
    async with _table_with_panels_on(panel_server, room, carrier) as (kay, pip, _manifest):
        await pip.send(
            {
                "type": "panel_intent",
                "panel": "harbour-clues/keeper-checklist",
                "kind": "input",
                "value": "hi",
            }
        )
        refused = await pip.expect("error")
        assert refused["code"] == "forbidden"
        await pip.send({"type": "panel_intent", "panel": "elsewhere/board", "kind": "choice", "value": "x"})
        assert (await pip.expect("error"))["code"] == "forbidden"

        choice = {"type": "panel_intent", "panel": "harbour-clues/clue-board", "kind": "choice"}
        await pip.send(choice | {"value": "I go to the harbour office."})
        line = await kay.expect("narrative", text="I go to the harbour office.")
        assert line["name"] == "Pip" and line["speaker"] == "player"

        await pip.send(
            {"type": "panel_intent", "panel": "harbour-clues/clue-board", "kind": "roll", "value": "1d6"}
        )
        dice = await kay.expect("dice")
        assert dice["actor"] == "Pip" and dice["expr"] == "1d6"

        await pip.send(choice | {"value": "x" * 2001})
        assert (await pip.expect("error"))["code"] == "input_too_long"


def _picture(manifest: dict, panel_id: str) -> dict:
    panel = next(panel for panel in manifest["panels"] if panel["id"] == panel_id)
    return next(block for block in panel["blocks"] if block.get("kind") == "image")


async def test_a_member_fetches_the_pictures_of_their_own_panels_only(panel_server, room, carrier):
    async with _table_with_panels_on(panel_server, room, carrier) as (kay, pip, keeper_manifest):
        harbour = _picture(keeper_manifest, "harbour-clues/clue-board")
        sigil = _picture(keeper_manifest, "harbour-clues/keeper-checklist")

        header, body = await get(pip, harbour["hash"])
        assert header["op"] == "get" and header["mime"] == "image/png" and sha(body) == harbour["hash"]
        refused, _body = await get(pip, sigil["hash"])
        assert refused.get("code") == "media_not_found"
        header, body = await get(kay, sigil["hash"])
        assert header["op"] == "get" and sha(body) == sigil["hash"] and header["size"] == sigil["size"]

        await kay.say(".panels disable harbour-clues")
        await pip.expect("ui_manifest")
        await settle(pip)
        refused, _body = await get(pip, harbour["hash"])
        assert refused.get("code") == "media_not_found"


async def test_a_member_promoted_to_keeper_gets_the_keeper_panels(panel_server, room):
    env = panel_server.env
    async with (
        await connect("ws", panel_server) as kay,
        await connect("ws", panel_server) as pip,
    ):
        await kay.join(env.mint(room, "Kay", "keeper"))
        await pip.join(env.mint(room, "Pip"))
        await settle(pip)
        await kay.say(".panels enable harbour-clues")
        assert _ids(await pip.expect("ui_manifest")) == PLAYER_PANELS
        await settle(kay)

        await kay.send({"type": "admin_list_keys"})
        keys = {key["name"]: key["id"] for key in (await kay.expect("admin_keys"))["keys"]}
        await kay.send({"type": "admin_update_key", "id": keys["Pip"], "role": "keeper"})
        assert _ids(await pip.expect("ui_manifest")) == KEEPER_PANELS
        await kay.send({"type": "admin_update_key", "id": keys["Pip"], "role": "player"})
        assert _ids(await pip.expect("ui_manifest")) == PLAYER_PANELS


SENTINEL = "sentinel-7f3a9c"


async def _command(keeper, player, text: str) -> tuple[str, list[dict]]:
    """The keeper's private answer to `text`, and every frame the player got for that
    turn (up to its closing state)."""
    await keeper.say(text)
    answer = (await keeper.expect("narrative", speaker="system"))["text"]
    return answer, await player.collect_until("state")


async def test_hidden_variables_never_reach_a_player_and_exposed_ones_do(panel_server, room, carrier):
    heard: list[dict] = []
    async with _table_with_panels_on(panel_server, room, carrier) as (kay, pip, _manifest):
        steps = [
            f".var set secret.code {SENTINEL}",
            ".var add alertness 3",
            ".var add day 100",
            ".var list",
            ".var expose clue.",
            ".var hide clue.sigil",
        ]
        answers = []
        for step in steps:
            answer, frames = await _command(kay, pip, step)
            answers.append(answer)
            heard += frames
        await pip.say(".var list")
        heard.append(await pip.expect("narrative", speaker="system"))
        await settle(pip)
        last_state = [frame for frame in heard if frame["type"] == "state"][-1]

    assert SENTINEL in answers[3]  # the keeper's own list shows it
    assert SENTINEL not in repr(heard) and "secret.code" not in repr(heard)
    assert "alertness" not in repr(heard)  # declared keeper-only by the pack
    shown = {row["id"]: row for row in last_state["variables"]}
    assert list(shown) == ["day", "clue.ledger"]
    assert shown["day"]["value"] == 60 and shown["day"]["max"] == 60  # add stopped at the bound
    assert "hidden" not in repr(last_state)


async def test_removing_a_pack_that_is_on_takes_its_panels_away_from_every_member(
    panel_server, room, carrier
):
    async with _table_with_panels_on(panel_server, room, carrier) as (kay, pip, _manifest):
        await kay.say(".pack remove harbour-clues")
        assert (await pip.expect("ui_manifest"))["panels"] == []
        # The keeper's answer and its new manifest come by different ways, in either order.
        seen = {}
        while len(seen) < 2:
            frame = await kay.recv()
            if frame["type"] == "ui_manifest" or frame.get("speaker") == "system":
                seen[frame["type"]] = frame
        assert seen["ui_manifest"]["panels"] == [] and "Removed the pack" in seen["narrative"]["text"]
    # Put the example back for whatever runs after.
    source = panel_server.env.data_dir / "harbour-clues.lwpack"
    source.write_bytes(lwpack.build(EXAMPLE))
    assert panel_server.env.manage("pack", "install", str(source), "--yes").returncode == 0
