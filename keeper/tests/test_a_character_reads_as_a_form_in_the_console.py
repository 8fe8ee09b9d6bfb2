"""A character in the operator console is a form, not JSON: its owner by the member's
name (in the list too), its skills and vitals as name and value rows, its items a row
each, its portrait in words; a skill added in a blank row is saved as a number
(docs/operations.md, "The operator console")."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from keeper.models import Character
from loreweaver.testing.clients import WsClient, human_keeper_narrates, system_answer
from loreweaver.testing.operator_http import OperatorSession
from rooms.models import Room
from rooms.services import key_mint


async def test_a_character_reads_as_a_form_with_its_owner_by_name(server, room):
    await human_keeper_narrates(server, room)
    async with await WsClient.connect(server.ws_url) as player:
        await player.join(server.env.mint(room, "Pat"))
        await system_answer(player, ".coc Mara")
        await system_answer(player, ".inv add Lantern | tool")
        await player.expect("state")

        operator = OperatorSession(server)
        listing = operator.get(f"/admin/keeper/character/?q={room}")
        assert '<td class="field-owned_by">Pat</td>' in listing, "the owner by name in the list"
        (character_id,) = set(re.findall(r"/admin/keeper/character/(\d+)/change/", listing))
        path = f"/admin/keeper/character/{character_id}/change/"
        page, values = operator.form_values(path)

        assert not re.search(r"<textarea[^>]*name=\"(items|skills|attributes|resources|avatar)\"", page)
        assert "null" not in page, "no raw JSON (the portrait is in words)"
        assert re.search(r"<option value=\"[^\"]+\" selected>Pat \(player\)</option>", page), "owner by name"
        assert values["items-0-name"] == "Lantern" and values["money"] == "0"
        skills = {
            values[key]: values[key.replace("-key", "-value")]
            for key in values
            if re.fullmatch(r"skills-\d+-key", key)
        }
        assert skills and all(value.lstrip("-").isdigit() for name, value in skills.items() if name)
        blank = next(key[: -len("-key")] for key in values if key.startswith("skills-") and not values[key])

        saved = operator.post(
            path, {**values, f"{blank}-key": "lighthouse lore", f"{blank}-value": "35"}, page
        )
        assert "was changed successfully" in saved
        _page, again = operator.form_values(path)
        names = {
            again[key]: again[key.replace("-key", "-value")] for key in again if key.startswith("skills-")
        }
        assert names["lighthouse lore"] == "35"
        assert again["owner"] == values["owner"], "the owner stays who it was"


@pytest.mark.django_db
def test_a_character_is_not_given_to_a_member_of_another_room(admin_client):
    key_mint(room="mill", name="Kay", role="keeper")
    stranger = key_mint(room="elsewhere", name="Stranger", role="player").access_key
    mill = Room.objects.get(name="mill")
    character = Character.objects.create(room=mill, owner="", name="Ada", system="coc7", pregen=True)
    path = reverse("admin:keeper_character_change", args=[character.pk])
    page = admin_client.get(path).content.decode()
    assert "Stranger" not in page, "the owner is chosen among the room's members"
    # The add page lists every room's members (no room is chosen yet): the save checks.
    answer = admin_client.post(
        reverse("admin:keeper_character_add"),
        {"room": mill.pk, "name": "Bo", "owner": stranger.member_id, "system": "coc7", "money": "0"},
    )
    assert "That member holds no key to this room." in answer.content.decode()
    assert not Character.objects.filter(name="Bo").exists()
    assert Character.objects.get(pk=character.pk).owner == ""
