"""Every spelling of the reference's audio grammar and this server's own (docs/rules.md,
"The audio desk"): `play` is optional, options are bare words or `--flags` or
`key=value`, and they come off the END of the line, so an unquoted name with spaces or
a file name stays whole: "waves.wav loop volume 0.5" plays waves.wav, looped, at half
volume, where the desk once looked for a track called "waves.wav loop volume 0.5".

The lines are answered in-process by the game's dispatcher, as the wire's input handler
has them answered; the `audio_control` frames checked are the ones the room is sent."""

from __future__ import annotations

import os

from keeper.commands import dispatch
from loreweaver.testing.media_clients import sha
from media_store.tests.conftest import seat, stored

WAVES = b"RIFF" + os.urandom(3000)
THEME = b"ID3\x04\x00\x00\x00\x00\x00\x00" + os.urandom(3000)
OPTIONS = ("action", "layer", "hash", "loop", "volume", "fade_ms")


def _control(line: str, keeper) -> dict:
    """The one `audio_control` frame the room hears for `line`."""
    reply = dispatch(line, keeper)
    assert reply is not None and [frame["type"] for frame in reply.live] == ["audio_control"], (line, reply)
    return reply.live[0]


def _played(
    layer: str, data: bytes, loop: bool, volume: float | None = None, fade: int | None = None
) -> dict:
    return dict(zip(OPTIONS, ("play", layer, sha(data), loop, volume, fade), strict=True))


def test_each_form_of_a_play_line_reads_the_same(desk_room):
    keeper = seat(desk_room, "Kay", keeper=True)
    stored(desk_room, WAVES, "audio/wav", "waves.wav")
    stored(desk_room, THEME, "audio/mpeg", "theme.mp3")
    titled = dispatch('.audio set theme.mp3 "title=Lighthouse Theme"', keeper)
    assert [(f["type"], f.get("title")) for f in titled.live] == [("audio_library_item", "Lighthouse Theme")]

    def heard(line: str) -> dict:
        control = _control(line, keeper)
        return {key: control.get(key) for key in OPTIONS}

    assert heard(".ambience waves.wav loop volume 0.5") == _played("ambience", WAVES, True, 0.5)
    # This server's own form, as its keeper screen and older notes send it.
    assert heard(".bgm play Lighthouse Theme --loop --volume 0.7 --fade 2000") == _played(
        "bgm", THEME, True, 0.7, 2000
    )
    assert heard(".bgm Lighthouse Theme noloop") == _played("bgm", THEME, False)
    assert heard(".bgm start waves.wav volume=0.5") == _played("bgm", WAVES, True, 0.5)
    assert heard(".bgm 播放 waves.wav --volume=0.3 --no-loop") == _played("bgm", WAVES, False, 0.3)
    assert heard(".ambience waves.wav --volume 0.5 once fade=300") == _played(
        "ambience", WAVES, False, 0.5, 300
    )
    # Above 1 a volume is a percentage, as the reference (and Studio's slider) reads it.
    assert heard(".bgm waves.wav vol 40%") == _played("bgm", WAVES, True, 0.4)
    assert heard(".bgm waves.wav volume 60") == _played("bgm", WAVES, True, 0.6)
    # The start of a hash and any case name the same track.
    assert heard(f".sfx {sha(WAVES)[:12]} --volume 0.3") == _played("sfx", WAVES, False, 0.3)
    assert heard(".sfx WAVES.WAV --loop") == _played("sfx", WAVES, True)


def test_the_transport_words_read_in_either_language(desk_room):
    keeper = seat(desk_room, "Kay", keeper=True)
    stored(desk_room, WAVES, "audio/wav", "waves.wav")
    _control(".bgm waves.wav", keeper)
    _control(".ambience waves.wav loop", keeper)
    for line, action in ((".bgm 暂停", "pause"), (".bgm resume", "resume"), (".ambience 停止", "stop")):
        assert _control(line, keeper)["action"] == action, line
    assert _control(".bgm 音量 30", keeper)["volume"] == 0.3
