"""Model configuration: which provider is in force, and keys bound to their endpoint,
in the database and the operator console."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.urls import reverse

from keeper.llm import config
from keeper.models import ProviderCredential

pytestmark = pytest.mark.django_db

KEY = "sk-live-0123456789abcdef"


def test_without_a_provider_the_offline_keeper_plays():
    assert not config.resolve().usable


@override_settings(TRPG_LLM_PROVIDER="deepseek", TRPG_LLM_API_KEY=KEY)
def test_the_environment_key_goes_only_to_its_own_provider_and_endpoint():
    current = config.resolve()
    assert current.usable and current.base_url == "https://api.deepseek.com/v1" and current.api_key == KEY
    assert config.select("openai").api_key == "", "another provider never gets the key"
    assert config.select("deepseek", base_url="http://127.0.0.1:9/v1").api_key == "", "nor another endpoint"
    assert config.reset().api_key == KEY


def test_a_saved_key_is_bound_to_the_endpoint_it_was_saved_with():
    config.select("openai", "gpt-test", "http://127.0.0.1:7001/v1")
    assert config.save_key(KEY).usable
    assert not config.select("openai", "gpt-test", "http://127.0.0.1:7002/v1").usable
    assert config.select("openai", "gpt-test", "http://127.0.0.1:7001/v1/").api_key == KEY
    assert config.select("ollama").usable, "local providers need no key"


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
