"""An access key as a live connection holds it: a plain value read in one visit to the
database. A connection keeps its key for as long as it lives and reads it on the event
loop, where a model row must not be (a lazy relation would query from there), so the
wire is handed these instead of rows (docs/architecture.md, "Layers")."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.utils import timezone

from rooms import keystore, services
from rooms.choices import Role
from rooms.models import AccessKey


@dataclass(frozen=True)
class HeldKey:
    """One access key as it was when read, with its room's name."""

    key_id: int
    public_id: str  # the non-secret id admin frames name it by
    key_masked: str
    room_id: int
    room_name: str
    member_id: str
    name: str
    role: str
    purpose: str
    expires_at: datetime.datetime | None
    # How many more minutes an operator's disconnect kept its holder out when it was read.
    kept_out_minutes: int

    @property
    def is_keeper(self) -> bool:
        return self.role == Role.KEEPER


def held(access_key: AccessKey, *, now: datetime.datetime | None = None) -> HeldKey:
    """`access_key` as a plain value (its room read with it, when it was not already)."""
    return HeldKey(
        key_id=access_key.pk,
        public_id=access_key.public_id,
        key_masked=access_key.key_masked,
        room_id=access_key.room_id,
        room_name=access_key.room.name,
        member_id=access_key.member_id,
        name=access_key.name,
        role=access_key.role,
        purpose=access_key.purpose,
        expires_at=access_key.expires_at,
        kept_out_minutes=access_key.kept_out_minutes(now or timezone.now()),
    )


def key_at_join(key: str) -> HeldKey | None:
    """The key a joining client presented (`keystore.key_lookup_at_join`), or None."""
    found = keystore.key_lookup_at_join(key)
    return None if found is None else held(found)


def key_now(key_id: int) -> HeldKey | None:
    """Access key `key_id` as it is now (`services.key_holder`): None once it was
    deleted or expired."""
    found = services.key_holder(key_id)
    return None if found is None else held(found)


def room_keys_held(room_id: int) -> list[HeldKey]:
    """A room's keys that have not expired, by name (`services.room_keys`)."""
    now = timezone.now()
    return [held(access_key, now=now) for access_key in services.room_keys(room_id=room_id, now=now)]
