"""Building the example pack and installing it: checked in full first, stored, listed,
removable; installing twice, or a pack whose files do not add up, changes nothing."""

from __future__ import annotations

import io
import zipfile

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from packs import lwpack, services
from packs.lwpack import PackError
from packs.models import InstalledPack, PackFile

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


def test_a_second_install_of_the_same_id_is_refused_and_changes_nothing(example_pack, media_root):
    services.install(example_pack)
    before = _files(media_root)
    with pytest.raises(PackError, match="installed already"):
        services.install(example_pack)
    assert InstalledPack.objects.count() == 1 and _files(media_root) == before


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
    with pytest.raises(CommandError, match="installed already"):
        call_command("pack", "install", str(path), "--yes")


def test_the_bundled_pack_is_installed_once_and_stays_removed(media_root):
    assert [pack.pack_id for pack in services.install_bundled()] == ["harbour-clues"]
    assert services.install_bundled() == []
    services.remove("harbour-clues")
    assert services.install_bundled() == [] and not InstalledPack.objects.exists()
