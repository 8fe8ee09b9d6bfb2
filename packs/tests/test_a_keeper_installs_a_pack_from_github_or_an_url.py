"""A keeper installs a pack by `gh:owner/repo` (the release's `.lwpack`, found through
the GitHub releases API, as the reference server does) or by URL (a redirect
followed), and it is on in the room at once: the download runs after a first reply,
through the endpoint policy, from a source the operator allows (docs/packs.md,
"Installing"). GitHub and the download host are a real local HTTP server here."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, settle
from loreweaver.testing.servers import start_serve
from packs import lwpack
from packs.tests.pack_source_server import pack_source
from packs.tests.test_studio_round_trip_pack_builds_and_installs import STUDIO_PACK

TINY = """id: tide-tables
version: 0.1.0
name: {en: Tide tables, zh: 潮汐表}
description: A day counter.
license: CC0-1.0
contents: {panels: [panels.yaml]}
variables:
  - {id: day, label: {en: Day}, kind: number, value: 1, audience: everyone}
"""
PANELS = """panels:
  - id: days
    title: {en: Days}
    slot: tray
    blocks:
      - {kind: stat, label: {en: Day}, value: {$var: day}}
"""


def _tiny_pack(folder) -> bytes:
    folder.mkdir()
    (folder / "pack.yaml").write_text(TINY)
    (folder / "panels.yaml").write_text(PANELS)
    return lwpack.build(folder)


async def test_a_keeper_installs_from_github_and_from_a_url_and_the_pack_is_on(fresh_env, room, tmp_path):
    files = {
        "corridor-apartment.lwpack": lwpack.build(STUDIO_PACK),
        "tide.lwpack": _tiny_pack(tmp_path / "tiny"),
    }
    with pack_source(files) as source:
        server = start_serve(
            fresh_env,
            "--no-iroh",
            TRPG_PACKS__ALLOWED_SOURCES=source.url,
            TRPG_PACKS__GITHUB_API=source.url,
        )
        try:
            async with (
                await WsClient.connect(server.ws_url) as kay,
                await WsClient.connect(server.ws_url) as pip,
            ):
                await kay.join(fresh_env.mint(room, "Kay", "keeper"))
                await pip.join(fresh_env.mint(room, "Pip"))
                await settle(kay)

                await kay.say(".pack install gh:studio/corridor")
                first = await kay.expect("narrative", speaker="system")
                assert first["text"] == "Fetching the pack gh:studio/corridor…"
                said = (await kay.expect("narrative", speaker="system", timeout=30))["text"]
                assert "Installed the pack corridor-apartment 1.0.0." in said, said
                assert "The panels of Corridor Apartment (corridor-apartment) are on in this room." in said
                shown = await pip.expect("ui_manifest")
                assert [panel["id"] for panel in shown["panels"]] == ["corridor-apartment/handouts"]
                assert "/repos/studio/corridor/releases/latest" in source.asked
                assert "/download/corridor-apartment.lwpack" in source.asked

                await kay.say(f".pack install {source.url}/moved/tide.lwpack")
                await kay.expect("narrative", speaker="system")
                said = (await kay.expect("narrative", speaker="system", timeout=30))["text"]
                assert "Installed the pack tide-tables 0.1.0." in said, said
                shown = await pip.expect("ui_manifest")
                assert [panel["id"] for panel in shown["panels"]][-1] == "tide-tables/days"
                assert source.asked[-2:] == ["/moved/tide.lwpack", "/download/tide.lwpack"]

                await kay.say(".pack install gh:studio/corridor@v1")
                await kay.expect("narrative", speaker="system")
                said = (await kay.expect("narrative", speaker="system", timeout=30))["text"]
                assert "Installed the pack corridor-apartment 1.0.0." in said, "the same version, replaced"
                assert "/repos/studio/corridor/releases/tags/v1" in source.asked
        finally:
            server.stop()
