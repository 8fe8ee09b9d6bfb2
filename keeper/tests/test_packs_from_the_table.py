"""`.pack`: a keeper installs a pack the operator placed in the packs folder, by name;
anyone lists what is installed; players cannot install or remove (docs/packs.md). A
path that would leave the folder: test_a_pack_path_never_leaves_the_packs_folder.py."""

from __future__ import annotations

import pytest

from keeper.commands import Caller, dispatch
from loreweaver.testing.clients import WsClient, settle
from packs import lwpack
from packs.models import InstalledPack
from packs.tests.conftest import EXAMPLE
from rooms.services import room_get_or_create


@pytest.fixture
def packs_folder(settings, tmp_path):
    settings.DATA_DIR = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": tmp_path / "media"},
        },
    }
    folder = tmp_path / "packs"
    folder.mkdir()
    (folder / "harbour-clues.lwpack").write_bytes(lwpack.build(EXAMPLE))
    return folder


@pytest.fixture
def keeper():
    return Caller(room_get_or_create(name="packs").pk, "tui:kkkkkkkk", "Kay", True, "en")


@pytest.fixture
def player(keeper):
    return Caller(keeper.room_id, "tui:pppppppp", "Pip", False, "zh")


@pytest.mark.django_db
def test_a_keeper_installs_a_pack_from_the_folder_and_everyone_sees_it_listed(packs_folder, keeper, player):
    assert "ready to install: harbour-clues" in dispatch(".pack list", keeper).text
    reply = dispatch(".pack install harbour-clues", keeper)
    assert "Installed the pack harbour-clues 1.0.0." in reply.text and "2 panels" in reply.text
    assert InstalledPack.objects.get().installed_by == "Kay"
    assert "harbour-clues 1.0.0 · 港口线索" in dispatch(".pack list", player).text
    assert "Removed the pack harbour-clues 1.0.0." in dispatch(".pack remove harbour-clues", keeper).text
    assert not InstalledPack.objects.exists()


@pytest.mark.django_db
def test_a_player_can_neither_install_nor_remove(packs_folder, player):
    assert "守秘人" in dispatch(".pack install harbour-clues", player).text
    assert not InstalledPack.objects.exists()


async def test_a_fresh_server_has_the_example_pack_and_a_keeper_reinstalls_it_over_the_wire(fresh_env, room):
    from loreweaver.testing.servers import start_serve

    folder = fresh_env.data_dir / "packs"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "harbour-clues.lwpack").write_bytes(lwpack.build(EXAMPLE))
    server = start_serve(fresh_env, "--no-iroh")
    try:
        async with await WsClient.connect(server.ws_url) as kay, await WsClient.connect(server.ws_url) as pip:
            await kay.join(fresh_env.mint(room, "Kay", "keeper"))
            await pip.join(fresh_env.mint(room, "Pip"))
            await settle(kay)
            await pip.say(".panels list")
            listed = await pip.expect("narrative", speaker="system")
            assert "harbour-clues · Harbour clues: clue-board" in listed["text"]
            assert "keeper-checklist" not in listed["text"]  # a player is not told of keeper panels
            await pip.say(".pack remove harbour-clues")
            assert "keeper" in (await pip.expect("narrative", speaker="system"))["text"]
            await kay.say(".pack remove harbour-clues")
            assert "Removed the pack" in (await kay.expect("narrative", speaker="system"))["text"]
            await kay.say(".pack install harbour-clues")
            installed = await kay.expect("narrative", speaker="system")
            assert "Installed the pack harbour-clues 1.0.0." in installed["text"]
    finally:
        server.stop()
