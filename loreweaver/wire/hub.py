"""RoomHub: delivery to the members of a room, across every server process.

Each process that has connections in a room has joined the room on the bus (`bus.py`:
the channel layer, in-memory when embedded, channels-redis's pub/sub layer when
hosted) once, for all its sessions there (`LocalHub`), and hands what arrives to them.
A broadcast is one message on the bus, not one per member; what each connection
finally writes is decided by its own session (`SessionCore`), so per-viewer frames
(state, keeper-only rows) are built per member, never one frame for all.

Messages on the bus:
- `room.frame`: a frame with its audience; `row` names the stored transcript entry
  or turn event it came from, so a session never shows one row twice (replay, live,
  catch-up).
- `room.presence`: the room's membership changed; each session sends `presence` and
  its own `state`. It carries a `refresh` id: the sessions of one process that
  receive the same refresh share one read of who is online (`OnlineReads`).
- `room.state`: a turn ended; each session sends its own `state`, projected from the
  snapshot of the room the message carries (`keeper.state.RoomRead`, read once by
  whoever ended the turn), so no process reads the room again.
- `room.manifest`: the room's panels changed; it carries the `ui_manifest` panels of
  each role (`player`, `keeper`, resolved where the packs are read) and each session
  sends its viewer the one for its role.
- `room.panel_event`: a hook's `panel_event`; each session passes it on only when its
  viewer's own manifest has the panel.
- `room.round`: in a structured round, who has acted and who the Keeper waits for;
  each session tells its viewer in its own protocol.
- `room.key`: an access key of the room changed or was deleted; the sessions that
  joined with it re-read it (revocation, renames, role changes).
- `room.disconnect`: the operator disconnects a member's sessions.
- `room.notice`: a line of `text` for every member, as a `system` frame: what any Django
  code may send (`rooms.services.room_notice`, `manage.py notice`).
- `room.language`: the room's keeper chose the room's language (`.language`); every
  session writes its member's server lines in it from then on (`SessionCore.locale`).
- `room.resync`: the bus came back from a failure (or a broadcast to the room was
  lost): sessions catch up on the rows they missed, from the database.
- `room.turn_free`: a turn of the room ended (on a bus that spans processes): the
  first waiter of each process looks at the queue at once, instead of at its next
  look.
- `room.input_done`: the game is done with one input of one connection (`connection`,
  and which of its inputs, `input`): sent after the input's last frame, so a carrier
  that tells a turn's end its own way (SideQuest's `NARRATION_END`) hears it in order,
  and reads it, not the frames; the number tells it which of its inputs ended (the
  input of a character being made may end after the player's next action began).
- `room.batch`: several of the above, in order, as one message: a turn's frames and
  its closing state cost one trip over the bus (`into=` a `Batch`, then `flush`).

A snapshot carries the time its read began (`stamp`); a session keeps the newest it
has seen, so a refresh that overtakes another on the way never shows older data.

A broadcast never raises: the rows it announces are already committed, so a bus
that cannot be reached (Redis down) is logged and repaired (`LocalHub.recover`), and
members catch up from the database once it is back, without reconnecting.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Protocol

from channels.db import database_sync_to_async

from base import failpoints, frames
from keeper.state import RoomRead, current_room
from loreweaver.wire import bus, coordination, held_writes
from packs import services as pack_services
from rooms.choices import Audience
from rooms.services import NOTICE_MAX

log = logging.getLogger(__name__)


async def _group_send(room_id: int, message: dict) -> None:
    try:
        await local_hub.publish(room_id, message)
    except Exception as exc:
        log.warning("room=%s broadcast of %s failed: %r", room_id, message["type"], exc)
        local_hub.layer_failed(room_id)


Batch = list[dict]


async def _send(room_id: int, message: dict, into: Batch | None) -> None:
    if into is None:
        await _group_send(room_id, message)
    else:
        into.append(message)


async def flush(room_id: int, batch: Batch) -> None:
    """Send the messages gathered in `batch` (in order, as one) and empty it."""
    if len(batch) == 1:
        await _group_send(room_id, batch[0])
    elif batch:
        await _group_send(room_id, {"type": "room.batch", "messages": list(batch)})
    batch.clear()


async def publish(
    room_id: int,
    frame: dict,
    *,
    audience: str = Audience.EVERYONE,
    member_id: str = "",
    row: tuple[str, int] | None = None,
    into: Batch | None = None,
) -> None:
    """Send `frame` to the room: to everyone, or to keepers plus `member_id` (or add it
    to the batch `into`)."""
    await _send(room_id, _frame_message(frame, audience, member_id, row), into)


def _frame_message(frame: dict, audience: str, member_id: str, row: tuple[str, int] | None) -> dict:
    return {
        "type": "room.frame",
        "frame": frame,
        "audience": audience,
        "member_id": member_id,
        "row": list(row) if row else None,
    }


async def publish_panel_event(room_id: int, frame: dict, *, into: Batch | None = None) -> None:
    """Send a `panel_event` to the members whose own manifest has its panel (each
    connection knows its panels, so the room hears it once)."""
    await _send(room_id, {"type": "room.panel_event", "frame": frame}, into)


async def publish_round(room_id: int, actor: str, waiting: list[str], *, into: Batch | None = None) -> None:
    """A structured round: `actor` has acted, the Keeper waits for `waiting`."""
    await _send(room_id, {"type": "room.round", "actor": actor, "waiting": waiting}, into)


async def publish_presence_changed(room_id: int, *, except_connection: str = "") -> None:
    """Tell every connection of the room that someone joined or left."""
    await _group_send(
        room_id, {"type": "room.presence", "except": except_connection, "refresh": _refresh_id()}
    )


Snapshot = tuple[int, RoomRead]


def take_snapshot(room_id: int, state_stamp: int | None = None) -> Snapshot:
    """Read the room for a refresh, stamped with when the read began (`state_stamp`:
    the room's state stamp, when the caller read it in this transaction after the last
    write to the room's state). Blocking: inside a turn's own database visit when it
    can (on the database thread, or the loop's for a brief turn: `commits.py`), else in
    a worker thread."""
    stamp = time.time_ns()
    return stamp, current_room(room_id, state_stamp)


async def publish_state_refresh(
    room_id: int,
    *,
    reset: bool = False,
    told: dict | None = None,
    snapshot: Snapshot | None = None,
    into: Batch | None = None,
) -> None:
    """Tell every connection of the room to send its viewer a fresh `state`; marked
    `reset` after its story was replaced (a restore, a reset), when each connection also
    shows the room's story again and says what happened (`told`). From `snapshot` (read
    here when not given). Never raises: the room's changes are committed, and sessions
    catch up on their next refresh."""
    if snapshot is None:
        try:
            snapshot = await database_sync_to_async(take_snapshot)(room_id)
        except Exception as exc:
            log.warning("room=%s state refresh could not read the room: %r", room_id, exc)
            return
    stamp, room = snapshot
    message = {"type": "room.state", "stamp": stamp, "room": room.as_message(), "reset": reset}
    if told:
        message["told"] = told
    await _send(room_id, message, into)


async def publish_input_done(
    room_id: int, connection_id: str, number: int, *, into: Batch | None = None
) -> None:
    """Tell the connection `connection_id` that the game is done with its input `number`
    (see `room.input_done`), after everything the input sent the room in `into`."""
    message = {"type": "room.input_done", "connection": connection_id, "input": number}
    await _send(room_id, message, into)


async def publish_manifests(room_id: int, *, into: Batch | None = None) -> None:
    """Send every member of the room its own `ui_manifest`, after its panels changed.
    Never raises, like every broadcast of committed changes."""
    try:
        manifests = await database_sync_to_async(pack_services.room_manifests)(room_id)
    except Exception as exc:
        log.warning("room=%s panels could not be read: %r", room_id, exc)
        return
    await _send(room_id, {"type": "room.manifest", **manifests}, into)


async def publish_model_changed(
    room_id: int, *, into: Batch | None = None, except_connection: str = ""
) -> None:
    """Tell every connection of the room, on every process, that the room's model
    changed: each keeper's is shown it again (`admin_config`), but the connection
    `except_connection`, which was answered with it already."""
    await _send(room_id, {"type": "room.model", "except": except_connection}, into)


async def publish_room_language(room_id: int, language: str, *, into: Batch | None = None) -> None:
    """Tell every connection of the room, on every process, that the room's language
    is now `language` ("" once none is chosen)."""
    await _send(room_id, {"type": "room.language", "language": language}, into)


async def publish_key_changed(room_id: int, key_id: int) -> None:
    """Tell the sessions that joined with access key `key_id` to re-read it."""
    await _group_send(room_id, {"type": "room.key", "key": key_id})


async def publish_disconnect(room_id: int, member_id: str, minutes: int = 0) -> None:
    """Close every session of `member_id` in the room, on every process (`minutes`: how
    long the operator keeps them out, which their notice says)."""
    await _group_send(room_id, {"type": "room.disconnect", "member_id": member_id, "minutes": minutes})


def _refresh_id() -> str:
    # The connections of one process that receive the same refresh read presence once.
    return uuid.uuid4().hex


class RoomListener(Protocol):
    """A session, as the hub sees it."""

    connection_id: str

    def room_message(self, message: dict) -> None:
        """Take one room message; must not block."""

    def presence_member(self) -> coordination.Member | None:
        """The member this connection is present as (None once it left)."""


@dataclass
class _RoomEnd:
    ready: asyncio.Future
    listeners: set[RoomListener] = field(default_factory=set)


class LocalHub:
    """This process's end of each room: its place on the bus (`bus.py`), shared by
    every connection of that room on this process.

    A routing table of this process's own connections, so it is per process by nature.
    When the bus fails (its Redis restarted, say), `recover` joins the rooms again,
    retrying until it answers, and the sessions are told to catch up.
    """

    def __init__(self) -> None:
        self._rooms: dict[int, _RoomEnd] = {}
        self._bus: bus.Bus | None = None
        self._recovering: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the server's, set at first attach
        # Rooms whose broadcast failed here: every process's sessions there must catch up.
        self._missed: set[int] = set()
        # How many processes the last broadcast to each room reached (this one included).
        self._reach: dict[int, int] = {}

    def _the_bus(self) -> bus.Bus:
        if self._bus is None:
            self._loop = asyncio.get_running_loop()
            self._bus = bus.make_bus(self._deliver, self.layer_failed)
            if bus.spans_processes(self._bus):
                coordination.shared().on_release = self._announce_turn_freed
        return self._bus

    async def _announce_turn_freed(self, room_id: int) -> None:
        # Only other processes' waiters need telling, and when the room's last broadcast
        # reached this process alone there are none (a newcomer's waiter still looks
        # on its own, just later).
        if self._reach.get(room_id, 2) > 1:
            await self.publish(room_id, {"type": "room.turn_free"})

    def room_count(self) -> int:
        """How many rooms this process has members in (safe to read from any thread)."""
        return len(self._rooms)

    def rooms(self) -> dict[int, list[RoomListener]]:
        """The rooms this process serves, with their local sessions."""
        return {room_id: list(end.listeners) for room_id, end in self._rooms.items() if end.ready.done()}

    async def attach(self, room_id: int, listener: RoomListener) -> None:
        """Start handing room messages to `listener` (from the moment this returns)."""
        the_bus = self._the_bus()
        end = self._rooms.get(room_id)
        if end is None:
            end = self._rooms[room_id] = _RoomEnd(ready=asyncio.get_running_loop().create_future())
            try:
                await the_bus.join(room_id)
                end.ready.set_result(True)
            except BaseException as exc:
                del self._rooms[room_id]
                end.ready.set_exception(exc)
                end.ready.exception()  # retrieved: the waiters below re-raise it
                raise
        else:
            await asyncio.shield(end.ready)
        end.listeners.add(listener)

    async def detach(self, room_id: int, listener: RoomListener) -> None:
        """Stop handing room messages to `listener`; leave the room with the last one."""
        end = self._rooms.get(room_id)
        if end is None:
            return
        end.listeners.discard(listener)
        if end.listeners or not end.ready.done():
            return
        del self._rooms[room_id]
        self._reach.pop(room_id, None)
        await self._the_bus().leave(room_id)

    async def publish(self, room_id: int, message: dict) -> None:
        """Send `message` to the room on every process; raises when the bus could not."""
        if self._bus is not None and asyncio.get_running_loop() is self._loop:
            self._reach[room_id] = await self._bus.publish(room_id, message)
        else:  # a process (or loop) with no sessions: a management command, a test
            await bus.publish_from_elsewhere(room_id, message)

    def _deliver(self, room_id: int, message: dict) -> None:
        end = self._rooms.get(room_id)
        if end is None or not end.ready.done():
            return
        if message.get("type") == "room.turn_free":
            coordination.shared().turn_freed(room_id)
            return
        if message.get("type") == "room.notice":  # from any Django code (bus.py)
            text = str(message.get("text", ""))[:NOTICE_MAX]
            message = _frame_message(frames.system(text), Audience.EVERYONE, "", None)
        if message.get("type") != "room.batch":
            for listener in list(end.listeners):
                listener.room_message(message)
            return
        with held_writes.held():  # each member's frames of the batch in one write
            for one in message["messages"]:
                for listener in list(end.listeners):
                    listener.room_message(one)

    def layer_failed(self, missed_room: int | None = None) -> None:
        """The bus could not be reached (and a broadcast to `missed_room` was lost):
        start recovering (once). Only the server's own loop recovers; a broadcast from
        elsewhere (an admin command) just failed."""
        if self._loop is None or asyncio.get_running_loop() is not self._loop:
            return
        if missed_room is not None:
            self._missed.add(missed_room)
        if self._recovering is None or self._recovering.done():
            self._recovering = self._loop.create_task(self.recover())

    async def recover(self) -> None:
        """Join this process's rooms again (retrying until the bus answers), have every
        local session catch up on what it missed, and every session of a room whose
        broadcast was lost here, on any process."""
        the_bus = self._the_bus()
        delay = 0.1
        while True:
            try:
                failpoints.hit("bus.rejoin")
                await the_bus.rejoin()
                while self._missed:
                    room_id = next(iter(self._missed))
                    await the_bus.publish(room_id, {"type": "room.resync"})
                    self._missed.discard(room_id)
                break
            except Exception as exc:
                log.info("room bus still unreachable: %r", exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)
        log.warning("room bus reachable again; %s room(s) rejoined", len(self._rooms))
        for listeners in self.rooms().values():
            for listener in listeners:
                listener.room_message({"type": "room.resync"})


local_hub = LocalHub()


class Upkeep:
    """What each process does twice a second to keep the shared picture true.

    - Its heartbeat (`coordination`), so other processes know it is alive.
    - Whether the store lost its data (a Redis restarted without persistence): then
      sessions catch up once the bus is back (the layer subscribes again by itself),
      and the presence round below puts this process's presence back.
    - Presence (every other second): this process's entries are exactly its live
      sessions, and the ghosts of dead processes are removed; members are told when
      that changed anything.
    """

    # Presence is checked every this many heartbeats.
    PRESENCE_EVERY = 4

    def __init__(self) -> None:
        self._epoch: str | None = None

    async def run(self) -> None:
        """Until cancelled."""
        beats = 0
        while True:
            try:
                await self.beat()
                if beats % self.PRESENCE_EVERY == 0:
                    await self.presence()
            except Exception as exc:  # the store is down: the next round tries again
                log.warning("upkeep failed: %r", exc)
            beats += 1
            await asyncio.sleep(coordination.PROCESS_HEARTBEAT_SECONDS)

    async def beat(self) -> None:
        """The heartbeat, and the check that the store still holds what it held."""
        shared = coordination.shared()
        await shared.process_heartbeat()
        epoch = await shared.store_epoch()
        if self._epoch is not None and epoch != self._epoch:
            log.warning("the shared store lost its data; putting this process's rooms back")
            local_hub.layer_failed()
        self._epoch = epoch

    async def presence(self) -> None:
        """This process's presence entries are exactly its live sessions."""
        shared = coordination.shared()
        for room_id, listeners in local_hub.rooms().items():
            for gone in [listener for listener in listeners if listener.presence_member() is None]:
                await local_hub.detach(room_id, gone)  # its own teardown could not
            if await shared.presence_sync(room_id, lambda room_id=room_id: self._present(room_id)):
                await publish_presence_changed(room_id)

    @staticmethod
    def _present(room_id: int) -> dict[str, coordination.Member]:
        """This process's sessions in the room, as they are at this moment."""
        present = {}
        for listener in local_hub.rooms().get(room_id, []):
            member = listener.presence_member()
            if member is not None:
                present[listener.connection_id] = member
        return present


class OnlineReads:
    """Who is online in a room, read once per process for each presence refresh and
    shared by its sessions there.

    Per-process derived data, not shared truth: the truth stays in the cache; this
    only spares six viewers of one room six identical reads.
    """

    KEEP = 256

    def __init__(self) -> None:
        self._reads: OrderedDict[tuple[int, str], asyncio.Task] = OrderedDict()

    async def read(self, room_id: int, refresh: str | None) -> list[tuple[coordination.Member, list[str]]]:
        """The room's online members as of `refresh` (fresh when None), each with the
        carriers it is connected by."""
        if refresh is None:
            return await coordination.shared().online_carriers(room_id)
        key = (room_id, refresh)
        task = self._reads.get(key)
        if task is None:
            task = asyncio.ensure_future(coordination.shared().online_carriers(room_id))
            self._reads[key] = task
            while len(self._reads) > self.KEEP:
                self._reads.popitem(last=False)
        return await asyncio.shield(task)


online_reads = OnlineReads()


def presence_frame(online: list[tuple[coordination.Member, list[str]]], sheets: list[dict]) -> dict:
    """The `presence` frame for `online` (as `OnlineReads` reads it) in a room whose
    active characters are `sheets` (`keeper.state.RoomRead.sheets`).

    Beside the protocol's id and name, each entry carries the member's role, the
    carriers it is connected by and its active character, which every member sees in
    the party anyway (additive fields, docs/decisions.md).
    """
    # A room's message reaches each of its members here in turn, with the same sheets
    # and, but for the member who joined last (who read it on its own), the same
    # online list (`OnlineReads`): the frame is built once for each such pair. The memo
    # holds both objects of each pair it keeps, so neither's identity can pass to
    # another meanwhile.
    for kept_online, kept_sheets, frame in _recent_presence:
        if online is kept_online and sheets is kept_sheets:
            return frame
    characters = {sheet["owner"]: sheet["entry"]["name"] for sheet in sheets}
    players = []
    for member, carriers in online:
        entry = {"id": member.member_id, "name": member.name, "role": member.role, "carriers": carriers}
        if member.member_id in characters:
            entry["character"] = characters[member.member_id]
        players.append(entry)
    # A roster as it was (a turn's new sheets, the same names) is the frame built for
    # it before: each session then tells it from the one it sent last by identity,
    # without comparing them entry by entry.
    roster = tuple(
        (entry["id"], entry["name"], entry["role"], tuple(entry["carriers"]), entry.get("character"))
        for entry in players
    )
    frame = _presence_by_roster.pop(roster, None) or frames.presence(players)
    _presence_by_roster[roster] = frame  # the newest last
    if len(_presence_by_roster) > PRESENCE_ROSTERS_KEPT:
        _presence_by_roster.pop(next(iter(_presence_by_roster)), None)
    _recent_presence.appendleft((online, sheets, frame))
    return frame


# The last few (online list, sheets, frame) built, newest first.
_recent_presence: deque[tuple[object, object, dict]] = deque(maxlen=4)
# The frames of the rosters seen last, by their entries' values (a roster of the
# process's busiest rooms each).
PRESENCE_ROSTERS_KEPT = 256
_presence_by_roster: dict[tuple, dict] = {}
