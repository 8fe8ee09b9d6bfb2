"""The console's model page (docs/operations.md, "The operator console"): one page
says which model is in force server-wide and where that comes from, which rooms chose
their own, the provider is chosen from the catalog, endpoints must be http(s) URLs the
server may reach, a key left blank keeps the saved one, and "Test the connection" asks
the endpoint in force for its models."""

from __future__ import annotations

import pytest
from django.urls import reverse

from keeper.llm import config
from keeper.models import ModelSetting, ProviderCredential
from loreweaver.testing.fake_llm import FakeLlm
from rooms.models import Room

pytestmark = pytest.mark.django_db


@pytest.fixture
def page_url():
    return reverse("admin:keeper_modelsetting_change", args=[ModelSetting.current().pk])


def _save(admin_client, page_url, **fields):
    form = {"provider": "", "chat_model": "", "base_url": "", "api_key": "", "imagegen_provider": ""}
    return admin_client.post(page_url, {**form, **fields}, follow=True).content.decode()


def test_the_list_is_the_one_page_and_it_says_what_is_in_force(admin_client, settings, page_url):
    settings.TRPG_LLM_PROVIDER, settings.TRPG_LLM_API_KEY = "deepseek", "sk-environment-key-0000"
    page = admin_client.get(reverse("admin:keeper_modelsetting_changelist"), follow=True).content.decode()
    assert "<b>deepseek</b> · model <b>deepseek-chat</b>" in page and "https://api.deepseek.com/v1" in page
    assert "From: the environment (TRPG_LLM__*)" in page and "server-wide" in page
    assert 'autocomplete="new-password"' in page and "sk-environment-key-0000" not in page
    assert ModelSetting.objects.count() == 1 and reverse("admin:keeper_modelsetting_add") not in page
    assert "None: every room uses the server-wide model." in page


def test_the_page_lists_the_rooms_that_chose_their_own_model(admin_client, settings, page_url):
    settings.TRPG_LLM_ALLOWED_ENDPOINTS = ["127.0.0.1"]
    harbour = Room.objects.create(name="Harbour")
    Room.objects.create(name="Lighthouse")
    config.select(harbour.pk, "openai", "room-model", "http://127.0.0.1:7009/v1")
    page = admin_client.get(page_url).content.decode()
    assert "<b>Harbour</b>: openai / room-model at http://127.0.0.1:7009/v1" in page
    assert "Lighthouse" not in page, "a room without a choice of its own uses the server's"
    assert not config.override_active(None), "a room's choice is not the server's"


def test_an_unknown_provider_and_a_bad_endpoint_are_refused(admin_client, page_url):
    refused = _save(admin_client, page_url, provider="openal", chat_model="x")
    assert "Select a valid choice" in refused
    refused = _save(admin_client, page_url, provider="openai", base_url="ftp://models.example")
    assert "Enter an http:// or https:// address." in refused
    refused = _save(admin_client, page_url, provider="openai", base_url="http://169.254.169.254/v1")
    assert "does not connect to 169.254.169.254:80 (link-local addresses" in refused
    assert not config.override_active(None)


def test_a_blank_key_keeps_the_saved_one_and_test_connection_asks_the_endpoint(admin_client, page_url):
    fake = FakeLlm().start()
    fake.models = ["scripted-keeper", "another"]
    try:
        _save(
            admin_client,
            page_url,
            provider="openai",
            chat_model="scripted-keeper",
            base_url=fake.url,
            api_key="sk-first-key-12345",
        )
        saved = _save(
            admin_client, page_url, provider="openai", chat_model="scripted-keeper", base_url=fake.url
        )
        assert ProviderCredential.objects.get(provider="openai").api_key == "sk-first-key-12345"
        assert "From: chosen here" in saved and fake.url in saved
        told = admin_client.post(reverse("admin:keeper_modelsetting_test"), follow=True).content.decode()
        # The message starts with a word: the console capitalises a message's first letter.
        assert f"The endpoint {fake.url} answered with 2 models: another, scripted-keeper" in told
        assert fake.requests[-1]["authorization"] == "Bearer sk-first-key-12345"
    finally:
        fake.stop()
    told = admin_client.post(reverse("admin:keeper_modelsetting_test"), follow=True).content.decode()
    assert f"The endpoint {fake.url} did not answer with its models" in told
