"""`.lore`, `.chronicle` and `.recap` at the table, the Keeper's `remember` tool, a
module's lore, and how the story is folded (docs/decisions.md, "Campaign memory"):
players never read keeper-only lore or facts; the last turns are never folded."""

from __future__ import annotations

import pytest

from keeper import chronicle, modules
from keeper.commands import Caller, dispatch
from keeper.kp import tools
from keeper.models import ChronicleEntry, LoreEntry
from rooms.models import Room, Speaker
from rooms.services import room_get_or_create, transcript_append

pytestmark = pytest.mark.django_db


@pytest.fixture
def room() -> Room:
    return room_get_or_create(name="memory")


def _keeper(room: Room) -> Caller:
    return Caller(room.pk, "tui:kkkkkkkk", "Kay", True, "en")


def _player(room: Room) -> Caller:
    return Caller(room.pk, "tui:pppppppp", "Pip", False, "en")


def test_players_read_only_the_lore_for_everyone(room):
    keeper, player = _keeper(room), _player(room)
    assert "keeper" in dispatch(".lore add The pier | pier | It is rotten.", player).text.lower()
    assert (
        "saved" in dispatch(".lore add The pier | pier, jetty | The pier is rotten at its end.", keeper).text
    )
    assert "keepers only" in dispatch(".lore secret The cult | cult | The mayor leads it.", keeper).text

    listed = dispatch(".lore list", player).text
    assert "The pier" in listed and "The cult" not in listed
    assert "No lore called" in dispatch(".lore show the cult", player).text
    assert "mayor" not in dispatch(".lore query who leads the cult", player).text
    assert "rotten" in dispatch(".lore query is the jetty safe", player).text

    keepers_list = dispatch(".lore list", keeper).text
    assert "The cult (keepers)" in keepers_list
    assert "The mayor leads it." in dispatch(".lore show The cult", keeper).text
    assert "deleted" in dispatch(".lore del the cult", keeper).text
    assert not LoreEntry.objects.filter(room=room, title="The cult").exists()


def test_the_keeper_remembers_a_fact_as_lore(room):
    context = tools.ToolContext(room.pk, "tui:pppppppp", "Pip", "en")
    said = tools.run(
        "remember",
        {
            "title": "Password",
            "keywords": ["password", "vault"],
            "content": "It is BLUE HERON.",
            "secret": False,
        },
        context,
    )
    assert said.result == "remembered 'Password'"
    tools.run("remember", {"title": "password", "keywords": "vault", "content": "It changed."}, context)
    entry = LoreEntry.objects.get(room=room)
    assert (entry.content, entry.keywords, entry.visibility) == ("It changed.", ["vault"], "everyone")
    tools.run(
        "remember", {"title": "Motive", "keywords": ["why"], "content": "Greed.", "secret": True}, context
    )
    assert LoreEntry.objects.get(room=room, title="Motive").visibility == "keepers"


def test_a_modules_lore_comes_with_it(room):
    document = modules.from_yaml(
        "title: Gull Rock\nintro: A dark lighthouse.\nlore:\n"
        "  - {title: The bell, keywords: [bell], content: It rings at low tide.}\n"
        "  - {title: The brother, keywords: [brother], content: Silas drowned him., secret: true}\n",
        "gull-rock",
    )
    modules.install(room.pk, document)
    modules.install(room.pk, document)  # again: replaced, not doubled
    assert sorted(LoreEntry.objects.filter(room=room).values_list("title", "visibility")) == [
        ("The bell", "everyone"),
        ("The brother", "keepers"),
    ]


def test_the_chronicle_is_for_keepers_and_the_recap_never_shows_a_keeper_only_fact(room):
    transcript_append(
        room=room, speaker=Speaker.PLAYER, name="Pip", member_id="tui:pppppppp", text="I listen."
    )
    chronicle.record(
        room.pk,
        chronicle.Turn(
            "Pip",
            "I listen.",
            "A bell tolls below.",
            [{"actor": "Pip", "skill": "listen", "total": 12, "outcome": {"label": "Hard success"}}],
            ["Silas: Go away."],
            ["Keeper rolls 1d100: 3 (hidden)"],
        ),
    )
    keeper_view = dispatch(".chronicle", _keeper(room)).text
    assert "A bell tolls below." in keeper_view and "(hidden)" in keeper_view
    assert "keeper" in dispatch(".chronicle", _player(room)).text.lower()
    recap = dispatch(".recap", _player(room)).text
    assert "Pip Listen: 12 (Hard success)" in recap and "Silas: Go away." in recap
    assert "hidden" not in recap and "1d100" not in recap


def test_a_fold_never_takes_the_last_four_turns(room):
    for turn in range(10):
        transcript_append(
            room=room, speaker=Speaker.PLAYER, name="Pip", member_id="p", text=f"line {turn} " * 40
        )
        transcript_append(
            room=room, speaker=Speaker.KEEPER, name="", member_id="", text=f"answer {turn} " * 40
        )
    lines = chronicle.unfolded_lines(room.pk, 0, 400)
    assert chronicle.plan_fold(lines, fixed_tokens=100, window=100_000) is None, "well under the window"
    through = chronicle.plan_fold(lines, fixed_tokens=100, window=2000)
    kept = [line for line in lines if line.id > through]
    assert [line.text.split()[1] for line in kept if line.speaker == Speaker.PLAYER][:1] == ["6"], (
        "the lines of the last four turns stay"
    )


def test_without_a_model_the_summary_is_extracted_and_saved_once(room):
    for turn in range(6):
        line = transcript_append(
            room=room, speaker=Speaker.PLAYER, name="Pip", member_id="p", text=f"Turn {turn}."
        )
        chronicle.record(room.pk, chronicle.Turn("Pip", f"I open door {turn}.", f"Door {turn} creaks. Dust."))
    material = chronicle.fold_material(room.pk, line.id, window=8000)
    text = chronicle.extractive_summary(material)
    assert "- Pip: I open door 0. Door 0 creaks." in text and "Dust" not in text
    assert chronicle.save_fold(material, text)
    assert not chronicle.save_fold(material, "a second fold of the same start loses")
    assert chronicle.summary_of(room.pk).through_line_id == line.id
    assert ChronicleEntry.objects.filter(room=room).count() == 6


def test_an_aside_is_never_story(room):
    transcript_append(room=room, speaker=Speaker.PLAYER, name="Pip", member_id="p", text="I open the door.")
    transcript_append(room=room, speaker=Speaker.PLAYER, name="Pip", member_id="p", text="(( brb, coffee ))")
    assert [line.text for line in chronicle.unfolded_lines(room.pk, 0, 400)] == ["I open the door."]
