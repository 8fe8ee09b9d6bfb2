"""A skill is typed by the name the table prints, in either language, whatever its case
and spacing, with or without a value glued or apart; modifier words stay modifiers; an
unknown name is answered with the closest names the pack has, in the caller's language
(docs/rules.md, "The command dialect")."""

from __future__ import annotations

import pytest

from loreweaver.testing.clients import Client, WsClient, settle, system_answer


async def _card(client: Client, line: str) -> dict:
    await client.say(line)
    # The roll's own card, and the state after it: a state the room sent for an earlier
    # change (a sheet edit's, over the hosted bus) may still come first.
    card = await client.expect("dice")
    await client.expect("state")
    return card


@pytest.mark.parametrize("locale", ["en", "zh"])
async def test_a_check_and_a_sheet_change_take_the_skills_display_name(server, room, locale):
    async with await WsClient.connect(server.ws_url) as ann:
        await ann.join(server.env.mint(room, "Ann"), locale=locale)
        await system_answer(ann, ".coc Ann Ward")
        await settle(ann)
        for line in (".ra Spot Hidden", ".ra SPOT  hidden", ".ra 侦查", ".ra spot"):
            card = await _card(ann, line)
            assert (card["skill"], card["target"]) == ("spot_hidden", 25), line
        for line, target in ((".ra spot hidden 60", 60), (".ra Spot Hidden60", 60), (".ra 侦查60", 60)):
            card = await _card(ann, line)
            # A name the pack has as an id or an alias stays as typed on the card.
            assert card["skill"] in ("spot_hidden", "侦查") and card["target"] == target, line

        for line, effective, bonus in (
            (".ra hard Spot Hidden 60", 30, 0),
            (".ra spot hidden hard 60", 30, 0),
            (".ra b extreme spot hidden", 5, 1),
            (".ra b hard spot60", 30, 1),
        ):
            card = await _card(ann, line)
            assert card["skill"] in ("spot_hidden", "spot"), line
            assert card["effective_target"] == effective, line
            assert card["detail"].get("bonus", 0) == bonus, line

        changed = await system_answer(ann, ".st Spot Hidden 70 Library Use 55")
        # The change is told under the names the reader reads on the sheet.
        told = {"en": ("Spot Hidden=70", "Library Use=55"), "zh": ("侦查=70", "图书馆使用=55")}[locale]
        assert all(word in changed for word in told), changed
        await settle(ann)
        assert (await _card(ann, ".ra spot hidden"))["target"] == 70
        assert (await _card(ann, ".ra 图书馆使用"))["target"] == 55
        grown = await system_answer(ann, ".en Spot Hidden")
        assert grown.startswith("Ann Ward") and ("Spot Hidden" in grown or "侦查" in grown), grown
        await settle(ann)
        opposed = await _card(ann, ".rav Spot Hidden Dodge")
        assert (
            opposed["detail"]["left"]["name"] == "spot_hidden" and opposed["detail"]["right"]["target"] == 0
        )


@pytest.mark.parametrize(("locale", "suggested"), [("en", "Spot Hidden"), ("zh", "侦查")])
async def test_an_unknown_skill_is_answered_with_the_closest_names(server, room, locale, suggested):
    async with await WsClient.connect(server.ws_url) as ann:
        await ann.join(server.env.mint(room, "Ann"), locale=locale)
        await system_answer(ann, ".coc Ann Ward")
        await settle(ann)
        for line in (".ra Spot Hiden", ".st Spot Hiden 70", ".en spot hiden"):
            answer = await system_answer(ann, line)
            assert suggested in answer and ".coc" not in answer, (line, answer)
