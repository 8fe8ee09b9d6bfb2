"""Model configuration: which provider is in force, server-wide (None) and for a room,
and keys bound to their endpoint and their room, in the database and the operator
console."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.urls import reverse

from keeper.llm import config
from keeper.models import ProviderCredential
from rooms.models import Room

pytestmark = pytest.mark.django_db

KEY = "sk-live-0123456789abcdef"


def test_without_a_provider_the_offline_keeper_plays():
    assert not config.resolve(None).usable


@override_settings(TRPG_LLM_PROVIDER="deepseek", TRPG_LLM_API_KEY=KEY)
def test_the_environment_key_goes_only_to_its_own_provider_and_endpoint():
    current = config.resolve(None)
    assert current.usable and current.base_url == "https://api.deepseek.com/v1" and current.api_key == KEY
    assert config.select(None, "openai").api_key == "", "another provider never gets the key"
    assert config.select(None, "deepseek", base_url="http://127.0.0.1:9/v1").api_key == "", (
        "nor another endpoint"
    )
    assert config.reset(None).api_key == KEY


@pytest.mark.parametrize("scope", ["server", "room"])
def test_a_saved_key_is_bound_to_the_endpoint_it_was_saved_with(scope, settings):
    settings.TRPG_LLM_ALLOWED_ENDPOINTS = ["127.0.0.1"]
    chosen = None if scope == "server" else Room.objects.create(name="Harbour").pk
    config.select(chosen, "openai", "gpt-test", "http://127.0.0.1:7001/v1")
    assert config.save_key(chosen, KEY).usable
    assert not config.select(chosen, "openai", "gpt-test", "http://127.0.0.1:7002/v1").usable
    assert config.select(chosen, "openai", "gpt-test", "http://127.0.0.1:7001/v1/").api_key == KEY
    assert config.select(chosen, "ollama").usable, "local providers need no key"


def test_a_rooms_key_and_model_are_that_rooms_and_the_operators_serve_every_room(settings):
    settings.TRPG_LLM_ALLOWED_ENDPOINTS = ["127.0.0.1"]
    a, b = Room.objects.create(name="A").pk, Room.objects.create(name="B").pk
    config.configure(None, "openai", "operator-model", "sk-operator-key-0000", "http://127.0.0.1:7001/v1")
    config.configure(b, "openai", "b-model", "sk-room-b-key-00000", "http://127.0.0.1:7002/v1")
    assert (config.resolve(a).base_url, config.resolve(a).api_key) == (
        "http://127.0.0.1:7001/v1",
        "sk-operator-key-0000",
    )
    assert (config.resolve(b).chat_model, config.resolve(b).api_key) == ("b-model", "sk-room-b-key-00000")
    # A asks for B's endpoint: B's key is B's alone.
    assert config.select(a, "openai", "x", "http://127.0.0.1:7002/v1").api_key == ""
    # B asks for the operator's endpoint: the operator's key serves every room.
    assert config.select(b, "openai", "", "http://127.0.0.1:7001/v1").api_key == "sk-operator-key-0000"
    assert config.resolve(b).chat_model == "operator-model", "what B leaves empty is the server's"
    assert config.resolve(None).chat_model == "operator-model" and config.override_active(a)
    assert config.reset(a).chat_model == "operator-model" and not config.override_active(a)


def test_the_console_never_shows_a_saved_key(admin_client):
    credential = ProviderCredential.objects.create(
        provider="openai", base_url="https://api.openai.com/v1", api_key=KEY
    )
    listing = admin_client.get(reverse("admin:keeper_providercredential_changelist")).content.decode()
    assert KEY not in listing and config.mask(KEY) in listing
    page = admin_client.get(
        reverse("admin:keeper_providercredential_change", args=[credential.pk])
    ).content.decode()
    assert KEY not in page
