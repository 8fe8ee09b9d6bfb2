"""The endpoint policy (docs/operations.md, "Tenancy: what a room keeper can and cannot
change"): a room's keeper may point the room's Keeper only at endpoints the operator
allows. Link-local addresses (cloud metadata) are refused in every spelling, on both
profiles; loopback is the operator's on the hosted profile unless
`TRPG_LLM__ALLOWED_ENDPOINTS` names it; `admin_list_models` follows the same rule
without sending anything; and a saved endpoint is checked again at every connection, so
a turn that reaches a refused one tells the table why."""

from __future__ import annotations

import datetime

import pytest

from loreweaver.testing.clients import WsClient, ask, settle, system_answer, until_idle
from loreweaver.testing.fake_llm import FakeLlm, Text
from loreweaver.testing.servers import (
    _database,
    create_env,
    dedicated_server,
    destroy_env,
    hosted_profile,
    room_id_of,
    start_serve,
)

METADATA = [
    "http://169.254.169.254/latest",
    "http://2852039166/v1",
    "http://[::ffff:169.254.169.254]/v1",
    "http://0xa9fea9fe/v1",
    "http://[fe80::1]:8080/v1",
]


@pytest.fixture
def listener():
    fake = FakeLlm(models=["local-model"]).start()
    yield fake
    fake.stop()


# A server with the default policy (no TRPG_LLM__ALLOWED_ENDPOINTS); each test plays in
# rooms of its own, and a room's model is the room's.
policy_server = dedicated_server()


async def _answer(client: WsClient, frame: dict) -> dict:
    """The admin reply to `frame`, whichever it is (`admin_models` or `admin_error`)."""
    await client.send(frame)
    while True:
        reply = await client.recv(20)
        if reply["type"] in ("admin_models", "admin_error"):
            return reply


async def test_the_metadata_address_is_refused_in_every_spelling(policy_server, room):
    async with await WsClient.connect(policy_server.ws_url) as keeper:
        await keeper.join(policy_server.env.mint(room, "Kay", "keeper"))
        for url in METADATA:
            refused = await system_answer(keeper, f".model set openai x {url}")
            assert "does not connect to" in refused and "link-local" in refused, (url, refused)
            error = await ask(
                keeper, {"type": "admin_set_model", "provider": "openai", "base_url": url}, "admin_error"
            )
            assert error["code"] == "endpoint_refused" and "link-local" in error["message"], url
            error = await ask(
                keeper, {"type": "admin_list_models", "provider": "ollama", "base_url": url}, "admin_error"
            )
            assert error["code"] == "endpoint_refused", url
            error = await ask(
                keeper,
                {"type": "admin_set_imagegen", "provider": "openai", "model": "paint", "base_url": url},
                "admin_error",
            )
            assert error["code"] == "endpoint_refused", url
        refused = await system_answer(keeper, ".model set openai x http://user:secret@api.openai.com/v1")
        assert "user name or password" in refused and "secret" not in refused
        config = await ask(keeper, {"type": "admin_get_config"}, "admin_config")
    assert config["override_active"] is False and config["provider"] == "offline", "nothing was saved"


async def test_a_refusal_is_said_in_the_keepers_language(policy_server, room):
    async with await WsClient.connect(policy_server.ws_url) as keeper:
        await keeper.join(policy_server.env.mint(room, "Kay", "keeper"), locale="zh")
        refused = await system_answer(keeper, ".model set openai x http://169.254.169.254/v1")
    assert "169.254.169.254:80" in refused and "链路本地" in refused


async def test_loopback_is_the_operators_on_the_hosted_profile(policy_server, listener, room):
    port = listener.url.split("//", 1)[1].split("/", 1)[0].split(":")[1]
    async with await WsClient.connect(policy_server.ws_url) as keeper:
        await keeper.join(policy_server.env.mint(room, "Kay", "keeper"))
        for url in (listener.url, f"http://localhost:{port}/v1"):
            said = await system_answer(keeper, f".model set vllm local-model {url}")
            listed = await _answer(keeper, {"type": "admin_list_models", "provider": "vllm", "base_url": url})
            if hosted_profile():
                assert "loopback addresses are for the operator only" in said, said
                assert "TRPG_LLM__ALLOWED_ENDPOINTS" in said
                assert listed["type"] == "admin_error" and listed["code"] == "endpoint_refused"
                assert "loopback" in listed["message"]
            else:  # a model on the same laptop is what the embedded profile is for
                assert "Switched" in said, said
                assert listed["type"] == "admin_models" and listed["models"] == ["local-model"]
    if hosted_profile():
        assert listener.requests == [], "a refused endpoint is never asked"


async def test_the_operator_can_let_rooms_use_a_loopback_endpoint(tmp_path, listener, room):
    env = create_env(tmp_path / "table", hosted=hosted_profile())
    port = listener.url.split("//", 1)[1].split("/", 1)[0]
    server = start_serve(env, TRPG_LLM__ALLOWED_ENDPOINTS=f"{port},https://llm.example.com/v1")
    try:
        async with await WsClient.connect(server.ws_url) as keeper:
            await keeper.join(env.mint(room, "Kay", "keeper"))
            assert "Switched" in await system_answer(keeper, f".model set vllm local-model {listener.url}")
            listed = await ask(keeper, {"type": "admin_list_models"}, "admin_models")
            assert listed["models"] == ["local-model"]
            await settle(keeper)
            listener.script(Text("The local model answers."))
            await keeper.say("Hello, local model.")
            assert "The local model answers." in str(await until_idle(keeper))
            refused = await system_answer(keeper, ".model set openai x http://169.254.169.254/v1")
            assert "link-local" in refused, "never allowed, whatever the list says"
    finally:
        server.stop()
        destroy_env(env)


def _choose_for_the_room(env, room: str, base_url: str) -> None:
    """A room's choice as the database holds it (saved before the policy refused it),
    written outside the server: the check at connection time is what stands."""
    room_id = room_id_of(env, room)
    moment = datetime.datetime.now(datetime.UTC)
    stamp = moment if env.hosted else moment.strftime("%Y-%m-%d %H:%M:%S.%f")
    with _database(env) as (connection, mark):
        connection.execute(
            "INSERT INTO keeper_modelsetting (room_id, provider, chat_model, base_url, imagegen_provider, "
            "imagegen_base_url, imagegen_model, imagegen_size, updated_at) "
            f"VALUES ({mark}, 'vllm', 'local-model', {mark}, '', '', '', '', {mark})",
            (room_id, base_url, stamp),
        )


async def test_a_turn_whose_endpoint_is_refused_as_it_connects_tells_the_table(policy_server, listener, room):
    port = listener.url.split("//", 1)[1].split("/", 1)[0].split(":")[1]
    refused_urls = ["http://169.254.169.254/v1"]
    if hosted_profile():  # a name that resolves to loopback, checked when connecting
        refused_urls.append(f"http://localhost:{port}/v1")
    for index, url in enumerate(refused_urls):
        here = f"{room}-{index}"
        async with await WsClient.connect(policy_server.ws_url) as player:
            await player.join(policy_server.env.mint(here, "Pat"))
            _choose_for_the_room(policy_server.env, here, url)
            await player.say("I knock on the door.")
            frames = await until_idle(player, timeout=30)
            warnings = [f for f in frames if f["type"] == "system" and f.get("level") == "warn"]
            assert warnings, frames
            assert "This server" in warnings[-1]["text"], warnings
            rule = "link-local" if "169.254" in url else "loopback"
            assert rule in warnings[-1]["text"], warnings
            await player.send({"type": "ping", "t": 5})
            assert (await player.expect("pong"))["t"] == 5, "the table goes on"
    assert listener.requests == [], "nothing reached the refused endpoint"
