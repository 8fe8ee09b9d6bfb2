"""Manifest v2's parts are checked as the reference's builder checks them, and a pack
its builder wrote reads here too (docs/packs.md, "Writing a pack"): a preset that is
no SillyTavern preset, a prep script that is not `.js`, a kit whose sound is a
picture, two kits, an author's card `kind` are refused, naming the problem; a built
manifest with the reference's card kinds, asset tags and trust card installs, with
this server's own trust card in place of the reference's."""

from __future__ import annotations

import io
import shutil
import zipfile

import pytest
import yaml

from packs import lwpack, services
from packs.manifest import PackError
from packs.tests.test_studio_round_trip_pack_builds_and_installs import STUDIO_PACK

pytestmark = pytest.mark.django_db


@pytest.fixture
def source(tmp_path):
    folder = tmp_path / "corridor"
    shutil.copytree(STUDIO_PACK, folder)
    return folder


def _edit_manifest(folder, change) -> None:
    manifest = yaml.safe_load((folder / "pack.yaml").read_text())
    change(manifest)
    (folder / "pack.yaml").write_text(yaml.safe_dump(manifest, allow_unicode=True))


def test_a_preset_that_is_not_a_preset_is_refused(source):
    (source / "presets" / "corridor-keeper.json").write_text('{"temperature": 1}')
    with pytest.raises(PackError, match="not a SillyTavern completion preset"):
        lwpack.build(source)


def test_a_prep_script_must_be_javascript(source):
    (source / "prep" / "setup.py").write_text("print(1)")
    _edit_manifest(source, lambda m: m["contents"].update(prep=["prep/setup.py"]))
    with pytest.raises(PackError, match=r"prep script prep/setup.py must be a .js file"):
        lwpack.build(source)


def test_a_kit_sound_that_is_a_picture_is_refused(source):
    kit = (source / "ui" / "presentation.yaml").read_text()
    (source / "ui" / "presentation.yaml").write_text(
        kit.replace("assets/rain-on-stairwell.mp3", "assets/cover.png")
    )
    with pytest.raises(PackError, match=r"assets/cover\.png is not a picture or a sound as it should be"):
        lwpack.build(source)


def test_a_pack_has_one_presentation_kit(source):
    shutil.copy(source / "ui" / "presentation.yaml", source / "ui" / "second.yaml")
    _edit_manifest(source, lambda m: m["contents"]["presentation"].append("ui/second.yaml"))
    with pytest.raises(PackError, match="at most one presentation kit"):
        lwpack.build(source)


def test_an_author_does_not_declare_a_cards_kind(source):
    _edit_manifest(
        source,
        lambda m: m["contents"]["cards"].__setitem__(1, {"path": "cards/lin-wan.st.json", "kind": "world"}),
    )
    with pytest.raises(PackError, match=r"A card entry is a path, or \{path, notes\}"):
        lwpack.build(source)


def test_a_pack_the_reference_built_installs_with_this_servers_trust_card(source, media_root):
    ours = lwpack.build(source)
    with zipfile.ZipFile(io.BytesIO(ours)) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    manifest = yaml.safe_load(members["pack.yaml"])
    # What the reference's builder writes: detected card kinds, asset tags, its trust card.
    notes = manifest.pop("card_notes")
    manifest["contents"]["cards"] = [
        {"path": path, "kind": "character", **({"notes": notes[path]} if path in notes else {})}
        for path in manifest["contents"]["cards"]
    ]
    manifest["assets"][0]["tags"] = ["cover"]
    manifest["trust"] = {"skills": 1, "has_hooks": True, "has_ejs": False, "presets": 1, "prep_scripts": 1}
    manifest["engine"] = {"protocol": "2.0"}
    members["pack.yaml"] = yaml.safe_dump(manifest, allow_unicode=True).encode()
    output = io.BytesIO()
    with zipfile.ZipFile(output, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)

    installed = services.install(output.getvalue())
    assert installed.manifest["trust"] == lwpack.open_pack(ours).trust
    assert installed.manifest["card_notes"]["cards/administrator.st.json"]["en"].startswith("Import as world")
    lines = "\n".join(services.trust_lines(installed.manifest, "en"))
    assert (
        "Holds 1 prompt presets" in lines and "Holds a presentation kit (1 subjects, 1 sound cues)" in lines
    )
