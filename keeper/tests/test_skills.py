"""Keeper skills: markdown files with frontmatter,
discovered at start, listed in the caller's language, enabled per room, and joined to
the Keeper's brief in the rooms that enable them."""

from __future__ import annotations

import pytest

from keeper import skill_catalog
from keeper.tests.test_ai_keeper_turn import settle
from loreweaver.testing.clients import WsClient
from loreweaver.testing.fake_llm import Text

GOOD = """---
name: Sea shanties
description: NPCs break into song.
name-zh: 水手号子
description-zh: NPC 会突然唱起歌。
content_rating: general
---
Every sailor knows a verse; use one when the mood needs lifting.
"""


def test_the_shipped_skills_all_load():
    assert {"noir-narration", "gentle-horror", "clue-trail"} <= set(skill_catalog.skills())


def test_a_skill_document_is_validated():
    skill = skill_catalog.parse_skill("sea-shanties", GOOD)
    assert skill.entry("zh", True) == {
        "id": "sea-shanties",
        "name": "水手号子",
        "description": "NPC 会突然唱起歌。",
        "content_rating": "general",
        "enabled": True,
    }
    assert skill.entry("en", False)["name"] == "Sea shanties"
    for bad_id, text in [
        ("sea-shanties", "no frontmatter at all"),
        ("sea-shanties", GOOD.replace("content_rating: general", "content_rating: extreme")),
        ("sea-shanties", GOOD.replace("name: Sea shanties\n", "")),
        ("sea-shanties", GOOD.replace("general\n", "general\nscript: run\n")),
        ("../escape", GOOD),
        ("sea-shanties", GOOD.split("---\n")[0] + "---\n" + GOOD.split("---\n")[1] + "---\n"),
    ]:
        with pytest.raises(skill_catalog.SkillError):
            skill_catalog.parse_skill(bad_id, text)


def test_the_operators_skills_join_and_bad_files_are_refused(settings, tmp_path):
    settings.TRPG_SKILLS_DIR = tmp_path
    (tmp_path / "sea-shanties.md").write_text(GOOD, encoding="utf-8")
    (tmp_path / "broken.md").write_text("---\nname: [\n---\nbody\n", encoding="utf-8")
    skill_catalog.skills.cache_clear()
    try:
        found = skill_catalog.skills()
        assert "sea-shanties" in found and "broken" not in found and "clue-trail" in found
    finally:
        skill_catalog.skills.cache_clear()


async def test_a_keeper_enables_a_skill_and_the_keeper_model_is_briefed_with_it(ai_server, llm, room):
    env = ai_server.env
    async with (
        await WsClient.connect(ai_server.ws_url) as keeper,
        await WsClient.connect(ai_server.ws_url) as player,
    ):
        await keeper.join(env.mint(room, "Kay", "keeper"))
        await player.join(env.mint(room, "Pat"))
        await keeper.send({"type": "admin_list_skills", "locale": "zh"})
        listed = await keeper.expect("admin_skills")
        noir = next(s for s in listed["skills"] if s["id"] == "noir-narration")
        assert noir == {**noir, "name": "黑色电影叙事", "content_rating": "teen", "enabled": False}

        await keeper.send({"type": "admin_enable_skill", "id": "noir-narration", "on": True})
        enabled = await keeper.expect("admin_skills")
        assert next(s for s in enabled["skills"] if s["id"] == "noir-narration")["enabled"] is True
        await keeper.send({"type": "admin_enable_skill", "id": "no-such-skill", "on": True})
        assert (await keeper.expect("admin_error"))["code"] == "not_found"

        await player.say(".skill enable clue-trail")
        assert "Only the keeper" in (await player.expect("narrative", speaker="system"))["text"]
        await keeper.say(".skill enable clue-trail")
        announced = "Skill clue-trail enabled."
        await keeper.expect("narrative", speaker="system", text=announced)
        await player.expect("narrative", speaker="system", text=announced)
        await player.say(".skill")
        listing = (await player.expect("narrative", speaker="system"))["text"]
        assert (
            "[x] noir-narration" in listing and "[x] clue-trail" in listing and "[ ] gentle-horror" in listing
        )

        await settle(player)
        llm.script(Text("Rain on the window."))
        await player.say("I wait")
        await player.expect("turn_status", status="idle", timeout=20)
    brief = llm.chat_requests()[-1]["messages"][0]["content"]
    assert "weary detective" in brief and "three different" in brief and "fade to black" not in brief
