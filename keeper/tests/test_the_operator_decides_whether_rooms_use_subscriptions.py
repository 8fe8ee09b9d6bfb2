"""Whether room keepers may use their own ChatGPT / SuperGrok subscriptions is the
operator's: `TRPG_LLM__SUBSCRIPTIONS`, which the console's model page can overrule.
Refused, `.model login` says so and a room's grant is not used; the console never
shows a grant's tokens (docs/operations.md, "Signing in with a subscription")."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse

from keeper.commands import Caller
from keeper.kp.keeper_commands import model
from keeper.llm import config, grants
from keeper.models import ModelSetting
from rooms.models import Room

pytestmark = pytest.mark.django_db

TOKEN = "at-never-shown-0123456789abcdef"


def _save(admin_client, **fields):
    page = reverse("admin:keeper_modelsetting_change", args=[ModelSetting.current().pk])
    form = {"provider": "", "chat_model": "", "base_url": "", "api_key": "", "imagegen_provider": ""}
    return admin_client.post(page, {**form, **fields}, follow=True).content.decode()


def test_the_environment_and_the_console_decide(admin_client, settings):
    room = Room.objects.create(name="Harbour")
    keeper = Caller(room.pk, "m1", "Kay", True, "en")
    grants.store(room.pk, "supergrok", grants.Grant(TOKEN, "rt-never-shown", time.time() + 3600))
    config.select(room.pk, "supergrok")
    assert config.resolve(room.pk).usable

    settings.TRPG_LLM_SUBSCRIPTIONS = False
    assert not config.resolve(room.pk).usable, "the grant is kept but not used"
    assert "does not let rooms use their own subscriptions" in model("login chatgpt", keeper).text

    _save(admin_client, subscriptions="true")
    assert config.resolve(room.pk).usable, "the console's word over the environment's"
    _save(admin_client, subscriptions="false")
    settings.TRPG_LLM_SUBSCRIPTIONS = True
    assert not config.resolve(room.pk).usable
    page = _save(admin_client, subscriptions="unknown")
    assert config.resolve(room.pk).usable and "Rooms may use their keepers" in page

    listed = admin_client.get(reverse("admin:keeper_providercredential_changelist")).content.decode()
    assert "a subscription sign-in, sealed" in listed
    for credential_page in (listed, page):
        assert TOKEN not in credential_page and "rt-never-shown" not in credential_page
