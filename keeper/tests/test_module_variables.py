"""Module variables (docs/packs.md, "Module variables"): typed, bounded, declared by a
pack when its panels are turned on, changed by the keeper with `.var`; a player's
state carries only the exposed ones, a keeper's all of them, the rest flagged keeper_only
(or hidden, for an imported card's leaf)."""

from __future__ import annotations

import pytest

from keeper import variables
from keeper.commands import Caller, dispatch
from keeper.models import ModuleVariable
from keeper.state import Viewer, build_state, read_room
from packs.declarations import VariableError, check_declaration
from rooms.services import room_get_or_create

DAY = {"id": "day", "label": {"en": "Day", "zh": "天数"}, "kind": "number", "value": 1, "min": 1, "max": 60}


@pytest.fixture
def keeper():
    return Caller(room_get_or_create(name="variables").pk, "tui:kkkkkkkk", "Kay", True, "en")


@pytest.fixture
def player(keeper):
    return Caller(keeper.room_id, "tui:pppppppp", "Pip", False, "zh")


def _state(caller: Caller) -> dict:
    viewer = Viewer(caller.member_id, caller.is_keeper, caller.locale)
    return build_state(room=read_room(caller.room_id), viewer=viewer, online=[])


@pytest.mark.django_db
def test_bounds_hold_under_set_and_add(keeper):
    variables.declare(keeper.room_id, [DAY | {"audience": "everyone"}], source="test")
    assert "must stay between 1 and 60" in dispatch(".var set day 61", keeper).text
    assert "day: 1 → 60. (stopped at its bound)" in dispatch(".var add day 100", keeper).text
    assert "day: 60 → 1. (stopped at its bound)" in dispatch(".var add day -100", keeper).text
    assert "whole number" in dispatch(".var set day soon", keeper).text
    assert ModuleVariable.objects.get(var_id="day").value == 1


@pytest.mark.django_db
def test_a_player_sees_only_exposed_variables_and_a_keeper_sees_the_rest_flagged(keeper, player):
    variables.declare(
        keeper.room_id,
        [
            DAY | {"audience": "everyone"},
            {"id": "clue.ledger", "kind": "bool", "value": True},
            {"id": "mvu.tide", "kind": "number", "value": 3},
        ],
        source="test",
    )
    assert [v["id"] for v in _state(player)["variables"]] == ["day"]
    assert _state(player)["variables"][0] == {
        "id": "day",
        "label": "天数",
        "kind": "number",
        "value": 1,
        "min": 1,
        "max": 60,
    }
    keeper_rows = _state(keeper)["variables"]
    # A declared keeper-only tracker reaches the keeper as theirs to read in panels; an
    # imported card's leaf not yet exposed stays `hidden`, which panels read as absent.
    flags = [(v["id"], v.get("keeper_only"), v.get("hidden")) for v in keeper_rows]
    assert flags == [("day", None, None), ("clue.ledger", True, None), ("mvu.tide", None, True)]

    assert "1 more" in dispatch(".var expose clue.", keeper).text
    assert [v["id"] for v in _state(player)["variables"]] == ["day", "clue.ledger"]
    dispatch(".var hide *", keeper)
    assert "variables" not in _state(player)


@pytest.mark.django_db
def test_only_a_keeper_touches_variables_and_a_new_one_starts_hidden(keeper, player):
    assert "守秘人" in dispatch(".var set day 3", player).text
    assert not ModuleVariable.objects.exists()
    assert (
        "New keeper-only variable secret.code = 'ash-8'"
        in dispatch(".var set secret.code ash-8", keeper).text
    )
    assert "variables" not in _state(player)
    assert "secret.code = 'ash-8'" in dispatch(".var list", keeper).text


@pytest.mark.django_db
def test_turning_a_pack_on_again_keeps_the_values_it_had(keeper):
    variables.declare(keeper.room_id, [DAY], source="pack")
    variables.add(keeper.room_id, "day", 4)
    variables.declare(keeper.room_id, [DAY], source="pack")
    assert ModuleVariable.objects.get(var_id="day").value == 5


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ({"id": "day", "kind": "number", "value": 99, "max": 60}, "between"),
        ({"id": "day", "kind": "number", "min": 5, "max": 1}, "wrong way round"),
        ({"id": "mood", "kind": "enum", "choices": []}, "choices"),
        ({"id": "mood", "kind": "enum", "choices": ["calm"], "value": "angry"}, "one of"),
        ({"id": "a b", "kind": "text"}, "not a variable id"),
        ({"id": "x", "kind": "colour"}, "kind"),
        ({"id": "x", "audience": "players"}, "audience"),
        ({"id": "x", "kind": "text", "min": 1}, "bounds"),
    ],
)
def test_a_bad_declaration_is_refused_naming_the_problem(spec, problem):
    with pytest.raises(VariableError, match=problem):
        check_declaration(spec)


@pytest.mark.django_db
def test_variables_travel_in_a_backup_and_a_story_reset_puts_them_back(keeper, tmp_path, settings):
    from rooms import backups
    from rooms.models import Room

    settings.DATA_DIR = tmp_path
    variables.declare(keeper.room_id, [DAY | {"audience": "everyone"}], source="pack")
    variables.add(keeper.room_id, "day", 9)
    room = Room.objects.get(pk=keeper.room_id)
    path = backups.new_backup_path(room, "variables")
    backups.room_export(room, path)

    backups.room_reset(room, "story")
    assert ModuleVariable.objects.get(room=room, var_id="day").value == 1
    backups.room_reset(room, "all")
    assert not ModuleVariable.objects.filter(room=room).exists()

    restored, _counts = backups.room_import(path, "restored")
    day = ModuleVariable.objects.get(room=restored, var_id="day")
    assert (day.value, day.initial, day.maximum, day.exposed) == (10, 1, 60, True)


MODULE = """
title: The Drowned Bell
intro: Fishermen hear a bell under the sea.
variables:
  - {id: bell.rings, label: {en: Times the bell rang, zh: 钟声次数}, kind: number, value: 0, min: 0, max: 13}
  - {id: moon, kind: enum, choices: [new, full], value: new, audience: everyone}
"""


@pytest.mark.django_db
def test_a_module_file_declares_its_variables(keeper, player, settings, tmp_path):
    settings.DATA_DIR = tmp_path
    (tmp_path / "modules").mkdir()
    (tmp_path / "modules" / "drowned-bell.yaml").write_text(MODULE, encoding="utf-8")
    assert "The Drowned Bell" in dispatch(".module drowned-bell", keeper).text
    assert [v["id"] for v in _state(player)["variables"]] == ["moon"]
    assert "bell.rings = 0 [0..13]" in dispatch(".var list", keeper).text


@pytest.mark.django_db
def test_a_module_with_a_bad_variable_is_refused_and_changes_nothing(keeper, settings, tmp_path):
    settings.DATA_DIR = tmp_path
    (tmp_path / "modules").mkdir()
    bad = MODULE.replace("max: 13}", "max: 13, value: 99}").replace("value: 0, ", "")
    (tmp_path / "modules" / "bad.yaml").write_text(bad, encoding="utf-8")
    reply = dispatch(".module bad", keeper).text
    assert "variables" in reply and "between 0 and 13" in reply
    assert not ModuleVariable.objects.exists()
