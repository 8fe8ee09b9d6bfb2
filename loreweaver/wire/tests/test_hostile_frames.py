"""More than a thousand malformed or hostile frames: each gets its error, the connection
stays open, and the server keeps serving (docs/decisions.md, "Errors")."""

from __future__ import annotations

import asyncio
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from loreweaver.testing.clients import WsClient, connect
from loreweaver.wire.protocol import inbound
from loreweaver.wire.tests.hostile_frames import corpus

WINDOW = 200


async def test_a_joined_connection_survives_the_hostile_corpus(server, room, carrier):
    key = server.env.mint(room, "Mallory")
    cases = corpus()
    if carrier == "iroh":
        # A blank line is no frame at all in newline-delimited JSON.
        cases = [(text, code) for text, code in cases if text.strip()]
    assert len(cases) >= 1000
    async with await connect(carrier, server) as client:
        await client.join(key)
        replies: list[dict] = []
        answered = asyncio.Event()

        async def read_replies():
            while len(replies) < len(cases):
                frame = await client.recv(timeout=30)
                if frame["type"] not in ("state", "presence"):
                    replies.append(frame)
                    answered.set()

        reader = asyncio.create_task(read_replies())
        for sent, (text, _code) in enumerate(cases):
            # A client that sends a thousand frames without reading the answers is dropped
            # as stalled (docs/operations.md): keep at most WINDOW answers outstanding.
            while sent - len(replies) >= WINDOW and not reader.done():
                answered.clear()
                await asyncio.wait_for(answered.wait(), 30)
            await client.send(text)
        await asyncio.wait_for(reader, 120)
        got = [reply.get("code", reply["type"]) for reply in replies]
        assert got == [code for _text, code in cases]
        assert all(r["message"] for r in replies if r["type"] == "error")

        await client.say("still here")
        assert (await client.expect("narrative"))["text"] == "still here"


async def test_binary_junk_after_join_gets_errors_not_a_close(server, room):
    key = server.env.mint(room, "Bytes")
    rng = random.Random(3)
    async with await WsClient.connect(server.ws_url) as client:
        await client.join(key)
        for _ in range(200):
            await client.send(bytes(rng.randrange(256) for _ in range(rng.randint(0, 300))))
        codes = [(await client.expect("error"))["code"] for _ in range(200)]
        assert set(codes) <= {"bad_frame", "media_not_found", "media_bad_upload"}
        await client.send({"type": "ping", "t": 9})
        assert (await client.expect("pong"))["t"] == 9


async def test_the_server_still_welcomes_others_after_the_corpus(server, room, carrier):
    key = server.env.mint(room, "After")
    async with await connect(carrier, server) as client:
        assert (await client.join(key))[0]["type"] == "welcome"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(
    frame_type=st.sampled_from(sorted(inbound.KNOWN_TYPES)) | st.text(max_size=12),
    fields=st.dictionaries(
        st.sampled_from(["key", "text", "t", "name", "id", "room", "role", "x"]), json_values
    ),
)
def test_any_json_object_is_either_a_valid_frame_or_a_bad_frame(frame_type, fields):
    import json

    try:
        frame = inbound.parse_frame(json.dumps({**fields, "type": frame_type}))
    except inbound.FrameError as exc:
        # A malformed upload offer is media_bad_offer once it is JSON (docs/decisions.md, "Errors").
        assert exc.code in (
            {"bad_frame", "media_bad_offer"} if frame_type == "media_offer" else {"bad_frame"}
        )
    else:
        assert frame.type == frame_type


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=200) | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_any_text_parses_or_fails_as_bad_frame(text):
    try:
        inbound.parse_frame(text)
    except inbound.FrameError as exc:
        assert exc.code == "bad_frame"
