"""Keys with a purpose and an expiry: a key runs out when the clock passes its expiry,
and a `chat_bind` key is a token for binding a chat account, never a way into a table
(docs/decisions.md, "Keys and keeper administration")."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from rooms import services

pytestmark = pytest.mark.django_db

SECOND = datetime.timedelta(seconds=1)


def test_a_key_minted_for_a_minute_is_refused_once_the_clock_passes_it():
    minted_at = timezone.now()
    minted = services.key_mint(room="clock", name="Brief", expires_in=60)
    room_id = minted.access_key.room_id
    just_before, just_after = minted_at + 59 * SECOND, minted_at + 62 * SECOND

    assert services.key_lookup(minted.key, now=just_before) is not None
    assert services.key_holder(minted.access_key.pk, now=just_before) is not None
    assert [k.name for k in services.room_keys(room_id=room_id, now=just_before)] == ["Brief"]

    assert services.key_lookup(minted.key, now=just_after) is None
    assert services.key_holder(minted.access_key.pk, now=just_after) is None, "a joined session ends too"
    assert services.room_keys(room_id=room_id, now=just_after) == [], "gone from the lists"


def test_a_key_without_an_expiry_never_runs_out():
    minted = services.key_mint(room="clock", name="Lasting")
    years_later = timezone.now() + datetime.timedelta(days=3650)
    assert minted.access_key.expires_at is None
    assert services.key_lookup(minted.key, now=years_later) is not None


def test_a_chat_bind_token_never_opens_a_table():
    minted = services.key_mint(room="clock", name="Bot link", purpose="chat_bind", expires_in=600)
    assert minted.access_key.purpose == "chat_bind"
    assert services.key_lookup(minted.key) is None


@pytest.mark.parametrize("seconds", [0, 59, 30 * 24 * 3600 + 1, -5])
def test_a_key_lives_between_a_minute_and_thirty_days(seconds):
    with pytest.raises(services.KeyAdminError) as refused:
        services.key_mint(room="clock", name="Odd", expires_in=seconds)
    assert refused.value.code == "bad_request"


def test_mint_key_takes_an_expiry_and_a_purpose(capsys):
    from django.core.management import call_command

    call_command(
        "mint_key", "--room", "cli", "--name", "Temp", "--expires-in", "3600", "--purpose", "chat_bind"
    )
    printed = capsys.readouterr()
    key = services.room_keys(room_id=services.room_get_or_create(name="cli").pk)[0]
    assert key.purpose == "chat_bind" and key.expires_at is not None
    assert services.key_lookup(printed.out.strip()) is None, "the printed token is no way in"
    expected = key.expires_at.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert "chat_bind" in printed.err and expected in printed.err
