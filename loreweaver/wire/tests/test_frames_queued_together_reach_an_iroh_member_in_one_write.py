"""A carrier that can write several frames at once (Iroh's, where each write is a call
into its Rust stream) is handed the frames queued together, a turn's line and its
`state`, as one write, in order; a frame of another kind keeps its place between them
(docs/performance.md, "The mixed room").

In process: the session (`SessionCore`) with a carrier that records each write; then
the real Iroh carrier, whose member reads every frame whole and in order."""

from __future__ import annotations

import asyncio
import contextlib
import json

from base import frames
from loreweaver.testing.clients import connect
from loreweaver.wire.coordination import Member
from loreweaver.wire.seats import Seat
from loreweaver.wire.session import WRITE_TOGETHER, SessionCore


class _IrohLikeCarrier:
    """A carrier that takes several frames in one write, recording each write."""

    label = "iroh"
    peer = "endpoint-id"

    def __init__(self) -> None:
        self.writes: list[list[str]] = []

    async def send_text(self, text: str) -> None:
        self.writes.append([text])

    async def send_texts(self, texts: list[str]) -> None:
        self.writes.append(list(texts))

    async def input_done(self, number: int | None) -> None:
        self.writes.append([f"done {number}"])

    async def close(self) -> None:
        pass


@contextlib.asynccontextmanager
async def writing():
    carrier = _IrohLikeCarrier()
    session = SessionCore(carrier)
    session.seat = Seat(1, "the-lighthouse", Member("m-pat", "Pat", "player"), 1)
    writer = asyncio.create_task(session._write_loop())
    yield session, carrier
    writer.cancel()
    await asyncio.gather(writer, return_exceptions=True)


async def _until(condition, timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():  # noqa: ASYNC110 (what is awaited is the loop's next turn)
            await asyncio.sleep(0)


def _texts(write: list[str]) -> list[str]:
    return [json.loads(text)["text"] if text.startswith("{") else text for text in write]


async def test_a_turns_frames_queued_together_are_one_write_in_order():
    async with writing() as (session, carrier):
        for text in ("the line", "its answer", "the state after it"):
            session.send(frames.system(text))
        await _until(lambda: carrier.writes)
        written = [_texts(write) for write in carrier.writes]
        assert written == [["the line", "its answer", "the state after it"]]


async def test_the_end_of_an_input_keeps_its_place_between_frames():
    async with writing() as (session, carrier):
        session.send(frames.system("the answer"))
        session.input_done(7)
        session.send(frames.system("the next turn's line"))
        await _until(lambda: len(carrier.writes) == 3)
        assert [_texts(write) for write in carrier.writes] == [
            ["the answer"],
            ["done 7"],
            ["the next turn's line"],
        ]


async def test_a_long_replay_is_written_in_pieces():
    async with writing() as (session, carrier):
        count = WRITE_TOGETHER * 2 + 1
        for n in range(count):
            session._enqueue(json.dumps({"type": "system", "text": f"line {n}"}), live=False)
        await _until(lambda: sum(len(write) for write in carrier.writes) == count)
        assert [len(write) for write in carrier.writes] == [WRITE_TOGETHER, WRITE_TOGETHER, 1]
        written = [text for write in carrier.writes for text in _texts(write)]
        assert written == [f"line {n}" for n in range(count)]
        assert session._burst_queued == 0


async def test_an_iroh_member_reads_a_turns_frames_whole_and_in_order(server):
    key = server.env.mint("iroh-one-write", "Ash")
    client = await connect("iroh", server, first={"type": "join", "key": key})
    try:
        await client.expect("ui_manifest")
        for _ in range(5):
            await client.say(".r 1d6")
            turn = [frame["type"] for frame in await client.collect_until("state")]
            assert turn[-3:] == ["dice", "narrative", "state"], turn
    finally:
        await client.close()
