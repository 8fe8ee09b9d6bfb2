"""The audio desk: the keeper plays the room's
audio on a layer, every member gets `audio_control` with the server's time, and a
member joining later gets `audio_state` to start at the right place."""

from __future__ import annotations

import os
import time

from loreweaver.testing.clients import WsClient, connect
from loreweaver.testing.media_clients import sha, upload

THEME = b"ID3\x04\x00\x00\x00\x00\x00\x00" + os.urandom(5000)
WAVES = b"OggS" + os.urandom(4000)


async def _command(client, line: str) -> str:
    await client.say(line)
    return (await client.expect("narrative", speaker="system"))["text"]


async def test_the_keeper_runs_the_audio_desk_and_late_joiners_catch_up(media_server, room, carrier):
    env = media_server.env
    async with (
        await connect(carrier, media_server) as keeper,
        await WsClient.connect(media_server.ws_url) as player,
    ):
        await keeper.join(env.mint(room, "Kay", "keeper"))
        await player.join(env.mint(room, "Pat"))
        await upload(keeper, THEME, "audio/mpeg", "theme.mp3")
        await upload(keeper, WAVES, "audio/ogg", "waves.ogg")
        await player.expect("audio_library_item", name="waves.ogg")

        listing = await _command(keeper, ".audio list")
        assert "theme.mp3" in listing and "waves.ogg" in listing
        await keeper.say(".audio set theme.mp3 title=Lighthouse_Theme license=CC-BY tags=calm,sea")
        updated = await player.expect("audio_library_item", title="Lighthouse_Theme")
        assert updated["title"] == "Lighthouse_Theme" and updated["tags"] == ["calm", "sea"]

        assert "Only the keeper" in await _command(player, ".bgm play theme.mp3")
        before = time.time()
        await keeper.say(".bgm play Lighthouse_Theme --loop --volume 0.6 --fade 1500")
        control = await player.expect("audio_control")
        assert {k: control[k] for k in ("action", "layer", "hash", "loop", "volume", "fade_ms")} == {
            "action": "play",
            "layer": "bgm",
            "hash": sha(THEME),
            "loop": True,
            "volume": 0.6,
            "fade_ms": 1500,
        }
        assert before - 1 <= control["server_ts"] <= time.time() + 1
        await keeper.say(f".ambience play {sha(WAVES)[:10]}")
        assert (await player.expect("audio_control"))["layer"] == "ambience"
        await keeper.say(".sfx waves.ogg --volume 0.3")
        sfx = await player.expect("audio_control")
        assert sfx["layer"] == "sfx" and sfx["volume"] == 0.3
        await keeper.say(".ambience pause")
        assert (await player.expect("audio_control"))["action"] == "pause"

        async with await connect(carrier, media_server) as late:
            frames = await late.join(env.mint(room, "Late"))
        (state,) = [f for f in frames if f["type"] == "audio_state"]
        layers = {layer["layer"]: layer for layer in state["layers"]}
        assert layers["bgm"]["playing"] is True and layers["bgm"]["hash"] == sha(THEME)
        assert layers["bgm"]["loop"] is True and before - 1 <= layers["bgm"]["started_at"] <= time.time()
        assert layers["ambience"]["playing"] is False and "started_at" not in layers["ambience"]
        assert "sfx" not in layers, "a sound effect is not a state"
        kinds = [f["type"] for f in frames]
        assert kinds.index("audio_library_item") < kinds.index("audio_state") < kinds.index("state")
        assert not [f for f in frames if f["type"] == "audio_control"], "controls are not history"

        await keeper.say(".bgm stop")
        assert (await player.expect("audio_control"))["action"] == "stop"
        await keeper.say(".bgm play nothing-here")
        while "No audio called" not in (await keeper.expect("narrative", speaker="system"))["text"]:
            pass
