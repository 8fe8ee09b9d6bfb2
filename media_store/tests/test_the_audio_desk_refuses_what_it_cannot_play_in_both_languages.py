"""A volume out of range, a fade that is no time, an option the desk does not know:
the keeper is told why, in their language, and the room hears nothing (docs/rules.md,
"The audio desk"). Nothing is clamped or guessed: "volume 400" does not play at full
volume, and "--speed 2" is not searched for as part of a track's name.

The lines are answered in-process by the game's dispatcher, as the wire's input handler
has them answered: a reply's text is the caller's system line, its live frames what the
room hears."""

from __future__ import annotations

import os

from keeper.commands import dispatch
from loreweaver.testing.media_clients import sha
from media_store.tests.conftest import seat, stored

WAVES = b"OggS" + os.urandom(3000)

REFUSED = [
    (".bgm waves.ogg volume 400", "400 is not", "400 不在此范围内"),
    (".bgm waves.ogg loop volume -0.2", "-0.2 is not", "-0.2 不在此范围内"),
    (".ambience waves.ogg volume=loud", "loud is not", "loud 不在此范围内"),
    (".bgm volume 1000", "1000 is not", "1000 不在此范围内"),
    (".bgm waves.ogg fade -5", "Fade is whole milliseconds", "整数毫秒"),
    (".bgm play waves.ogg --fade 2.5", "2.5 is not", "2.5 不符合"),
    (".bgm waves.ogg --speed 2", "Unknown option --speed", "未知选项 --speed"),
    (".sfx waves.ogg --volume", "--volume needs a value", "--volume 需要一个数值"),
    (".bgm", "Use .bgm <audio> [loop|once]", "用法：.bgm [play] 音频"),
    (".bgm play nothing-here", "No audio called nothing-here", "没有名为 nothing-here 的音频"),
]


def _refusal(line: str, caller) -> str:
    """The caller's own answer to `line`, checked to play nothing."""
    reply = dispatch(line, caller)
    assert reply is not None and reply.private and reply.live == [], (line, reply)
    return reply.text


def test_a_bad_value_or_option_is_refused_and_nothing_plays(desk_room):
    kay = seat(desk_room, "Kay", keeper=True, locale="en")
    kai = seat(desk_room, "凯", keeper=True, locale="zh")
    stored(desk_room, WAVES, "audio/ogg", "waves.ogg")

    for line, english, chinese in REFUSED:
        assert english in _refusal(line, kay), line
        assert chinese in _refusal(line, kai), line


def test_a_player_is_refused_and_the_first_good_line_plays(desk_room):
    player = seat(desk_room, "Pat")
    kay = seat(desk_room, "Kay", keeper=True)
    stored(desk_room, WAVES, "audio/ogg", "waves.ogg")

    assert "Only the keeper" in _refusal(".bgm waves.ogg loop", player)
    control = dispatch(".bgm waves.ogg volume 0.5", kay).live
    assert [(f["type"], f["hash"], f["volume"]) for f in control] == [("audio_control", sha(WAVES), 0.5)]
