"""A pack download stops at `TRPG_PACKS__MAX_DOWNLOAD_BYTES`, whether the source says
its size or not; nothing is installed (docs/packs.md, "Installing")."""

from __future__ import annotations

import pytest
from django.conf import settings

from keeper import pack_sources
from loreweaver.testing.clients import WsClient, settle
from loreweaver.testing.servers import start_serve
from packs.manifest import PackError
from packs.tests.pack_source_server import pack_source


async def test_a_download_larger_than_the_cap_is_refused(fresh_env, room):
    with pack_source({"big.lwpack": b"\0" * 200_000}) as source:
        server = start_serve(
            fresh_env,
            "--no-iroh",
            TRPG_PACKS__ALLOWED_SOURCES=source.url,
            TRPG_PACKS__MAX_DOWNLOAD_BYTES="65536",
        )
        try:
            async with await WsClient.connect(server.ws_url) as kay:
                await kay.join(fresh_env.mint(room, "Kay", "keeper"))
                await settle(kay)
                await kay.say(f".pack install {source.url}/download/big.lwpack")
                await kay.expect("narrative", speaker="system")
                said = (await kay.expect("narrative", speaker="system", timeout=30))["text"]
                assert "is larger than 65536 bytes" in said, said
                await kay.say(".pack list")
                listed = (await kay.expect("narrative", speaker="system"))["text"]
                assert listed.splitlines()[1:] == ["  harbour-clues 1.0.0 · Harbour clues"]  # the bundled one
        finally:
            server.stop()


def test_a_body_without_a_size_is_cut_one_byte_past_the_cap(monkeypatch):
    """The same cap when no Content-Length is sent: the body is read no further."""
    with pack_source({"unsized.lwpack": b"\0" * 200_000}) as source:
        monkeypatch.setattr(settings, "TRPG_PACKS_ALLOWED_SOURCES", [source.url])
        with pytest.raises(PackError) as refused:
            pack_sources.download(f"{source.url}/download/unsized.lwpack", limit=4096)
        assert "larger than 4096 bytes" in refused.value.message("en")
