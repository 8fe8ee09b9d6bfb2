"""A SideQuest client's picture links (the contract's `IMAGE`) point where players reach
the table (docs/operations.md, "Behind a reverse proxy"): at `TRPG_PUBLIC_URL` when the
operator set it; else https when the TLS proxy the operator declared
(`TRPG_BEHIND_TLS_PROXY`) says `X-Forwarded-Proto: https`; a header from a proxy nobody
declared is ignored. Real sockets: a loreweaver keeper uploads, a SideQuest client on
`/ws` is told."""

from __future__ import annotations

import secrets

import websockets

from loreweaver.testing.clients import WsClient
from loreweaver.testing.fake_llm import png
from loreweaver.testing.media_clients import upload
from loreweaver.testing.servers import dedicated_server
from loreweaver.wire.tests.sidequest_client import TIMEOUT, SideQuestClient, ws_url

public_server = dedicated_server(TRPG_PUBLIC_URL="https://table.example/")
proxied_server = dedicated_server(TRPG_BEHIND_TLS_PROXY="1")
plain_server = dedicated_server()

FROM_PROXY = {"X-Forwarded-Proto": "https"}


def _host(server) -> str:
    """The host and port the test's sockets name in `Host`."""
    return server.ws_url.removeprefix("ws://").rstrip("/")


async def _picture_link(server, room: str, headers: dict[str, str] | None = None) -> str:
    """The `IMAGE` URL a SideQuest player (its socket opened with `headers`) is given for
    a picture the keeper shares."""
    env = server.env
    socket = await websockets.connect(
        ws_url(server, env.mint(room, "Sam")), open_timeout=TIMEOUT, additional_headers=headers or {}
    )
    async with await WsClient.connect(server.ws_url) as keeper, SideQuestClient(socket) as sam:
        await keeper.join(env.mint(room, "Kay", "keeper"))
        await sam.joined("Sam")
        await sam.make_character("Sam Reyes")
        # A picture of its own each time: the room keeps one copy of the same bytes.
        await upload(keeper, png(4, 4, tuple(secrets.token_bytes(3))), "image/png", "map.png")
        return (await sam.expect("IMAGE"))["url"]


async def test_with_a_public_address_the_link_starts_with_it(public_server, room):
    link = await _picture_link(public_server, room, {"X-Forwarded-Proto": "http"})
    assert link.startswith("https://table.example/api/media/"), link


async def test_behind_a_declared_tls_proxy_the_forwarded_https_is_kept(proxied_server, room):
    link = await _picture_link(proxied_server, room, FROM_PROXY)
    assert link.startswith(f"https://{_host(proxied_server)}/api/media/"), link


async def test_a_forwarded_scheme_from_an_undeclared_proxy_is_ignored(plain_server, room):
    link = await _picture_link(plain_server, room, FROM_PROXY)
    assert link.startswith(f"http://{_host(plain_server)}/api/media/"), link
