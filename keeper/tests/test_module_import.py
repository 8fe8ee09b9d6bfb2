"""`.module <file>` imports a module from the data directory's modules folder by its name
or its path inside the folder (never a path out of it), `.module import` from pasted
text; without a model the text's headings say what is the title, what players may know
and what is the keeper's
(docs/rules.md, "The command dialect")."""

from __future__ import annotations

import os

import pytest

from keeper.commands import Caller, dispatch
from keeper.models import Npc, Story
from loreweaver.testing.clients import WsClient, settle
from rooms.services import room_get_or_create

ADVENTURE = """# The Drowned Bell

Fishermen of Kessel hear a church bell under the sea at night.

## Truth
The bell is rung by the keeper of the lighthouse, to call something up.

## NPCs
### Silas Reed
The lighthouse keeper, weathered and polite.
Secret: he rings the bell every new moon.
- Mara Holt: the innkeeper, talks too much

## Scene
The harbour at dusk

## Handouts
A map with an X off the point.
"""


@pytest.fixture
def modules_folder(settings, tmp_path):
    settings.DATA_DIR = tmp_path
    folder = tmp_path / "modules"
    folder.mkdir()
    (folder / "drowned-bell.md").write_text(ADVENTURE, encoding="utf-8")
    return folder


@pytest.fixture
def keeper():
    return Caller(room_get_or_create(name="modules").pk, "tui:kkkkkkkk", "Kay", True, "en")


@pytest.fixture
def player(keeper):
    return Caller(keeper.room_id, "tui:pppppppp", "Pip", False, "en")


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["drowned-bell", "drowned-bell.md"])
def test_a_module_file_is_read_by_its_headings_without_a_model(modules_folder, keeper, player, name):
    reply = dispatch(f".module {name}", keeper)
    assert "The Drowned Bell" in reply.text and "NPCs added: 2" in reply.text
    story = Story.objects.get(room_id=keeper.room_id)
    assert story.module_intro == "Fishermen of Kessel hear a church bell under the sea at night."
    assert "lighthouse" in story.module_truth and "map with an X" in story.module_truth
    assert story.scene_name == "The harbour at dusk"
    silas = Npc.objects.get(room_id=keeper.room_id, name="Silas Reed")
    assert "weathered" in silas.persona and silas.secret == "he rings the bell every new moon."
    assert (
        Npc.objects.get(room_id=keeper.room_id, name="Mara Holt").persona == "the innkeeper, talks too much"
    )
    shown = dispatch(".module", player).text
    assert "Fishermen of Kessel" in shown and "lighthouse" not in shown and "map" not in shown


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name",
    [
        "../secrets.md",
        "/etc/passwd",
        "..",
        "..\\x.md",
        ".hidden",
        "a/../drowned-bell.md",
        "modules/../secrets",
    ],
)
def test_a_path_out_of_the_modules_folder_is_refused(modules_folder, keeper, name):
    (modules_folder.parent / "secrets.md").write_text("# Secret\n\nkeep out", encoding="utf-8")
    reply = dispatch(f".module {name}", keeper)
    assert "is refused" in reply.text
    assert not Story.objects.filter(room_id=keeper.room_id).exclude(module_title="").exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["coc/fogbell.md", "coc/fogbell", "modules/coc/fogbell.md", "./coc//fogbell.md", "coc\\fogbell"]
)
def test_a_path_inside_the_modules_folder_is_read(modules_folder, keeper, path):
    (modules_folder / "coc").mkdir()
    (modules_folder / "coc" / "fogbell.md").write_text("# Fogbell\n\nA bell in the fog.", encoding="utf-8")
    assert "Fogbell" in dispatch(f".module {path}", keeper).text
    assert Story.objects.get(room_id=keeper.room_id).module_intro == "A bell in the fog."


@pytest.mark.django_db
def test_the_terminal_clients_suggested_path_names_a_file_in_the_folder(modules_folder, keeper):
    assert "The Drowned Bell" in dispatch(".module modules/drowned-bell.md", keeper).text


@pytest.mark.django_db
def test_a_missing_file_in_a_subfolder_is_listed_by_its_path(modules_folder, keeper):
    (modules_folder / "coc").mkdir()
    (modules_folder / "coc" / "fogbell.md").write_text("# Fogbell", encoding="utf-8")
    reply = dispatch(".module sub/dir.md", keeper).text
    assert "sub/dir.md" in reply and "coc/fogbell.md" in reply and "drowned-bell.md" in reply


@pytest.mark.django_db
def test_a_link_out_of_the_modules_folder_is_refused(modules_folder, keeper):
    (modules_folder.parent / "outside.md").write_text("# Outside\n\nnot a module", encoding="utf-8")
    os.symlink(modules_folder.parent / "outside.md", modules_folder / "inside.md")
    assert "is refused" in dispatch(".module inside", keeper).text
    assert not Story.objects.filter(room_id=keeper.room_id, module_title="Outside").exists()


@pytest.mark.django_db
def test_a_missing_file_names_the_files_that_are_there(modules_folder, keeper):
    reply = dispatch(".module sunken-city", keeper)
    assert "sunken-city" in reply.text and "drowned-bell.md" in reply.text


@pytest.mark.django_db
def test_pasted_text_is_imported_and_players_may_not_import(modules_folder, keeper, player):
    assert "keeper" in dispatch(".module import # Mine\n\nmine", player).text.lower()
    reply = dispatch(
        ".module import # The Quiet House\nA house nobody enters.\n## Secret\nIt is empty.", keeper
    )
    assert "The Quiet House" in reply.text
    story = Story.objects.get(room_id=keeper.room_id)
    assert (story.module_intro, story.module_truth) == ("A house nobody enters.", "It is empty.")


@pytest.mark.django_db
def test_a_file_without_headings_uses_its_first_line_as_the_title(modules_folder, keeper):
    (modules_folder / "plain.txt").write_text("Night Train\n\nA train that never stops.", encoding="utf-8")
    dispatch(".module plain", keeper)
    story = Story.objects.get(room_id=keeper.room_id)
    assert (story.module_title, story.module_intro) == ("Night Train", "A train that never stops.")


@pytest.mark.django_db
def test_the_refusal_reads_in_chinese_for_a_chinese_keeper(modules_folder, keeper):
    zh = Caller(keeper.room_id, keeper.member_id, keeper.name, True, "zh")
    assert "被拒绝" in dispatch(".module ../x", zh).text


MODEL_DRAFT = """```yaml
title: The Drowned Bell
intro: A bell rings under the sea.
truth: The lighthouse keeper rings it.
scene: Kessel harbour
npcs:
  - {name: Silas Reed, persona: a polite old man, secret: he rings it}
```"""


async def test_with_a_model_the_module_is_drafted_after_a_first_reply(ai_server, llm, room):
    modules = ai_server.env.data_dir / "modules"
    modules.mkdir(exist_ok=True)
    (modules / "drowned-bell.md").write_text(ADVENTURE, encoding="utf-8")
    llm.say(MODEL_DRAFT)
    async with (
        await WsClient.connect(ai_server.ws_url) as keeper,
        await WsClient.connect(ai_server.ws_url) as player,
    ):
        await keeper.join(ai_server.env.mint(room, "Kay", "keeper"))
        await player.join(ai_server.env.mint(room, "Pip"))
        await keeper.say(".module drowned-bell")
        first = await keeper.expect("narrative", speaker="system")
        done = await keeper.expect("narrative", speaker="system")
        await settle(player)
        await player.say(".module")
        shown = await player.expect("narrative", speaker="system")
    assert "drafting" in first["text"]
    assert "The Drowned Bell" in done["text"] and "NPCs added: 1" in done["text"]
    asked = llm.chat_requests()[-1]["messages"]
    assert "Fishermen of Kessel" in asked[-1]["content"]
    assert "A bell rings under the sea." in shown["text"] and "lighthouse keeper rings" not in shown["text"]


INLINE_SECRETS = """# Fog at Kessel

The fog never lifts.

## NPCs
- Mara Holt: the innkeeper, talks too much. Secret: she hides Silas in the cellar.
- **Old Ben**: a fisherman (秘密：他看见了那艘船)
- Tom Reed: the ferryman; **Secret:** he is Silas's brother
- Ada Finch: a secretary at the harbour office
"""


@pytest.mark.django_db
def test_a_secret_inside_an_npc_line_is_the_keepers_and_the_reply_names_whose(modules_folder, keeper, player):
    (modules_folder / "fog.md").write_text(INLINE_SECRETS, encoding="utf-8")
    reply = dispatch(".module fog", keeper).text
    assert "Secrets kept for keepers only: Mara Holt, Old Ben, Tom Reed." in reply
    cast = {npc.name: (npc.persona, npc.secret) for npc in Npc.objects.filter(room_id=keeper.room_id)}
    assert cast["Mara Holt"] == ("the innkeeper, talks too much.", "she hides Silas in the cellar.")
    assert cast["Old Ben"] == ("a fisherman", "他看见了那艘船")
    assert cast["Tom Reed"] == ("the ferryman", "he is Silas's brother")
    assert cast["Ada Finch"] == ("a secretary at the harbour office", "")
    shown = dispatch(".npc show Mara Holt", player).text + dispatch(".npc list", player).text
    assert "cellar" not in shown and "船" not in shown and "brother" not in shown
