"""`chatgpt` / `gpt-subscription` are dual-mode: without an endpoint they are the
room's ChatGPT sign-in (`subscription_status` logged_in / logged_out), with one of
their own they are an OpenAI-compatible provider with a key (status empty), and a
key saved there never touches the sign-in; `supergrok` always signs in
(docs/operations.md, "Signing in with a subscription")."""

from __future__ import annotations

import time

import pytest

from keeper.llm import config, grants
from loreweaver.wire.admin_frames import _subscription_status
from rooms.models import Room

pytestmark = pytest.mark.django_db


def test_an_endpoint_of_its_own_makes_chatgpt_a_plain_provider(settings):
    settings.TRPG_LLM_ALLOWED_ENDPOINTS = ["127.0.0.1"]
    room = Room.objects.create(name="Harbour").pk
    assert _subscription_status(config.select(room, "chatgpt")) == "logged_out"
    assert _subscription_status(config.select(room, "gpt-subscription")) == "logged_out"
    grants.store(room, "chatgpt", grants.Grant("at-x", "rt-x", time.time() + 3600, "acct"))
    on_grant = config.select(room, "gpt-subscription", "gpt-test")
    assert on_grant.usable and on_grant.subscription == "chatgpt" and on_grant.api_key == ""
    assert _subscription_status(on_grant) == "logged_in"
    assert "chatgpt" in config.saved_providers(room), "the sign-in is in the credential book"
    assert "chatgpt" not in config.saved_providers(Room.objects.create(name="Other").pk)
    with pytest.raises(grants.SignedOut):
        config.save_key(room, "sk-would-replace-the-sign-in")  # `.model key`: it signs in instead

    proxy = config.configure(room, "chatgpt", "gpt-test", "sk-proxy-key-12345678", "http://127.0.0.1:7010/v1")
    assert proxy.subscription == "" and proxy.api_key == "sk-proxy-key-12345678"
    assert _subscription_status(proxy) == "", "the API-key path"
    assert grants.signed_in(room, "chatgpt"), "the key did not replace the sign-in"

    assert _subscription_status(config.select(room, "supergrok")) == "logged_out"
    assert _subscription_status(config.select(room, "openai")) == ""
