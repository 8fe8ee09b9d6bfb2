"""`.model set <provider> [model] [url]` over a real socket (README, "Playing"): a word
with a URL scheme is an address whatever the scheme's case (`HTTP://` is http), never
the model's name; an address of another scheme (`ftp://`) is refused in the keeper's
language, naming it, and nothing changes (docs/operations.md, "Tenancy")."""

from __future__ import annotations

from loreweaver.testing.clients import WsClient, system_answer
from loreweaver.testing.servers import dedicated_server

# A loopback endpoint the operator allows rooms to use (on the hosted profile too); the
# server never connects to it here.
ENDPOINT = "http://127.0.0.1:9/v1"

model_server = dedicated_server(TRPG_LLM__ALLOWED_ENDPOINTS="127.0.0.1:9")


async def test_an_address_in_capitals_is_the_endpoint_and_not_the_models_name(model_server, room):
    async with await WsClient.connect(model_server.ws_url) as kay:
        await kay.join(model_server.env.mint(room, "Kay", "keeper"))
        assert "Switched" in await system_answer(kay, ".model set openai lw-model HTTP://127.0.0.1:9/v1")
        saved = await system_answer(kay, ".model key sk-test-model-set-0000")
    assert f"openai / lw-model at {ENDPOINT} " in saved, saved


async def test_another_scheme_is_refused_in_the_keepers_language_and_nothing_changes(model_server, room):
    async with (
        await WsClient.connect(model_server.ws_url) as kay,
        await WsClient.connect(model_server.ws_url) as lin,
    ):
        await kay.join(model_server.env.mint(room, "Kay", "keeper"))
        await lin.join(model_server.env.mint(room, "Lin", "keeper"), locale="zh")
        await system_answer(kay, f".model set openai lw-model {ENDPOINT}")
        before = await system_answer(kay, ".model key sk-test-model-set-0000")

        refused = await system_answer(kay, ".model set openai other-model ftp://127.0.0.1:9/v1")
        assert refused == (
            "This server does not connect to ftp://127.0.0.1:9/v1 "
            "(only http:// and https:// endpoints are accepted)."
        )
        refused = await system_answer(lin, ".model set openai other-model FTP://127.0.0.1:9/v1")
        assert refused == "本服务器不会连接 FTP://127.0.0.1:9/v1（只接受 http:// 和 https:// 地址）。"

        now = (await system_answer(kay, ".model")).splitlines()[0]
    assert now == f"Model: openai / lw-model at {ENDPOINT} (key sk-…0000)" and before.endswith(now)
