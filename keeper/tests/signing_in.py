"""What the subscription sign-in tests share: a server whose ChatGPT and xAI sign-in
and API addresses point at real local servers (docs/operations.md, "Signing in with
a subscription"), and a client that keeps every frame it was sent."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from loreweaver.testing.clients import DEFAULT_TIMEOUT, WsClient, settle
from loreweaver.testing.fake_auth import FakeAuth
from loreweaver.testing.fake_llm import FakeLlm
from loreweaver.testing.fake_responses import FakeResponses
from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve
from loreweaver.wire.protocol.messages import notice


def subscription_env(auth: FakeAuth, xai: FakeLlm, chatgpt_api: str = "", **overrides: str) -> dict[str, str]:
    """The environment that sends every subscription address to the local servers."""
    return {
        "TRPG_LLM__CHATGPT_AUTH_URL": auth.url,
        "TRPG_LLM__XAI_AUTH_URL": auth.url,
        "TRPG_LLM__XAI_API_URL": xai.url,
        "TRPG_LLM__CHATGPT_API_URL": chatgpt_api or xai.url.rsplit("/", 1)[0] + "/codex",
        "TRPG_LLM__RETRIES": "0",
        **overrides,
    }


def signing_table(*, chatgpt: bool = False, **overrides: str):
    """A module fixture: (server, auth, model API) with the subscription addresses
    local; the model API is xAI's chat API, or with `chatgpt` ChatGPT's Responses API
    (then xAI's still answers, unused)."""

    @pytest.fixture(scope="module")
    def fixture(tmp_path_factory: pytest.TempPathFactory):
        auth, xai = FakeAuth().start(), FakeLlm().start()
        responses = FakeResponses().start() if chatgpt else None
        env = create_env(tmp_path_factory.mktemp("signing"), hosted=hosted_profile())
        process = start_serve(
            env, **subscription_env(auth, xai, responses.url if responses else "", **overrides)
        )
        yield process, auth, responses or xai
        process.stop()
        destroy_env(env)
        for fake in (auth, xai, responses):
            if fake is not None:
                fake.stop()

    return fixture


@asynccontextmanager
async def signed_in_room(
    server, room: int, auth: FakeAuth, model_line: str
) -> AsyncIterator[tuple[WsClient, WsClient]]:
    """A keeper and a player in `room`, the room signed in to the provider that
    `model_line` (`<provider> [model]`) names and switched to it: (keeper, player)."""
    env = server.env
    async with (
        await WsClient.connect(server.ws_url) as keeper,
        await WsClient.connect(server.ws_url) as player,
    ):
        await keeper.join(env.mint(room, "Kay", "keeper"))
        await player.join(env.mint(room, "Pat"))
        await sign_in(keeper, auth, model_line.split()[0])
        await keeper.say(f".model set {model_line}")
        await private_line(keeper, "Switched")
        await settle(player)
        yield keeper, player


class Recording(WsClient):
    """A client that keeps every frame it received (to look for a token in)."""

    seen: list

    async def recv(self, timeout: float = DEFAULT_TIMEOUT) -> dict:
        frame = await super().recv(timeout)
        self.__dict__.setdefault("seen", []).append(frame)
        return frame


def told(frames: list[dict]) -> list[str]:
    """The system lines among `frames`, but for a queued input's notice: the turn before
    (the keeper's `.model set`, the player's last line) may still be ending, after its
    last frame, when the next line arrives, and then the server says so first."""
    queued = notice("queued", "en")
    return [f["text"] for f in frames if f["type"] == "system" and f["text"] != queued]


async def private_line(client: WsClient, contains: str, timeout: float = DEFAULT_TIMEOUT) -> str:
    """The next system line that says `contains` (others are skipped)."""
    while True:
        frame = await client.expect("narrative", timeout=timeout, speaker="system")
        if contains in frame["text"]:
            return frame["text"]


async def sign_in(keeper: WsClient, auth: FakeAuth, provider: str) -> None:
    """Sign the keeper's room in to `provider`, approved at the first poll."""
    auth.script("approve")
    await keeper.say(f".model login {provider}")
    await private_line(keeper, f"Signed in to {grants_name(provider)}", timeout=20)


def grants_name(provider: str) -> str:
    return "chatgpt" if provider == "gpt-subscription" else provider
