"""The terminal client's character and module screens over a real socket, each action
sent exactly as the client sends it: the character screen's "Delete" (`.st delete`),
`.st clear`, "Generate from description" (`.genchar coc7 <name> | <description>`) and
the Import module screen's `.module modules/<file>`; an NPC line with an inline
`Secret:` stays the keeper's (docs/rules.md, "The command dialect")."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, keeper_and_player, settle, system_answer

FOGBELL = """# The Fogbell

The bell on Fogbell Point rings at night though no one climbs the tower.

## NPCs

- Mara Quill: the lighthouse keeper's widow, kind and tired. Secret: she rings the bell herself.
- Tobias Wren: a fisherman who saw a light in the tower.
"""


async def _sheet_after(client: WsClient, line: str) -> tuple[str, dict | None]:
    """Say `line`; the system's answer and the character of the `state` that follows it."""
    answer = await system_answer(client, line)
    state = await client.expect("state")
    return answer, state.get("character")


async def test_the_character_screens_delete_and_st_clear_remove_the_sheet(server, room):
    async with await WsClient.connect(server.ws_url) as pip:
        await pip.join(server.env.mint(room, "Pip"))
        for word in ("delete", "clear"):
            _, made = await _sheet_after(pip, ".coc Harvey")
            assert made and made["name"] == "Harvey"
            answer, left = await _sheet_after(pip, f".st {word}")
            assert "Harvey" in answer and ".st undo" in answer
            assert left is None, f".st {word} removes the sheet"
        assert ".coc" in await system_answer(pip, ".st"), "no sheet: the answer says how to make one"


async def test_generate_from_description_makes_the_named_character_and_keeps_the_description(server, room):
    async with await WsClient.connect(server.ws_url) as pip:
        await pip.join(server.env.mint(room, "Pip"))
        sent = ".genchar coc7 Doc Hale | Calm doctor who hides a tremor in his left hand"
        answer, made = await _sheet_after(pip, sent)
        assert "Doc Hale" in answer
        assert made and (made["name"], made["system"]) == ("Doc Hale", "coc7")
        assert "Calm doctor who hides a tremor" in await system_answer(pip, ".bio")


async def test_the_import_screens_path_reads_the_modules_folder_and_a_secret_stays_the_keepers(server, room):
    modules = server.env.data_dir / "modules"
    modules.mkdir(exist_ok=True)
    (modules / "fogbell.md").write_text(FOGBELL, encoding="utf-8")
    (server.env.data_dir / "outside.md").write_text("# Outside\n\nNot a module.", encoding="utf-8")
    async with keeper_and_player(server, room, "Pip") as (keeper, pip):
        for outside in ("../outside.md", "modules/../../outside.md", "/etc/passwd"):
            assert "is refused" in await system_answer(keeper, f".module {outside}")
        imported = await system_answer(keeper, ".module modules/fogbell.md")
        assert "The Fogbell" in imported and "NPCs added: 2" in imported
        assert "Secrets kept for keepers only: Mara Quill." in imported
        await settle(pip)
        seen = await system_answer(pip, ".npc") + await system_answer(pip, ".npc show Mara Quill")
        assert "Mara Quill" in seen and "Tobias Wren" in seen
        assert "rings the bell herself" not in seen and "Secret" not in seen
        await settle(keeper)
        assert "rings the bell herself" in await system_answer(keeper, ".npc")
