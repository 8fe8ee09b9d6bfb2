"""Loreweaver Studio's audio deck sends the reference's grammar (docs/rules.md, "The
audio desk"): `play` left out, `loop`/`once`/`volume v`/`fade ms` as bare words after
the track, a title with spaces in quotes. Each line below is a literal string Studio's
own tests expect its deck to build (`src/features/play/audioCommands.test.ts`), and the
room hears what the line says."""

from __future__ import annotations

import os

from loreweaver.testing.clients import connect
from loreweaver.testing.media_clients import sha, upload

TRACKS = {
    name: b"OggS" + os.urandom(3000)
    for name in ("chao-yong", "night fog", "the loop closes", "潮涌 volume rising", "door", "Captain's Log")
}


async def test_every_line_studios_deck_sends_plays_what_it_says(media_server, room, carrier):
    env = media_server.env
    async with (
        await connect(carrier, media_server) as keeper,
        await connect(carrier, media_server) as player,
    ):
        await keeper.join(env.mint(room, "Kay", "keeper"))
        await player.join(env.mint(room, "Pat"))
        for name, data in TRACKS.items():
            # Studio's picker sends an entry's title, which an upload takes from its name.
            assert (await upload(keeper, data, "audio/ogg", name))["title"] == name

        async def heard(line: str) -> dict:
            await keeper.say(line)
            return await player.expect("audio_control")

        # A layer's own loop default: music and ambience go on, an effect plays once.
        music = await heard(".bgm chao-yong")
        assert (music["action"], music["layer"], music["hash"], music["loop"]) == (
            "play",
            "bgm",
            sha(TRACKS["chao-yong"]),
            True,
        )
        fog = await heard('.ambience "night fog" loop volume 0.4 fade 1500')
        assert {k: fog[k] for k in ("action", "layer", "hash", "title", "loop", "volume", "fade_ms")} == {
            "action": "play",
            "layer": "ambience",
            "hash": sha(TRACKS["night fog"]),
            "title": "night fog",
            "loop": True,
            "volume": 0.4,
            "fade_ms": 1500,
        }
        # A quoted title keeps its words, even ones that are option words elsewhere.
        closes = await heard('.bgm "the loop closes"')
        assert (closes["hash"], closes["loop"]) == (sha(TRACKS["the loop closes"]), True)
        rising = await heard('.bgm "潮涌 volume rising"')
        assert rising["hash"] == sha(TRACKS["潮涌 volume rising"]) and "volume" not in rising

        # Studio quotes a title as JSON does: an apostrophe inside stays the title's.
        log = await heard('.ambience "Captain\'s Log" once')
        assert (log["hash"], log["loop"]) == (sha(TRACKS["Captain's Log"]), False)

        door = await heard(".sfx door")
        assert (door["layer"], door["hash"], door["loop"]) == ("sfx", sha(TRACKS["door"]), False)
        assert (await heard(".sfx door once"))["loop"] is False
        assert (await heard(".sfx door loop"))["loop"] is True
        # ... and a looping effect can be stopped.
        stop = await heard(".sfx stop")
        assert (stop["action"], stop["layer"]) == ("stop", "sfx")

        assert (await heard(".bgm volume 0.25"))["volume"] == 0.25
        volume = await heard(".bgm volume 0.6")
        assert (volume["action"], volume["layer"], volume["volume"]) == ("volume", "bgm", 0.6)

        # A member joining now hears the desk as those lines left it.
        async with await connect(carrier, media_server) as late:
            joined = await late.join(env.mint(room, "Late"))
        (state,) = [f for f in joined if f["type"] == "audio_state"]
        layers = {layer["layer"]: layer for layer in state["layers"]}
        assert layers["bgm"]["hash"] == sha(TRACKS["潮涌 volume rising"])
        assert (layers["bgm"]["playing"], layers["bgm"]["loop"], layers["bgm"]["volume"]) == (True, True, 0.6)
        ambience = layers["ambience"]
        assert (ambience["hash"], ambience["loop"]) == (sha(TRACKS["Captain's Log"]), False)
        assert "sfx" not in layers, "an effect is not a state"
