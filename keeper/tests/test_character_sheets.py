"""Characters and sheets: made by the dialect, checked against the pack."""

from __future__ import annotations

import pytest

from keeper import characters
from keeper.commands import Caller, dispatch
from keeper.models import Character
from keeper.state import Viewer, build_state, read_room
from rooms.services import room_get_or_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seeded")]


@pytest.fixture
def caller() -> Caller:
    return Caller(room_get_or_create(name="sheets").pk, "tui:aaaaaaaa", "Ann", False, "en")


def test_coc_makes_an_active_character_with_rolled_characteristics(caller):
    reply = dispatch(".coc Harvey", caller)
    assert not reply.private and "Harvey" in reply.text
    harvey = characters.active_character(caller.room_id, caller.member_id)
    assert set(harvey.attributes) == {"STR", "CON", "SIZ", "DEX", "APP", "INT", "POW", "EDU"}
    assert reply.text.index("STR") < reply.text.index("CON") < reply.text.index("EDU"), "pack order"
    assert all(value % 5 == 0 and 15 <= value <= 90 for value in harvey.attributes.values())
    assert harvey.resources["hp"] == (harvey.attributes["CON"] + harvey.attributes["SIZ"]) // 10
    assert harvey.resources["mp"] == harvey.attributes["POW"] // 5
    assert harvey.resources["san"] == harvey.attributes["POW"]


def test_a_second_character_replaces_the_active_one(caller):
    dispatch(".coc First", caller)
    dispatch(".coc Second", caller)
    active = Character.objects.filter(room_id=caller.room_id, owner=caller.member_id, active=True)
    assert [c.name for c in active] == ["Second"]


def test_st_sets_adds_and_subtracts_and_refuses_unknown_names(caller):
    dispatch(".coc Harvey", caller)
    assert "STR=60" in dispatch(".st STR60", caller).text
    dispatch(".st 侦查70", caller)
    assert characters.sheet_value(
        characters.active_character(caller.room_id, caller.member_id), "spot_hidden"
    ) == (
        "spot_hidden",
        70,
    )
    hp = characters.active_character(caller.room_id, caller.member_id).resources["hp"]
    assert f"HP {hp}→{hp - 2}" in dispatch(".st HP-2", caller).text
    refused = dispatch(".st wizardry50", caller)
    assert refused.private and "not on a coc7 sheet" in refused.text
    assert Character.objects.filter(room_id=caller.room_id).count() == 1, "never a silent new character"


def test_st_without_a_character_says_how_to_make_one(caller):
    assert ".coc" in dispatch(".st STR50", caller).text


def test_a_check_reads_the_value_from_the_sheet(caller):
    dispatch(".coc Harvey", caller)
    dispatch(".st 侦查65", caller)
    (event,) = dispatch(".ra 侦查", caller).events
    assert event.frame["skill"] == "spot_hidden" and event.frame["target"] == 65


def test_sanity_checks_spend_sanity_and_never_go_below_zero(caller):
    dispatch(".coc Harvey", caller)
    dispatch(".st san3", caller)
    reply = dispatch(".sc 10/10", caller)
    (event,) = reply.events
    assert event.frame["kind"] == "subsystem" and event.frame["subsystem"] == "sanity"
    assert "effective_target" not in event.frame
    assert event.frame["detail"]["remaining"] == 0
    assert characters.active_character(caller.room_id, caller.member_id).resources["san"] == 0


def test_rename(caller):
    dispatch(".coc Harvey", caller)
    dispatch(".nn Harvey Walters", caller)
    assert characters.active_character(caller.room_id, caller.member_id).name == "Harvey Walters"


def test_the_state_shows_the_viewers_character_in_their_language(caller):
    dispatch(".coc Harvey", caller)
    other = Caller(caller.room_id, "tui:bbbbbbbb", "Bo", False, "zh")
    dispatch(".coc 阿光", other)
    room = read_room(caller.room_id)
    online = [("tui:aaaaaaaa", "Ann"), ("tui:bbbbbbbb", "Bo")]
    english = build_state(room=room, viewer=Viewer("tui:aaaaaaaa", False, "en"), online=online)
    chinese = build_state(room=room, viewer=Viewer("tui:bbbbbbbb", False, "zh"), online=online)
    assert english["character"]["name"] == "Harvey" and chinese["character"]["name"] == "阿光"
    assert [r["label"] for r in english["character"]["resources"]] == ["HP", "MP", "Sanity", "Luck"]
    assert [r["label"] for r in chinese["character"]["resources"]] == ["生命值", "魔法值", "理智", "幸运"]
    assert list(english["character"]["attributes"]) == [
        "STR",
        "CON",
        "SIZ",
        "DEX",
        "APP",
        "INT",
        "POW",
        "EDU",
    ]
    assert {p["name"]: p["active"] for p in english["party"]} == {"Harvey": True, "阿光": False}
    assert all(p["online"] for p in english["party"])
    assert "pregens" not in english


def test_st_shows_the_sheet_it_changed(caller):
    dispatch(".coc Harvey", caller)
    dispatch(".st STR70 侦查80", caller)
    shown = dispatch(".st", caller).text
    assert "Strength (STR) 70" in shown and "Spot Hidden 80" in shown
    assert characters.active_character(caller.room_id, caller.member_id).skills["spot_hidden"] == 80


def test_difficulty_words_come_from_the_pack(caller):
    (hard,) = dispatch(".ra 困难 侦查60", caller).events
    (extreme,) = dispatch(".ra extreme spot60", caller).events
    assert hard.frame["effective_target"] == 30 and extreme.frame["effective_target"] == 12
    (plain,) = dispatch(".ra hardware50", caller).events
    assert plain.frame["effective_target"] == 50 and plain.frame["skill"] == "hardware"
