"""Madness tables and the pregenerated cast."""

from __future__ import annotations

import pytest

from base.i18n import say
from keeper.commands import Caller, dispatch
from keeper.madness import LONG_TERM, TEMPORARY
from keeper.models import Character
from keeper.state import Viewer, build_state, read_room
from rooms.services import room_get_or_create

pytestmark = pytest.mark.django_db


def caller(name="Ann", member="tui:aaaaaaaa", keeper=False, locale="en") -> Caller:
    return Caller(room_get_or_create(name="madness").pk, member, name, keeper, locale)


def test_temporary_and_long_term_madness_roll_on_their_tables():
    ti = dispatch(".ti", caller())
    (event,) = ti.events
    assert say("en", TEMPORARY[event.frame["total"] - 1]).split(":")[0] in ti.text
    li = dispatch(".li", caller(locale="zh"))
    assert say("zh", LONG_TERM[li.events[0].frame["total"] - 1]).split("：")[0] in li.text


def test_claiming_and_releasing_a_pregen():
    me, other, keeper = caller(), caller("Bo", "tui:bbbbbbbb"), caller("Kim", "tui:cccccccc", keeper=True)
    room_id = me.room_id
    Character.objects.create(room_id=room_id, name="Prof. Armitage", system="coc7", pregen=True)
    assert "free" in dispatch(".pc list", me).text
    assert not dispatch(".pc claim Prof. Armitage", me).private
    assert "already claimed" in dispatch(".pc claim Prof. Armitage", other).text
    state = build_state(room=read_room(room_id), viewer=Viewer(me.member_id, False, "en"), online=[])
    assert state["pregens"] == [{"name": "Prof. Armitage", "claimed_by": me.member_id}]
    assert state["character"]["name"] == "Prof. Armitage"
    assert "keeper" in dispatch(".pc release Prof. Armitage", other).text
    dispatch(".pc release Prof. Armitage", keeper)
    state = build_state(room=read_room(room_id), viewer=Viewer(me.member_id, False, "en"), online=[])
    assert state["pregens"] == [{"name": "Prof. Armitage", "claimed_by": ""}] and "character" not in state
