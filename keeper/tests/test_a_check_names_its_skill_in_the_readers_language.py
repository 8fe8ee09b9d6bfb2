"""What the server writes about a check names the skill by its label in the reader's
language, never by its id: the check's reply, an opposed check's, a growth roll's and
the chronicle's roll line. A name without a label reads as its id in words; a dice
frame, which does not name its rule system, is read by the packs that roll its die
(docs/rules.md, "Rule packs")."""

from __future__ import annotations

import textwrap

import pytest

from base import frames
from keeper.chronicle import roll_line
from keeper.commands import Caller, dispatch
from keeper.rules.packs import catalog, parse_pack, readable
from rooms.services import room_get_or_create

UNLABELLED = textwrap.dedent(
    """
    id: quiet
    name: {en: "A pack without labels"}
    default_die: 1d100
    check: {roll: d100, target: skill, ladder: coc7}
    sheet:
      attributes: [STR]
      skills: {spot_hidden: 25}
      aliases: {侦查: spot_hidden}
    """
)


def _caller(locale: str, room: str = "labels") -> Caller:
    return Caller(room_get_or_create(name=room).pk, "tui:aaaaaaaa", "Ann", False, locale)


@pytest.mark.django_db
@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize(("locale", "start"), [("en", "Ann: Spot Hidden "), ("zh", "Ann：侦查 ")])
def test_a_checks_reply_names_the_skill_in_the_callers_language(locale: str, start: str):
    for typed, skill in (
        (".ra spot_hidden 60", "spot_hidden"),
        (".ra 侦查60", "侦查"),
        (".ra b hard SPOT 60", "SPOT"),
    ):
        reply = dispatch(typed, _caller(locale))
        assert reply.text.startswith(start), reply.text
        assert reply.events[0].frame["skill"] == skill, "the frame keeps the name as typed"


@pytest.mark.django_db
@pytest.mark.usefixtures("seeded")
def test_an_opposed_check_and_a_growth_roll_name_their_skills():
    assert dispatch(".rav 斗殴50 闪避40", _caller("en")).text.startswith("Fighting (Brawl) ")
    me = _caller("zh", "labels-growth")
    dispatch(".coc Ann", me)
    assert dispatch(".en library_use", me).text.startswith("Ann：图书馆使用 ")


@pytest.mark.django_db
@pytest.mark.usefixtures("seeded")
def test_a_dnd_check_reads_in_dnds_own_words():
    me = _caller("zh", "labels-dnd")
    dispatch(".dnd Ann", me)
    assert dispatch(".ra stealth 12", me).text.startswith("Ann：隐匿 ")


def test_the_chronicle_reads_a_frames_skill_by_the_packs_that_roll_its_die():
    check = frames.dice("Tess", "check", "1d100 b1", [40], 40, target=50, skill="stealth")
    assert roll_line(check, "zh") == "Tess 潜行: 40"  # Call of Cthulhu rolls d100
    check = frames.dice("Tess", "check", "2d20kh1+3", [9, 14], 17, skill="stealth")
    assert roll_line(check, "zh") == "Tess 隐匿: 17"  # D&D rolls d20
    assert roll_line(check) == "Tess Stealth: 17"
    assert catalog().skill_label("bribe_the_guard", "zh", "1d100") == "Bribe the guard"


def test_a_pack_without_labels_reads_its_ids_as_words():
    sheet = parse_pack(UNLABELLED).sheet
    assert sheet.skill_label("spot_hidden", "en") == sheet.skill_label("spot_hidden", "zh") == "Spot hidden"
    assert sheet.skill_label("侦查", "en") == "侦查", "a name typed reads as typed"
    assert [readable(name) for name in ("STR", "侦查", " fast__talk ")] == ["STR", "侦查", "Fast talk"]
