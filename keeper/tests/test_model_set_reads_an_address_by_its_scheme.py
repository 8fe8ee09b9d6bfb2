"""`.model set <provider> [model] [url]` (README, "Playing"): a word with a URL scheme is
an address whatever the scheme's case (`HTTP://` is http), never the model's name; an
address of another scheme (`ftp://`) is refused in the keeper's language, naming it,
and nothing changes (docs/operations.md, "Tenancy").

The lines are answered in-process by the game's dispatcher, as the wire's input handler
has them answered: each reply's text is the keeper's system line."""

from __future__ import annotations

import pytest

from keeper.commands import Caller, dispatch
from rooms.services import room_get_or_create

# A loopback endpoint the operator allows rooms to use (on the hosted profile too); the
# server never connects to it here.
ENDPOINT = "http://127.0.0.1:9/v1"


@pytest.fixture
def room_id(db, settings, room) -> int:
    settings.TRPG_LLM_ALLOWED_ENDPOINTS = ["127.0.0.1:9"]
    return room_get_or_create(name=room).pk


def _keeper(room_id: int, name: str, locale: str = "en") -> Caller:
    return Caller(room_id, f"tui:{name.lower():0<8}", name, True, locale)


def _answer(line: str, caller: Caller) -> str:
    reply = dispatch(line, caller)
    assert reply is not None and reply.follow_up is None, line
    return reply.text


def test_an_address_in_capitals_is_the_endpoint_and_not_the_models_name(room_id):
    kay = _keeper(room_id, "Kay")
    assert "Switched" in _answer(".model set openai lw-model HTTP://127.0.0.1:9/v1", kay)
    saved = _answer(".model key sk-test-model-set-0000", kay)
    assert f"openai / lw-model at {ENDPOINT} " in saved, saved


def test_another_scheme_is_refused_in_the_keepers_language_and_nothing_changes(room_id):
    kay, lin = _keeper(room_id, "Kay"), _keeper(room_id, "Lin", "zh")
    _answer(f".model set openai lw-model {ENDPOINT}", kay)
    before = _answer(".model key sk-test-model-set-0000", kay)

    refused = _answer(".model set openai other-model ftp://127.0.0.1:9/v1", kay)
    assert refused == (
        "This server does not connect to ftp://127.0.0.1:9/v1 "
        "(only http:// and https:// endpoints are accepted)."
    )
    refused = _answer(".model set openai other-model FTP://127.0.0.1:9/v1", lin)
    assert refused == "本服务器不会连接 FTP://127.0.0.1:9/v1（只接受 http:// 和 https:// 地址）。"

    now = _answer(".model", kay).splitlines()[0]
    assert now == f"Model: openai / lw-model at {ENDPOINT} (key sk-…0000)" and before.endswith(now)
