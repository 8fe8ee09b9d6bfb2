"""`.pack install` and `.module` take a path inside the server's packs folder
(`sub/tide.lwpack`, `packs/tide.lwpack` as the terminal writes it); a path that would
leave the folder (`../`, an absolute path, a link out of it) is refused before
anything is read, and nothing is installed (docs/packs.md, "Installing")."""

from __future__ import annotations

import pytest

from keeper.commands import Caller, dispatch
from packs import lwpack
from packs.models import InstalledPack
from packs.tests.conftest import EXAMPLE
from rooms.services import room_get_or_create


@pytest.fixture
def data_dir(settings, tmp_path):
    settings.DATA_DIR = tmp_path / "data"
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": tmp_path / "media"},
        },
    }
    (settings.DATA_DIR / "packs" / "sub").mkdir(parents=True)
    # A pack just outside the folder, where `../` would reach it.
    (settings.DATA_DIR / "outside.lwpack").write_bytes(lwpack.build(EXAMPLE))
    return settings.DATA_DIR


@pytest.fixture
def keeper():
    return Caller(room_get_or_create(name="paths").pk, "tui:kkkkkkkk", "Kay", True, "en")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "ref",
    [
        "../outside.lwpack",
        "../outside",
        "sub/../../outside.lwpack",
        "packs/../outside.lwpack",
        "/etc/passwd.lwpack",
    ],
)
@pytest.mark.parametrize("command", [".pack install", ".module"])
def test_a_path_out_of_the_folder_is_refused(data_dir, keeper, command, ref):
    said = dispatch(f"{command} {ref}", keeper).text
    assert "is refused" in said, said
    assert not InstalledPack.objects.exists()


@pytest.mark.django_db
def test_a_link_out_of_the_folder_is_refused(data_dir, keeper):
    (data_dir / "packs" / "linked.lwpack").symlink_to(data_dir / "outside.lwpack")
    assert "is refused" in dispatch(".pack install linked.lwpack", keeper).text
    assert not InstalledPack.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("ref", ["sub/harbour.lwpack", "packs/sub/harbour.lwpack", "sub/harbour"])
def test_a_path_inside_the_folder_installs(data_dir, keeper, ref):
    (data_dir / "packs" / "sub" / "harbour.lwpack").write_bytes(lwpack.build(EXAMPLE))
    said = dispatch(f".pack install {ref}", keeper).text
    assert "Installed the pack harbour-clues 1.0.0." in said
    assert InstalledPack.objects.get().rooms.get().room_id == keeper.room_id
