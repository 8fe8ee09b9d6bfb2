"""A room never loses its last keeper key, however its keys are deleted: one at a
time, a member's keys, or many rooms' keys at once, which are deleted all or none."""

from __future__ import annotations

import pytest

from rooms.models import AccessKey
from rooms.services import LastKeeperError, key_delete, key_mint, keys_delete, member_keys_delete

pytestmark = pytest.mark.django_db


def test_deleting_keys_of_two_rooms_deletes_none_when_one_room_would_lose_its_keeper():
    spare = key_mint(room="north", name="Spare", role="keeper").access_key
    key_mint(room="north", name="Kept", role="keeper")
    only = key_mint(room="south", name="Only", role="keeper").access_key
    with pytest.raises(LastKeeperError) as refused:
        keys_delete(keys=[spare, only])
    assert refused.value.room == "south"
    assert AccessKey.objects.filter(pk__in=[spare.pk, only.pk]).count() == 2


def test_the_last_keeper_key_stays_whichever_way_it_is_deleted():
    only = key_mint(room="lone", name="Only", role="keeper").access_key
    player = key_mint(room="lone", name="Pat").access_key
    with pytest.raises(LastKeeperError):
        key_delete(access_key=only)
    with pytest.raises(LastKeeperError):
        member_keys_delete(room_id=only.room_id, member_id=only.member_id)
    assert keys_delete(keys=[player]) == 1
    assert AccessKey.objects.filter(room__name="lone").get().pk == only.pk
