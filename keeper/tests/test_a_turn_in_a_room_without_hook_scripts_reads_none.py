"""Where the hook scripts are not kept between turns (the hosted profile, whose cache is
shared), a turn learns with its key whether its room has any, and reads none when it
has none; a room with a script, or one a turn itself gives a script, still has it read
(docs/performance.md, "Fewer statements and cheaper texts in a turn"). Both profiles run
it, the embedded one told that its scripts are not kept either."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from keeper.turns import play_line
from packs import hook_cache
from packs.models import PackFile, RoomHook
from packs.services import room_hook_scripts
from rooms.services import key_mint

pytestmark = pytest.mark.django_db

HOOK = "export function onTurn(ctx) { ctx.log('heard'); }"


@pytest.fixture(autouse=True)
def _scripts_not_kept(monkeypatch):
    monkeypatch.setattr(hook_cache, "kept_here", lambda: False)


def _hook_reads(statements: CaptureQueriesContext) -> list[str]:
    """The statements that read the scripts themselves (not only whether there are any)."""
    return [query["sql"] for query in statements.captured_queries if "UNION ALL" in query["sql"]]


def _human_keepers_room(name: str) -> tuple[int, int]:
    keeper = key_mint(room=name, name="Kay", role="keeper")
    player = key_mint(room=name, name="Ann")
    play_line(keeper.access_key.room_id, keeper.access_key.pk, "en", ".bot off")
    return keeper.access_key.room_id, player.access_key.pk


def test_a_story_line_in_a_room_without_hook_scripts_reads_none():
    room_id, key_id = _human_keepers_room("plain")

    with CaptureQueriesContext(connection) as statements:
        played = play_line(room_id, key_id, "en", "I wait by the door")

    assert played is not None and played.hook_scripts == []
    assert _hook_reads(statements) == []
    assert any(PackFile._meta.db_table in query["sql"] for query in statements.captured_queries)


def test_a_roll_in_a_room_with_a_cards_hook_script_reads_it():
    room_id, key_id = _human_keepers_room("carded")
    RoomHook.objects.create(room_id=room_id, source="Old Mill", code=HOOK)

    with CaptureQueriesContext(connection) as statements:
        played = play_line(room_id, key_id, "en", ".r 1d6")

    assert played is not None and [script.code for script in played.hook_scripts] == [HOOK]
    assert len(_hook_reads(statements)) == 1


def test_a_script_written_after_the_turn_found_none_is_read():
    room_id, _key_id = _human_keepers_room("changing")
    found_none_at = hook_cache.changes_here()
    assert room_hook_scripts(room_id, none_as_of=found_none_at) == []

    RoomHook.objects.create(room_id=room_id, source="Old Mill", code=HOOK)  # as a command would

    assert [script.code for script in room_hook_scripts(room_id, none_as_of=found_none_at)] == [HOOK]
