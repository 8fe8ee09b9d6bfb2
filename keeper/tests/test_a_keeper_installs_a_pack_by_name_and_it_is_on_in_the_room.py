"""`.pack install <name>` finds a pack by its id when it is installed (the bundled
harbour-clues), by its file in the packs folder, or among the packs that ship with the
server when an operator removed it; in every case the pack is on in the room at once,
its panels in each member's `ui_manifest` as `.panels enable` puts them there
(docs/packs.md, "Installing")."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, settle
from loreweaver.testing.servers import start_serve


async def test_the_bundled_pack_is_found_by_its_id_and_turned_on(fresh_env, room):
    server = start_serve(fresh_env, "--no-iroh")
    try:
        async with await WsClient.connect(server.ws_url) as kay, await WsClient.connect(server.ws_url) as pip:
            joined = await kay.join(fresh_env.mint(room, "Kay", "keeper"))
            assert joined[-1]["panels"] == []
            await pip.join(fresh_env.mint(room, "Pip"))
            await settle(kay)

            await kay.say(".pack install harbour-clues")
            said = (await kay.expect("narrative", speaker="system"))["text"]
            assert "The pack harbour-clues 1.0.0 is installed." in said, said
            assert "The panels of Harbour clues (harbour-clues) are on in this room." in said
            assert "To load its module (its world card): .module harbour-clues" in said
            shown = await pip.expect("ui_manifest")
            assert [panel["id"] for panel in shown["panels"]] == ["harbour-clues/clue-board"]
            await kay.say(".var")
            assert "day = 1" in (await kay.expect("narrative", speaker="system"))["text"]  # its variables too

            # Removed by a keeper, it is found again among the packs the server ships.
            await kay.say(".pack remove harbour-clues")
            await kay.expect("narrative", speaker="system")
            assert (await pip.expect("ui_manifest"))["panels"] == []
            await kay.say(".pack install harbour-clues")
            said = (await kay.expect("narrative", speaker="system"))["text"]
            assert "Installed the pack harbour-clues 1.0.0." in said, said
            assert "Harbour clues (harbour-clues 1.0.0), license CC-BY-4.0" in said
            shown = await pip.expect("ui_manifest")
            assert [panel["id"] for panel in shown["panels"]] == ["harbour-clues/clue-board"]
    finally:
        server.stop()
