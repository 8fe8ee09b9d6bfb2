"""Loreweaver Studio's own round-trip pack (its `scripts/gen_roundtrip_pack.ts` output,
unchanged: fixtures/studio-roundtrip) builds with `manage.py pack build` and installs
from the table: a manifest v2 pack with prompt presets, a prep script, a presentation
kit, `{path, notes}` cards, a panel picture and a web page panel's files that the
top-level `assets` does not list (docs/packs.md, "Writing a pack").

How its cards split (world or character) is the card reader's concern and is not
asserted here."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import yaml

from loreweaver.testing.clients import WsClient, settle
from loreweaver.testing.servers import start_serve

STUDIO_PACK = Path(__file__).resolve().parent / "fixtures" / "studio-roundtrip" / "corridor-apartment"


def _built_manifest(data: bytes) -> dict:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return yaml.safe_load(archive.read("pack.yaml"))


async def test_studios_round_trip_pack_builds_and_a_keeper_installs_it(fresh_env, room):
    target = fresh_env.data_dir / "packs" / "corridor-apartment.lwpack"
    target.parent.mkdir(parents=True, exist_ok=True)
    built = fresh_env.manage("pack", "build", str(STUDIO_PACK), "-o", str(target))
    assert built.returncode == 0, built.stderr
    assert "Holds 1 prompt presets" in built.stdout and "Holds 1 prep scripts" in built.stdout
    assert "presentation kit (1 subjects, 1 sound cues)" in built.stdout

    manifest = _built_manifest(target.read_bytes())
    assert manifest["contents"]["presets"] == ["presets/corridor-keeper.json"]
    assert manifest["contents"]["prep"] == ["prep/setup.js"]
    assert manifest["contents"]["presentation"] == ["ui/presentation.yaml"]
    assert "cards/corridor-apartment.lorecard.json" in manifest["contents"]["cards"]
    assert (
        manifest["card_notes"]["cards/administrator.st.json"]["zh"] == "以世界卡导入；模组的 ST 形态那一半。"
    )
    assets = {asset["path"]: asset for asset in manifest["assets"]}
    # Files the panels and the kit name, added though `assets` did not list them.
    for path in ("ui/handouts/page.png", "ui/case-board/index.html", "ui/case-board/app.js"):
        assert path in assets and len(assets[path]["sha256"]) == 64
    assert assets["assets/rain-on-stairwell.mp3"]["mime"] == "audio/mpeg"
    # The rule system's script ships beside its YAML.
    assert "rulepacks/corridor-resolver.js" in {record["path"] for record in manifest["files"]}
    assert manifest["trust"]["presets"] == 1 and manifest["trust"]["presentation_audio"] == 1

    server = start_serve(fresh_env, "--no-iroh")
    try:
        async with await WsClient.connect(server.ws_url) as kay, await WsClient.connect(server.ws_url) as pip:
            await kay.join(fresh_env.mint(room, "Kay", "keeper"))
            await pip.join(fresh_env.mint(room, "Pip"))
            await settle(kay)
            await kay.say(".pack install corridor-apartment")
            said = (await kay.expect("narrative", speaker="system"))["text"]
            keeper_panels = await kay.expect("ui_manifest")
            player_panels = await pip.expect("ui_manifest")
            assert "Installed the pack corridor-apartment 1.0.0." in said
            assert "prompt presets: kept with the pack" in said and "never run by this server" in said
            assert "Notes for the card cards/corridor-apartment.lorecard.json" in said
            assert "The panels of Corridor Apartment (corridor-apartment) are on in this room." in said
            ids = [panel["id"] for panel in keeper_panels["panels"]]
            assert ids == ["corridor-apartment/handouts", "corridor-apartment/case-board"]
            assert [panel["id"] for panel in player_panels["panels"]] == ["corridor-apartment/handouts"]
            board = keeper_panels["panels"][1]
            assert board["tier"] == 2 and {asset["path"] for asset in board["assets"]} == {
                "index.html",
                "app.js",
            }
            page = next(
                block for block in player_panels["panels"][0]["blocks"] if block.get("kind") == "image"
            )
            assert page["hash"] == assets["ui/handouts/page.png"]["sha256"]
    finally:
        server.stop()
