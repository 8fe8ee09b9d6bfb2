"""The story the Keeper plays (module, NPCs, scene, clock, keeper notes, lore and the
hook scripts a world card brought) travels in room backups, and resets clear it by
scope."""

from __future__ import annotations

import pytest

from keeper.models import KeeperNote, LoreEntry, Npc, Story
from packs.models import RoomHook
from rooms import backups
from rooms.services import room_get_or_create

pytestmark = pytest.mark.django_db


def _story_room(name: str):
    room = room_get_or_create(name=name)
    Story.objects.create(
        room=room,
        module_id="custom",
        module_title="Gull Rock",
        module_intro="A lighthouse has gone dark.",
        module_truth="The bell calls the drowned.",
        progress=2,
        scene_name="The stair",
        clock_minutes=600,
        ai_turns=3,
        input_tokens=900,
    )
    Npc.objects.create(room=room, name="Silas", persona="gaunt", secret="hears the bell")
    KeeperNote.objects.create(room=room, text="they suspect Ruth")
    LoreEntry.objects.create(
        room=room, title="The chapel", keywords=["chapel"], content="It sank in 1802.", source="card Ada"
    )
    RoomHook.objects.create(room=room, source="card Ada", code='on("reply_ready", () => {});')
    return room


def test_a_backup_brings_the_module_npcs_and_notes_back(tmp_path, settings):
    settings.DATA_DIR = tmp_path
    room = _story_room("backed-up")
    path = backups.new_backup_path(room, "story")
    counts = backups.room_export(room, path)
    assert counts.store_rows == 4  # one NPC, one note, one lore entry, one hook script
    backups.room_delete_data(room, backup=None)
    assert not Story.objects.filter(room=room).exists() and not Npc.objects.filter(room=room).exists()
    restored, _ = backups.room_import(path, "restored")
    story = Story.objects.get(room=restored)
    assert (
        story.module_title,
        story.module_truth,
        story.progress,
        story.scene_name,
        story.clock_minutes,
    ) == (
        "Gull Rock",
        "The bell calls the drowned.",
        2,
        "The stair",
        600,
    )
    assert story.ai_turns == 0, "token counts belong to the server that spent them"
    assert list(Npc.objects.filter(room=restored).values_list("name", "secret")) == [
        ("Silas", "hears the bell")
    ]
    assert list(KeeperNote.objects.filter(room=restored).values_list("text", flat=True)) == [
        "they suspect Ruth"
    ]
    assert list(LoreEntry.objects.filter(room=restored).values_list("title", "keywords", "source")) == [
        ("The chapel", ["chapel"], "card Ada")
    ]
    assert RoomHook.objects.get(room=restored).code == 'on("reply_ready", () => {});'


def test_a_story_reset_keeps_the_module_and_npcs_but_not_the_progress():
    room = _story_room("story-reset")
    backups.room_reset(room, "story")
    story = Story.objects.get(room=room)
    assert story.module_title == "Gull Rock" and story.module_truth
    assert (story.progress, story.scene_name, story.clock_minutes, story.ai_turns) == (0, "", None, 0)
    assert Npc.objects.filter(room=room).count() == 1
    assert not KeeperNote.objects.filter(room=room).exists()
    assert LoreEntry.objects.filter(room=room).count() == 1, "a story reset keeps the lore"


def test_a_full_reset_erases_the_module_and_npcs():
    room = _story_room("full-reset")
    backups.room_reset(room, "all")
    assert not Story.objects.filter(room=room).exists()
    assert not Npc.objects.filter(room=room).exists()
    assert (
        not LoreEntry.objects.filter(room=room).exists() and not RoomHook.objects.filter(room=room).exists()
    )


@pytest.mark.parametrize(
    ("scope", "en_words", "zh_words"),
    [
        ("", ["story", "characters", "stay"], ["故事"]),
        (" chars", ["characters", "module"], ["角色"]),
        (" all", ["everything", "media", "keys"], ["一切", "媒体"]),
    ],
)
def test_each_reset_says_in_plain_words_what_it_erases(scope, en_words, zh_words):
    from keeper.commands import Caller, dispatch

    room_id = room_get_or_create(name=f"wording{scope.strip()}").pk
    en = dispatch(f".reset{scope}", Caller(room_id, "tui:kkkkkkkk", "Kay", True, "en")).text
    zh = dispatch(f".reset{scope}", Caller(room_id, "tui:kkkkkkkk", "Kay", True, "zh")).text
    assert all(word in en for word in en_words) and ".reset confirm" in en
    assert "the all" not in en and "the story of" not in en and "the chars" not in en
    assert all(word in zh for word in zh_words) and ".reset confirm" in zh
    assert "all" not in zh and "chars" not in zh.replace(".reset chars", "")
