"""A character from first roll to deletion: `.genchar` rolls one to look at before it is
kept, `.st finalize` recomputes what the pack derives, `.st delete` deletes at once and
`.st undo` brings the sheet back for a few minutes (docs/rules.md, "The command dialect")."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from keeper import characters
from keeper.commands import Caller, dispatch
from keeper.models import Character
from rooms.services import room_get_or_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seeded")]


MEMBERS = ("tui:aaaaaaaa", "tui:bbbbbbbb")


@pytest.fixture
def ann() -> Caller:
    return Caller(room_get_or_create(name="lifecycle").pk, MEMBERS[0], "Ann", False, "en")


@pytest.fixture(autouse=True)
def no_pending_questions(ann):
    """Rolled drafts and delete questions wait in the cache: none carry over between tests.
    Only this room's are dropped: on the hosted profile the cache is the Redis the test
    servers share, and clearing all of it wiped their rooms' shared state mid-test."""
    cache.delete_many(
        [f"{kind}:{ann.room_id}:{member}" for kind in ("st-undo", "genchar") for member in MEMBERS]
    )


def _mine(caller: Caller) -> list[Character]:
    return list(Character.objects.filter(room_id=caller.room_id, owner=caller.member_id))


@pytest.mark.parametrize(
    ("system", "attributes", "shown"),
    [
        ("coc", ["STR", "CON", "SIZ", "DEX", "APP", "INT", "POW", "EDU"], ["Build", "Damage bonus", "Move"]),
        ("dnd", ["STR", "DEX", "CON", "INT", "WIS", "CHA"], ["AC", "STR mod", "CHA mod"]),
    ],
)
def test_genchar_shows_a_rolled_character_and_keeps_it_only_when_asked(ann, system, attributes, shown):
    rolled = dispatch(f".genchar {system}", ann)
    assert rolled.private and all(a in rolled.text for a in attributes + shown)
    assert _mine(ann) == [], "nothing is kept yet"
    kept = dispatch(".genchar keep Vesper", ann)
    assert not kept.private and "Vesper" in kept.text
    vesper = characters.active_character(ann.room_id, ann.member_id)
    assert vesper.name == "Vesper" and vesper.system == {"coc": "coc7", "dnd": "dnd5e"}[system]
    values = " ".join(f"{k}{vesper.attributes[k]}" for k in attributes)
    assert values in rolled.text, "the character kept is the one shown"
    assert "Nothing to keep" in dispatch(".genchar keep Again", ann).text


def test_genchar_rolls_by_the_packs_rules(ann):
    for _ in range(20):
        dispatch(".genchar coc", ann)
        dispatch(".genchar keep Ann replace", ann)  # the one kept before gives way
        investigator = characters.active_character(ann.room_id, ann.member_id)
        assert all(v % 5 == 0 and 15 <= v <= 90 for v in investigator.attributes.values())
        assert (
            investigator.resources["hp"]
            == (investigator.attributes["CON"] + investigator.attributes["SIZ"]) // 10
        )
        dispatch(".genchar dnd", ann)
        dispatch(".genchar keep Ann replace", ann)
        adventurer = characters.active_character(ann.room_id, ann.member_id)
        assert all(3 <= v <= 18 for v in adventurer.attributes.values())


def test_genchar_with_no_system_uses_the_rooms_and_refuses_an_unknown_one(ann):
    assert "Call of Cthulhu" in dispatch(".genchar", ann).text
    refused = dispatch(".genchar gurps", ann).text
    assert "gurps" in refused and "coc" in refused and "dnd" in refused


@pytest.mark.parametrize(
    ("sent", "system", "name"),
    [
        (".genchar coc7 Doc Hale | Calm doctor, steady hands", "coc7", "Doc Hale"),
        (".genchar dnd5e 阿达 | 冷静的医生,在雾港调查失踪案", "dnd5e", "阿达"),
        (".genchar coc7 | Calm doctor, steady hands", "coc7", "Ann"),
        (".genchar Doc Hale | Calm doctor, steady hands", "coc7", "Doc Hale"),
    ],
)
def test_genchar_from_a_description_makes_the_character_at_once(ann, sent, system, name):
    made = dispatch(sent, ann)
    assert not made.private and name in made.text
    (character,) = _mine(ann)
    assert character.active and character.system == system and character.name == name
    assert character.background == sent.partition("|")[2].strip()
    assert all(value > 0 for value in character.attributes.values()), "the values are rolled"


def test_genchar_with_an_empty_description_says_what_to_write(ann):
    assert "after the bar" in dispatch(".genchar coc7 Doc |  ", ann).text
    assert _mine(ann) == []


def test_finalize_recomputes_coc_vitals_build_damage_bonus_and_move(ann):
    dispatch(".coc Harvey", ann)
    dispatch(".st STR50 CON60 SIZ70 DEX60 POW55", ann)
    dispatch(".st HP-5 SAN-10", ann)
    reply = dispatch(".st finalize", ann).text
    harvey = characters.active_character(ann.room_id, ann.member_id)
    assert (harvey.resources["hp"], harvey.resources["mp"], harvey.resources["san"]) == (13, 11, 55)
    assert "Build 0" in reply and "Damage bonus 0" in reply and "Move 7" in reply
    dispatch(".st STR80 SIZ60 DEX70", ann)
    reply = dispatch(".st finalize", ann).text
    assert "Build 1" in reply and "Damage bonus +1d4" in reply and "Move 9" in reply


def test_finalize_recomputes_dnd_hit_points_armour_class_and_modifiers(ann):
    dispatch(".dnd Vex", ann)
    dispatch(".st STR16 DEX14 CON12 INT8 WIS10 CHA13", ann)
    dispatch(".st HP-3", ann)
    reply = dispatch(".st finalize", ann).text
    assert characters.active_character(ann.room_id, ann.member_id).resources["hp"] == 11
    for reading in (
        "AC 12",
        "STR mod +3",
        "DEX mod +2",
        "CON mod +1",
        "INT mod -1",
        "WIS mod +0",
        "CHA mod +1",
    ):
        assert reading in reply


def test_finalize_reads_in_the_viewers_language(ann):
    dispatch(".coc Harvey", ann)
    zh = Caller(ann.room_id, ann.member_id, ann.name, False, "zh")
    reply = dispatch(".st finalize", zh).text
    assert "已定稿" in reply and "体格" in reply and "移动力" in reply


def test_st_delete_deletes_at_once_and_st_undo_brings_the_sheet_back(ann):
    dispatch(".coc Harvey", ann)
    dispatch(".st STR70 侦查80", ann)
    before = characters.active_character(ann.room_id, ann.member_id)
    done = dispatch(".st delete", ann)
    assert not done.private and "Harvey" in done.text and ".st undo" in done.text
    assert _mine(ann) == [] and ".coc" in dispatch(".st", ann).text
    back = dispatch(".st undo", ann)
    assert not back.private and "Harvey" in back.text
    (harvey,) = _mine(ann)
    assert harvey.active and harvey.attributes == before.attributes and harvey.skills == before.skills
    assert harvey.resources == before.resources
    assert "Nothing to undo" in dispatch(".st undo", ann).text, "one delete, one undo"


@pytest.mark.parametrize("words", ["clear", "del", "clr", "DELETE", "delete confirm"])
def test_every_delete_word_the_clients_send_removes_the_sheet(ann, words):
    dispatch(".coc Harvey", ann)
    dispatch(f".st {words}", ann)
    assert _mine(ann) == []


def test_an_undo_is_the_deleters_own_and_takes_a_newer_characters_place_only_when_told(ann):
    other = Caller(ann.room_id, MEMBERS[1], "Bo", False, "en")
    dispatch(".coc Bo", other)
    dispatch(".coc First", ann)
    dispatch(".st delete", ann)
    assert "Nothing to undo" in dispatch(".st undo", other).text, "Ann's sheet is Ann's to bring back"
    assert [c.name for c in _mine(other)] == ["Bo"]
    dispatch(".coc Second", ann)
    assert ".st undo replace" in dispatch(".st undo", ann).text
    assert {c.name: c.active for c in _mine(ann)} == {"Second": True}
    dispatch(".st undo replace", ann)
    assert {c.name: c.active for c in _mine(ann)} == {"First": True}, "Second is kept for .st undo"


def test_delete_and_undo_read_in_the_viewers_language(ann):
    zh = Caller(ann.room_id, ann.member_id, "安", False, "zh")
    assert "没有可撤销" in dispatch(".st undo", zh).text
    dispatch(".coc 哈维", zh)
    assert "5 分钟内" in dispatch(".st delete", zh).text
    assert "找回了 哈维" in dispatch(".st undo", zh).text
