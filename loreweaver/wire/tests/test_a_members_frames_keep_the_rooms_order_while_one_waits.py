"""A member's frames keep the room's order when one of the room's messages is still
being handled for them (a refresh that waits for a read, say): a frame that could be
written at once waits behind it. With nothing waiting, a frame is written at once,
without the session's reader and writer (docs/performance.md, "Delivery at once").

In process: the session (`SessionCore`) with a carrier that records what it writes."""

from __future__ import annotations

import asyncio
import contextlib
import json
from types import SimpleNamespace

from base import frames
from loreweaver.wire.coordination import Member
from loreweaver.wire.seats import Seat
from loreweaver.wire.session import SessionCore
from rooms.choices import Audience


class _RecordingCarrier:
    """A WebSocket carrier as the session sees it, writing into a list."""

    label = "ws"
    peer = "127.0.0.1"

    def __init__(self) -> None:
        self.written: list[str] = []

    def write_now(self, text: str) -> bool:
        self.written.append(text)
        return True

    async def send_text(self, text: str) -> None:
        self.written.append(text)

    async def close(self) -> None:
        pass


def _line(text: str) -> dict:
    frame = frames.system(text)
    return {"type": "room.frame", "frame": frame, "audience": Audience.EVERYONE, "member_id": ""}


async def _until(condition, timeout: float = 5.0) -> None:
    # The session's tasks run on this loop: give them turns until `condition` holds.
    async with asyncio.timeout(timeout):
        while not condition():  # noqa: ASYNC110 (what is awaited is the loop's next turn)
            await asyncio.sleep(0)


@contextlib.asynccontextmanager
async def seated():
    """A joined member's session, reading its room and writing."""
    carrier = _RecordingCarrier()
    session = SessionCore(carrier)
    session.seat = Seat(1, "the-lighthouse", Member("m-pat", "Pat", "player"), 1)
    tasks = [asyncio.create_task(session._write_loop()), asyncio.create_task(session._read_inbox())]
    await _until(lambda: session._inbox_idle)
    yield session, carrier
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _texts(carrier: _RecordingCarrier) -> list[str]:
    return [json.loads(text)["text"] for text in carrier.written]


async def test_a_line_waits_behind_a_message_still_being_handled():
    async with seated() as (session, carrier):
        released = asyncio.Event()
        handle_as_the_room_does = session.on_room_message

        async def a_refresh_that_waits(message: dict) -> None:
            if message["type"] == "room.waiting":
                await released.wait()
                session.send(frames.system("first"))
            else:
                await handle_as_the_room_does(message)

        session.on_room_message = a_refresh_that_waits
        session.room_message({"type": "room.waiting"})
        await _until(lambda: not session._inbox_idle)  # the reader is inside it now
        session.room_message(_line("second"))
        assert carrier.written == []
        released.set()
        await _until(lambda: len(carrier.written) == 2)
        assert _texts(carrier) == ["first", "second"]


async def test_a_line_with_nothing_before_it_is_written_at_once():
    async with seated() as (session, carrier):
        session.room_message(_line("at once"))
        assert _texts(carrier) == ["at once"]  # before the event loop ran anything else


async def test_a_live_line_waits_behind_a_replay_not_yet_written():
    async with seated() as (session, carrier):
        session._show(SimpleNamespace(frames=[frames.system("replayed")], rows=[None]))  # a join's replay
        session.room_message(_line("live"))
        assert carrier.written == []  # the replay is the write loop's, and the line behind it
        await _until(lambda: len(carrier.written) == 2)
        assert _texts(carrier) == ["replayed", "live"]
