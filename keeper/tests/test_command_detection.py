"""Which inputs are dot commands (docs/decisions.md, "Turns and commands")."""

from __future__ import annotations

import pytest

from keeper.commands import Caller, command_word, dispatch

pytestmark = pytest.mark.django_db


def caller(locale: str = "en", keeper: bool = False) -> Caller:
    from rooms.services import room_get_or_create

    return Caller(room_get_or_create(name="commands").pk, "tui:00000000", "Ann", keeper, locale)


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
    english = dispatch(".frobnicate", caller("en"))
    chinese = dispatch(".frobnicate", caller("zh"))
    assert english.private and "Unknown command .frobnicate" in english.text
    assert "未知指令" in chinese.text


def test_a_typo_gets_the_closest_command_names():
    reply = dispatch(".rool 1d6", caller())
    assert reply.private and not reply.events and "Did you mean" in reply.text
    assert ".rh" in dispatch(".rhh 1d6", caller()).text


def test_ordinary_play_is_not_a_command():
    assert dispatch("I search the desk.", caller()) is None


def test_aliases_in_both_languages_and_glued_arguments():
    assert dispatch(".r1d1+1", caller()).events[0].frame["total"] == 2
    assert dispatch(".rd1", caller()).events[0].frame["total"] == 1
    assert dispatch(".ra侦查60", caller()).events[0].frame["skill"] == "侦查"
    assert dispatch("。r 1d1", caller()).events[0].frame["total"] == 1
    assert dispatch("/roll 1d1", caller()).events[0].frame["total"] == 1


def test_arguments_over_4000_characters_are_refused():
    reply = dispatch(".r " + "1" * 4001, caller())
    assert reply.private and "4000" in reply.text and not reply.events


def test_help_has_a_keeper_layer():
    player = dispatch(".help", caller()).text
    keeper = dispatch(".help", caller(keeper=True)).text
    assert ".reset" not in player and ".reset" in keeper and ".ra" in player and ".rule" in player


def test_a_keeper_command_is_refused_to_a_player_by_the_router():
    reply = dispatch(".save", caller())
    assert reply.private and "keeper" in reply.text.lower()
