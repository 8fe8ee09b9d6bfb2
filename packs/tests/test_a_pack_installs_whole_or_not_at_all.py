"""Building the example pack and installing it: checked in full first, stored, listed,
removable; installing the same version again replaces it (as an author rebuilding it
expects), while another version of an installed pack, or a pack whose files do not add
up, changes nothing."""

from __future__ import annotations

import io
import shutil
import zipfile

import pytest
import yaml
from django.core.management import call_command

from packs import lwpack, services
from packs.lwpack import PackError
from packs.models import InstalledPack, PackFile, RoomPack
from rooms.models import Room

pytestmark = pytest.mark.django_db


def _files(root):
    return sorted(path for path in root.rglob("*") if path.is_file()) if root.exists() else []


def test_the_example_pack_builds_the_same_bytes_every_time(example_pack):
    from packs.tests.conftest import EXAMPLE

    assert lwpack.build(EXAMPLE) == example_pack


def test_an_installed_pack_is_listed_with_its_files_in_the_media_storage(example_pack, media_root):
    installed = services.install(example_pack, by="operator")

    assert [pack.pack_id for pack in services.installed()] == ["harbour-clues"]
    assert installed.title("zh") == "港口线索"
    paths = sorted(PackFile.objects.values_list("path", flat=True))
    assert paths == [
        "assets/cult-sigil.png",
        "assets/harbour-map.png",
        "cards/kingsport-harbour.json",
        "cards/old-tom.json",
        "ui/panels.yaml",
    ]
    picture = PackFile.objects.get(path="assets/harbour-map.png")
    assert services.read_file(picture)[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(_files(media_root)) == 5
    assert installed.manifest["trust"]["panels"] == 2 and installed.manifest["trust"]["keeper_panels"] == 1


def test_the_trust_card_says_what_the_pack_holds_in_both_languages(example_pack):
    manifest = lwpack.open_pack(example_pack).manifest
    english = "\n".join(services.trust_lines(manifest, "en"))
    chinese = "\n".join(services.trust_lines(manifest, "zh"))
    assert "2 panels (1 for keepers only)" in english and "CC-BY-4.0" in english
    assert "港口线索" in chinese and "面板" in chinese


def _rebuilt(tmp_path, change) -> bytes:
    """The example pack built again from a copy of its source that `change` edited."""
    from packs.tests.conftest import EXAMPLE

    source = tmp_path / "harbour-clues"
    shutil.copytree(EXAMPLE, source)
    change(source)
    return lwpack.build(source)


def _retold(source) -> None:
    card = source / "cards" / "old-tom.json"
    card.write_text(card.read_text(encoding="utf-8").replace("Old Tom", "Old Thomas"), encoding="utf-8")


def test_installing_the_same_version_again_replaces_it_in_the_rooms_that_have_it(
    example_pack, media_root, tmp_path
):
    first = services.install(example_pack)
    room = Room.objects.create(name="Harbour")
    RoomPack.objects.create(room=room, pack=first)
    old_card = PackFile.objects.get(path="cards/old-tom.json").sha256

    again = services.install(_rebuilt(tmp_path, _retold), by="studio")

    assert (again.pk, again.version, InstalledPack.objects.count()) == (first.pk, "1.0.0", 1)
    assert RoomPack.objects.filter(room=room, pack=again).exists(), "still on in the room"
    card = PackFile.objects.get(path="cards/old-tom.json")
    assert card.sha256 != old_card and b"Old Thomas" in services.read_file(card)
    assert PackFile.objects.count() == 5
    assert len(_files(media_root)) == 5, "the replaced card's bytes are gone, the rest kept once"


def test_another_version_of_an_installed_pack_is_refused_and_changes_nothing(
    example_pack, media_root, tmp_path
):
    services.install(example_pack)
    before = _files(media_root)

    def bumped(source) -> None:
        manifest = source / "pack.yaml"
        manifest.write_text(manifest.read_text(encoding="utf-8").replace("1.0.0", "1.1.0"), encoding="utf-8")

    with pytest.raises(PackError, match="installed already"):
        services.install(_rebuilt(tmp_path, bumped))
    assert InstalledPack.objects.get().version == "1.0.0" and _files(media_root) == before


def test_removing_a_pack_deletes_its_record_and_its_bytes(example_pack, media_root):
    services.install(example_pack)
    services.remove("harbour-clues")
    assert not InstalledPack.objects.exists() and not PackFile.objects.exists()
    assert _files(media_root) == []


def _changed(pack: bytes, path: str, change) -> bytes:
    """`pack` with the member `path` passed through `change` (everything else as built)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(pack)) as source, zipfile.ZipFile(out, "w") as target:
        for member in source.infolist():
            data = source.read(member)
            target.writestr(member, change(data) if member.filename == path else data)
    return out.getvalue()


def test_a_pack_whose_file_was_changed_after_the_build_is_refused(example_pack, media_root):
    tampered = _changed(
        example_pack, "assets/harbour-map.png", lambda data: data[:-1] + bytes([data[-1] ^ 1])
    )
    with pytest.raises(PackError, match="does not match its sha256"):
        services.install(tampered)
    assert not InstalledPack.objects.exists() and _files(media_root) == []


def test_a_trust_card_that_hides_what_the_pack_holds_is_refused(example_pack, media_root):
    def hide_the_keeper_panel(data: bytes) -> bytes:
        manifest = yaml.safe_load(data)
        manifest["trust"]["keeper_panels"] = 0
        return yaml.safe_dump(manifest).encode()

    with pytest.raises(PackError, match="trust card"):
        services.install(_changed(example_pack, "pack.yaml", hide_the_keeper_panel))
    assert not InstalledPack.objects.exists()


def test_the_operator_installs_from_the_shell_after_reading_the_trust_card(
    example_pack, media_root, tmp_path, monkeypatch, capsys
):
    path = tmp_path / "harbour-clues.lwpack"
    path.write_bytes(example_pack)
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    call_command("pack", "install", str(path))
    assert "Not installed." in capsys.readouterr().out and not InstalledPack.objects.exists()

    call_command("pack", "install", str(path), "--yes")
    out = capsys.readouterr().out
    assert "2 panels (1 for keepers only)" in out and "Installed harbour-clues 1.0.0." in out
    call_command("pack", "install", str(path), "--yes")  # a rebuild of the same version replaces it
    assert "Installed harbour-clues 1.0.0." in capsys.readouterr().out and InstalledPack.objects.count() == 1


def test_the_bundled_pack_is_installed_once_and_stays_removed(media_root):
    assert [pack.pack_id for pack in services.install_bundled()] == ["harbour-clues"]
    assert services.install_bundled() == []
    services.remove("harbour-clues")
    assert services.install_bundled() == [] and not InstalledPack.objects.exists()
