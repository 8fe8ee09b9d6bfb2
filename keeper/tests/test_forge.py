"""`admin_generate`: the model drafts, the real validators check,
and only a valid document is installed (a module into the caller's own room)."""

from __future__ import annotations

import pytest

from loreweaver.testing.clients import WsClient

SKILL = """```markdown
---
name: Weather Omens
description: The weather foreshadows what is coming.
name-zh: 天象预兆
description-zh: 天气预示即将发生的事。
content_rating: general
---
Before each revelation, describe a change in the weather that hints at it.
```"""
RULE = """id: tinyd6
name: {en: "Tiny d6", zh: "迷你 d6"}
default_die: 1d20
check: {roll: d20, target: dc, ladder: dnd5e}
sheet:
  attributes: [BODY, MIND]
  resources: [{id: hp, label: {en: HP}, max: 6}]
  creation: {BODY: "1d6", MIND: "1d6"}
"""
MODULE = """id: the-mill
title: The Mill at Hollow Creek
intro: The old mill has started turning again, though the creek is dry.
truth: The miller's drowned son turns the wheel every night.
scene: The mill yard
npcs:
  - {name: Old Hattie, persona: the miller's widow, secret: she feeds the wheel}
"""


async def _generate(client, kind: str, description: str = "something eerie") -> dict:
    await client.send({"type": "admin_generate", "kind": kind, "description": description})
    return await client.expect("admin_generated", timeout=30)


@pytest.fixture
async def keeper(ai_server, room):
    async with await WsClient.connect(ai_server.ws_url) as client:
        await client.join(ai_server.env.mint(room, "Kay", "keeper"))
        yield client


async def test_a_valid_skill_is_installed_and_listed(keeper, llm):
    llm.say(SKILL)
    result = await _generate(keeper, "skill", "omens in the weather")
    assert result == {
        "type": "admin_generated",
        "kind": "skill",
        "ok": True,
        "id": "weather-omens",
        "name": "Weather Omens",
        "error": "",
        "detail": "",
    }
    assert llm.requests[-1]["messages"][-1]["content"] == "omens in the weather"
    await keeper.send({"type": "admin_list_skills", "locale": "zh"})
    listed = await keeper.expect("admin_skills")
    assert {"id": "weather-omens", "name": "天象预兆"}.items() <= next(
        s for s in listed["skills"] if s["id"] == "weather-omens"
    ).items()


async def test_an_invalid_draft_installs_nothing(keeper, llm):
    llm.say("Sure! Here is a skill about fog, without any frontmatter.")
    result = await _generate(keeper, "skill")
    assert result["ok"] is False and result["id"] == "" and result["name"] == ""
    assert "frontmatter" in result["error"]
    llm.say(RULE.replace('BODY: "1d6"', 'STRENGTH: "1d6"'))
    rule = await _generate(keeper, "rule")
    assert rule["ok"] is False and "STRENGTH" in rule["error"]
    await keeper.send({"type": "admin_list_rules"})
    assert "tinyd6" not in {s["id"] for s in (await keeper.expect("admin_rules"))["systems"]}


async def test_a_valid_rule_pack_becomes_a_system(keeper, llm):
    llm.say(RULE)
    result = await _generate(keeper, "rule")
    assert (result["ok"], result["id"], result["name"]) == (True, "tinyd6", "Tiny d6")
    await keeper.send({"type": "admin_list_rules"})
    systems = (await keeper.expect("admin_rules"))["systems"]
    assert {"id": "tinyd6", "built_in": False, "name": {"en": "Tiny d6", "zh": "迷你 d6"}} in systems


async def test_a_module_lands_in_the_callers_room_once(keeper, llm):
    llm.say(MODULE)
    result = await _generate(keeper, "module")
    assert (result["ok"], result["id"], result["name"]) == (True, "the-mill", "The Mill at Hollow Creek")
    assert result["detail"].startswith("installed")
    await keeper.say(".module")
    shown = (await keeper.expect("narrative", speaker="system"))["text"]
    assert "The Mill at Hollow Creek" in shown and "drowned son" in shown
    await keeper.say(".npc")
    assert "Old Hattie" in (await keeper.expect("narrative", speaker="system"))["text"]
    llm.say(MODULE.replace("the-mill", "another-mill"))
    again = await _generate(keeper, "module")
    assert again["ok"] is True and again["detail"].startswith("not installed")
