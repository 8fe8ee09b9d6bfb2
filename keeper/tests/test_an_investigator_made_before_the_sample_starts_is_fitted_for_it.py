"""An investigator made before a keeper starts the sample adventure is no worse off than
one made after (docs/decisions.md, "The offline Keeper and the sample adventure"): each
of the adventure's skills is raised to its value when it starts, and a skill its player
already has higher stays."""

from __future__ import annotations

import pytest

from keeper import characters
from keeper.kp import sample
from rooms.models import Room

pytestmark = pytest.mark.django_db


def _investigator(room_id: int, member_id: str, name: str):
    return characters.character_create(
        room_id=room_id, member_id=member_id, system=sample.SYSTEM, name=name
    ).character


def test_starting_the_sample_raises_the_skills_of_investigators_already_made():
    room = Room.objects.create(name="Harbour").pk
    pat = _investigator(room, "pat", "Pat")
    bob = _investigator(room, "bob", "Bob")
    bob.skills["spot_hidden"] = 85
    bob.save(update_fields=["skills"])
    assert pat.skills.get("spot_hidden", 0) < 60, "a plain sheet's Spot Hidden is lower than the adventure's"

    assert sample.demo_setup(room, "kay", "Kay", "en")

    pat.refresh_from_db()
    bob.refresh_from_db()
    for skill, value in sample.adventure()["skills"].items():
        assert pat.skills[skill] >= value, skill
    assert pat.skills["spot_hidden"] == 60
    assert bob.skills["spot_hidden"] == 85, "a skill the player had higher stays"
