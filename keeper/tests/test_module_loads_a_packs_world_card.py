"""`.module <pack>` (a pack id, a `.lwpack` in the packs folder, `gh:owner/repo`, an
https URL) installs the pack when it is not, turns it on, and loads its module: its
one world card, imported as `.import <ref> world apply` imports it, and its name the
room's module; no longer "no module file". A pack of several world cards names them:
which module the table plays is the keeper's choice (docs/packs.md, "Installing")."""

from __future__ import annotations

import shutil

import pytest

from keeper.commands import Caller, dispatch
from keeper.models import LoreEntry
from loreweaver.testing.clients import WsClient, settle
from loreweaver.testing.servers import start_serve
from packs import lwpack
from packs.tests.conftest import EXAMPLE
from rooms.services import room_get_or_create


async def test_a_keeper_loads_the_module_of_a_pack_by_its_file(fresh_env, room):
    folder = fresh_env.data_dir / "packs"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "x.lwpack").write_bytes(lwpack.build(EXAMPLE))
    server = start_serve(fresh_env, "--no-iroh", TRPG_PACKS__BUNDLED="off")
    try:
        async with await WsClient.connect(server.ws_url) as kay, await WsClient.connect(server.ws_url) as pip:
            await kay.join(fresh_env.mint(room, "Kay", "keeper"))
            await pip.join(fresh_env.mint(room, "Pip"))
            await settle(kay)

            await kay.say(".module packs/x.lwpack")
            said = (await kay.expect("narrative", speaker="system"))["text"]
            assert "Installed the pack harbour-clues 1.0.0." in said, said
            assert "The panels of Harbour clues (harbour-clues) are on in this room." in said
            assert "Imported the world of Kingsport harbour: 2 lore entries" in said
            assert "no module file" not in said
            assert [panel["id"] for panel in (await pip.expect("ui_manifest"))["panels"]] == [
                "harbour-clues/clue-board"
            ]
            await pip.say(".module")
            shown = (await pip.expect("narrative", speaker="system"))["text"]
            assert shown.startswith("Module: Harbour clues\nA clue board"), shown

            # Named by its id now that it is installed: loaded again, nothing installed twice.
            await kay.say(".module harbour-clues")
            said = (await kay.expect("narrative", speaker="system"))["text"]
            assert "The pack harbour-clues 1.0.0 is installed." in said and "Imported the world" in said
    finally:
        server.stop()


@pytest.mark.django_db
def test_a_pack_of_several_world_cards_leaves_the_choice_to_the_keeper(settings, tmp_path):
    settings.DATA_DIR = tmp_path / "data"
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": tmp_path / "m"},
        },
    }
    source = tmp_path / "two"
    shutil.copytree(EXAMPLE, source)
    shutil.copy(source / "cards" / "kingsport-harbour.json", source / "cards" / "innsmouth-harbour.json")
    manifest = (source / "pack.yaml").read_text()
    two = "cards/kingsport-harbour.json, cards/innsmouth-harbour.json]"
    (source / "pack.yaml").write_text(manifest.replace("cards/kingsport-harbour.json]", two))
    (settings.DATA_DIR / "packs").mkdir(parents=True)
    (settings.DATA_DIR / "packs" / "two.lwpack").write_bytes(lwpack.build(source))
    keeper = Caller(room_get_or_create(name="two").pk, "tui:kkkkkkkk", "Kay", True, "en")

    said = dispatch(".module two.lwpack", keeper).text
    assert "The pack holds several modules; load one with:" in said
    assert "  .import harbour-clues/cards/kingsport-harbour.json world apply" in said
    assert "  .import harbour-clues/cards/innsmouth-harbour.json world apply" in said
    assert not LoreEntry.objects.filter(room_id=keeper.room_id).exists()  # nothing chosen for the keeper
