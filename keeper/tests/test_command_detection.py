"""Which inputs are dot commands (DECISIONS "Turns and commands")."""

from __future__ import annotations

import pytest

from keeper.commands import command_word, dispatch


@pytest.mark.parametrize(
    ("text", "word"),
    [
        (".r 1d20", "r"),
        ("。ra 侦查", "ra"),
        ("/help", "help"),
        (".侦查", "侦查"),
        ("  .ST hp-1", "st"),
        ("... I wait", None),
        (". r", None),
        (".5 gold", None),
        ("hello .r", None),
        ("", None),
    ],
)
def test_command_words(text, word):
    assert command_word(text) == word


def test_an_unknown_command_is_answered_privately_in_the_viewers_language():
    english = dispatch(".frobnicate", locale="en")
    chinese = dispatch(".frobnicate", locale="zh")
    assert english.private and "Unknown command .frobnicate" in english.text
    assert "未知指令" in chinese.text


def test_ordinary_play_is_not_a_command():
    assert dispatch("I search the desk.", locale="en") is None
