"""The Keeper's tools roll with the real dice engine, as the character concerned, and
hand back structured frames beside the text the model reads."""

from __future__ import annotations

import pytest

from keeper import characters
from keeper.kp import tools
from keeper.models import InitiativeEntry, KeeperNote, Story
from rooms.services import room_get_or_create, transcript_append

pytestmark = pytest.mark.django_db


@pytest.fixture
def table():
    room = room_get_or_create(name="tools")
    made = characters.character_create(room_id=room.pk, member_id="tui:aaaa0001", system="coc7", name="Ada")
    hero = made.character
    hero.skills["spot_hidden"] = 60
    hero.resources["san"] = 40
    hero.save()
    return tools.ToolContext(room.pk, "tui:aaaa0001", "Ada", "en"), hero


def test_a_skill_check_uses_the_characters_sheet_and_grades_the_roll(table, dice):
    context, _hero = table
    dice(4, 1)  # units 4, tens 10 -> 14 against 60: hard success
    outcome = tools.run("skill_check", {"character": "ada", "skill": "Spot Hidden"}, context)
    ((frame, hidden),) = outcome.events
    assert not hidden and frame["kind"] == "check" and frame["actor"] == "Ada"
    assert frame["total"] == 14 and frame["target"] == 60 and frame["outcome"]["success"]
    assert outcome.result.endswith("(success)")


def test_someone_without_a_sheet_needs_a_value(table):
    context, _ = table
    assert tools.run("skill_check", {"character": "A guard", "skill": "listen"}, context).events == []
    outcome = tools.run("skill_check", {"character": "A guard", "skill": "listen", "value": 40}, context)
    assert outcome.events[0][0]["actor"] == "A guard" and outcome.events[0][0]["target"] == 40


def test_a_hidden_roll_is_for_the_keepers(table):
    context, _ = table
    ((frame, hidden),) = tools.run("roll_dice", {"expression": "2d6", "hidden": True}, context).events
    assert hidden and frame["kind"] == "roll" and len(frame["rolls"]) == 2


def test_a_sanity_check_changes_the_sheet(table, dice):
    context, hero = table
    dice(9, 9, 0)  # 99: a fumble, the maximum of 1d6 is lost (the loss die is still rolled)
    ((frame, _),) = tools.run(
        "sanity_check", {"character": "Ada", "success_loss": "0", "failure_loss": "1d6"}, context
    ).events
    assert frame["kind"] == "subsystem" and frame["subsystem"] == "sanity"
    hero.refresh_from_db()
    assert hero.resources["san"] == 34


def test_an_opposed_check_names_both_sides(table):
    context, _ = table
    outcome = tools.run(
        "opposed_check",
        {
            "left": "Ada",
            "left_skill": "spot_hidden",
            "right": "Cultist",
            "right_skill": "stealth",
            "right_value": 50,
        },
        context,
    )
    ((frame, _),) = outcome.events
    assert frame["kind"] == "opposed" and frame["detail"]["left"]["name"] == "Ada"
    assert frame["detail"]["right"] == {**frame["detail"]["right"], "name": "Cultist", "target": 50}
    assert frame["detail"]["winner"] in ("left", "right", "tie")


def test_initiative_rolls_and_advances(table):
    context, _ = table
    assert (
        tools.run("initiative_tracker", {"action": "roll", "name": "Ada"}, context).events[0][0]["kind"]
        == "init"
    )
    tools.run("initiative_tracker", {"action": "roll", "name": "Ghoul"}, context)
    tools.run("initiative_tracker", {"action": "next"}, context)
    assert InitiativeEntry.objects.filter(room_id=context.room_id, current=True).count() == 1


def test_bookkeeping_tools_change_the_story_without_dice(table):
    context, hero = table
    assert (
        tools.run("update_character", {"character": "Ada", "resource": "hp", "change": -2}, context).events
        == []
    )
    tools.run("update_character", {"character": "Ada", "add_status": "shaken"}, context)
    hero.refresh_from_db()
    assert "shaken" in hero.status_effects
    tools.run("set_scene", {"name": "The cellar", "focus": "a locked chest"}, context)
    tools.run("advance_clock", {"minutes": 90}, context)
    story = Story.objects.get(room_id=context.room_id)
    assert (story.scene_name, story.scene_focus, story.clock_text()) == (
        "The cellar",
        "a locked chest",
        "Day 1, 01:30",
    )
    note = tools.run("keeper_note", {"text": "the chest is trapped"}, context)
    assert note.keeper_notice == "the chest is trapped" and "trapped" not in note.result
    assert KeeperNote.objects.filter(room_id=context.room_id).count() == 1


def test_recall_reads_earlier_lines_and_unknown_tools_are_told(table):
    context, _ = table
    transcript_append(room=story_room(context), speaker="player", name="Ada", text="I pocket the brass key")
    assert "brass key" in tools.run("recall", {"query": "brass"}, context).result
    assert "no tool" in tools.run("delete_everything", {}, context).result


def story_room(context):
    from rooms.models import Room

    return Room.objects.get(pk=context.room_id)


def test_each_tool_is_announced_by_a_coarse_activity_never_its_name():
    assert {tools.activity_of(name) for name in tools.TOOLS} == {"reading", "dice", "cast", "bookkeeping"}
    assert tools.activity_of("speak_as_npc") == "cast" and tools.activity_of("skill_check") == "dice"


def test_the_keeper_reads_and_changes_module_variables_within_their_bounds(table):
    from keeper import variables
    from keeper.models import ModuleVariable

    context, _ = table
    variables.declare(
        context.room_id,
        [{"id": "day", "kind": "number", "value": 1, "min": 1, "max": 3, "audience": "everyone"}],
        source="test",
    )
    assert "day = 1 (1..3), number, players see it" in tools.run("read_variables", {}, context).result
    assert (
        tools.run("set_variable", {"id": "day", "add": 5}, context).result
        == "day: 1 -> 3 (stopped at its bound)"
    )
    assert "between 1 and 3" in tools.run("set_variable", {"id": "day", "value": 9}, context).result
    assert "no variable" in tools.run("set_variable", {"id": "night", "value": 1}, context).result
    assert ModuleVariable.objects.get(var_id="day").value == 3
    assert not ModuleVariable.objects.filter(var_id="night").exists()
