"""A hook's `setvar` goes through the room's declared variable (docs/packs.md, "Event
hooks"): a number is kept within its bounds (clamped, as the reference does, where
`.var set` refuses), a bool and an enum take the reference's spellings, a value of the
wrong kind is refused, and a new id becomes a keeper-only variable."""

from __future__ import annotations

import pytest

from keeper import variables
from packs.declarations import VariableError
from rooms.services import room_get_or_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def room_id():
    room_id = room_get_or_create(name="hook-writes").pk
    variables.declare(
        room_id,
        [
            {"id": "alarm", "kind": "number", "value": 0, "min": 0, "max": 3},
            {"id": "lit", "kind": "bool", "value": False},
            {"id": "tide", "kind": "enum", "value": "low", "choices": ["low", "high"]},
        ],
        source="test",
    )
    return room_id


def _value(room_id: int, var_id: str):
    return variables.find(room_id, var_id).value


def test_a_number_is_kept_within_its_bounds(room_id):
    for asked, kept in ((99, 3), (-5, 0), (2.0, 2), ("1", 1)):
        variables.write_from_hook(room_id, "alarm", asked)
        assert _value(room_id, "alarm") == kept, asked
    with pytest.raises(VariableError):
        variables.write_from_hook(room_id, "alarm", "loud")
    assert _value(room_id, "alarm") == 1


def test_a_bool_and_an_enum_take_the_references_spellings(room_id):
    variables.write_from_hook(room_id, "lit", "yes")
    assert _value(room_id, "lit") is True
    variables.write_from_hook(room_id, "tide", "HIGH")
    assert _value(room_id, "tide") == "high"
    with pytest.raises(VariableError):
        variables.write_from_hook(room_id, "tide", "rising")


def test_a_new_id_becomes_a_keeper_only_variable_and_an_object_is_refused(room_id):
    variables.write_from_hook(room_id, "mood", "grim")
    assert not variables.find(room_id, "mood").exposed
    with pytest.raises(VariableError):
        variables.write_from_hook(room_id, "deep", {"nested": True})
    assert variables.find(room_id, "deep") is None
