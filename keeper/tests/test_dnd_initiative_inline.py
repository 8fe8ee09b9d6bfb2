"""D&D checks, initiative and inline [[expr]] rolls through the dialect."""

from __future__ import annotations

import pytest

from keeper import characters
from keeper.commands import Caller, dispatch
from keeper.state import Viewer, build_state, read_room
from rooms.services import room_get_or_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seeded")]


def caller(name: str = "Ann", member: str = "tui:aaaaaaaa", keeper: bool = False) -> Caller:
    return Caller(room_get_or_create(name="dnd-table").pk, member, name, keeper, "en")


def test_a_dnd_check_adds_the_ability_modifier_and_grades_against_the_dc():
    me = caller()
    dispatch(".dnd Tamsin", me)
    dispatch(".st STR16", me)
    (event,) = dispatch(".ra athletics 10", me).events
    frame = event.frame
    assert frame["kind"] == "check" and frame["target"] == 10 and frame["detail"]["modifier"] == 3
    assert frame["total"] == frame["rolls"][0] + 3
    natural = frame["rolls"][0]
    assert frame["outcome"]["critical"] == (natural == 20) and frame["outcome"]["fumble"] == (natural == 1)


def test_without_a_dc_a_dnd_check_is_ungraded():
    me = caller()
    dispatch(".dnd Tamsin", me)
    (event,) = dispatch(".ra athletics", me).events
    assert "outcome" not in event.frame and "target" not in event.frame


def test_advantage_and_disadvantage_cancel_and_prof_adds_the_bonus():
    me = caller()
    dispatch(".dnd Tamsin", me)
    (event,) = dispatch(".ra stealth+1 12 adv dis prof", me).events
    assert len(event.frame["rolls"]) == 1 and event.frame["detail"]["modifier"] == 3
    (event,) = dispatch(".ra stealth+1 12 优势", me).events
    assert len(event.frame["rolls"]) == 2 and event.frame["total"] == max(event.frame["rolls"]) + 1


def test_initiative_rolls_lists_and_advances():
    ann, bo, keeper = caller(), caller("Bo", "tui:bbbbbbbb"), caller("Kim", "tui:cccccccc", keeper=True)
    dispatch(".coc Ann", ann)
    dispatch(".coc Bo", bo)
    (event,) = dispatch(".ri", ann).events
    assert event.frame["kind"] == "init"
    dispatch(".ri", bo)
    assert dispatch(".ri next", bo).private, "advancing the order is the keeper's"
    dispatch(".ri next", keeper)
    room = read_room(ann.room_id)
    state = build_state(room=room, viewer=Viewer(ann.member_id, False, "en"), online=[])
    values = [entry["value"] for entry in state["initiative"]]
    assert values == sorted(values, reverse=True) and sum(e["current"] for e in state["initiative"]) == 1
    assert all("initiative" in member for member in state["party"])
    dispatch(".ri clear", keeper)
    assert (
        build_state(room=read_room(ann.room_id), viewer=Viewer("x", False, "en"), online=[])["initiative"]
        == []
    )


def test_inline_rolls_in_ordinary_text():
    reply = dispatch("I swing for [[1d1+3]] damage and [[2d1]] more", caller())
    assert not reply.private and "1d1+3=4" in reply.text and "2d1=2" in reply.text
    assert [e.frame["total"] for e in reply.events] == [4, 2]
    assert dispatch("no rolls here [just brackets]", caller()) is None


def test_a_players_d20_roll_with_advantage():
    (event,) = dispatch(".r 1d20+2 adv", caller()).events
    assert event.frame["expr"] == "2d20kh1+2" and len(event.frame["rolls"]) == 2


def test_the_characters_active_sheet_is_per_member():
    ann, bo = caller(), caller("Bo", "tui:bbbbbbbb")
    dispatch(".dnd Tamsin", ann)
    assert characters.active_character(bo.room_id, bo.member_id) is None
