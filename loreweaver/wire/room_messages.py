"""What a connection does with each message its room sends over the hub (`room.*`):
a mixin of `SessionCore`, one method per message type, which uses the session's own
state (its seat, what it has shown, its snapshot of the room) and ways of sending.

A room whose story was replaced (a restore, `.save load`, a reset) is shown to each
member at once, as on a join: the `state{reset:true}` that clears the client's story,
a line saying what happened and how to undo it, the story as it is now (its lines,
their rolls, the room's media and audio), the room's panels and a fresh state.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from channels.db import database_sync_to_async

from base import frames, metrics
from keeper.state import RoomRead
from loreweaver.wire import hub, shutdown
from loreweaver.wire.protocol.messages import disconnect_notice, notice
from loreweaver.wire.seats import DeliveredRows, Seat, encoded_for
from packs import services as pack_services


def replaced_notice(told: dict, locale: str) -> str | None:
    """The line that tells a member what replaced the room's story (`told`, as the
    restore or reset said it), in `locale`; None when there is nothing to tell."""
    if told.get("restored"):
        if told.get("undo"):
            return notice("room_restored_undo", locale, backup=told["restored"], undo=told["undo"])
        return notice("room_restored", locale, backup=told["restored"])
    if told.get("reset") in ("story", "chars", "all"):
        return notice(f"room_reset_{told['reset']}", locale)
    return None


class RoomMessages:
    """The room's messages to one connection (see the module docstring)."""

    async def _on_room_message(self, message: dict) -> None:
        seat = self.seat
        if seat is None:
            return
        handler = _HANDLERS.get(message.get("type", ""))
        if handler is not None:
            await handler(self, seat, message)
        elif shutdown.is_our_goodbye(message):
            await self.say_goodbye()

    async def _room_frame(self, seat: Seat, message: dict) -> None:
        row = tuple(message["row"]) if message.get("row") else None
        if row is not None:
            if row in self._delivered:
                return  # the replay or a catch-up showed it already
            self._delivered.add(row)
        if seat.may_see(message):
            metrics.FRAMES_OUT.labels(message["frame"]["type"]).inc()
            self._enqueue(encoded_for(message, self.locale))

    async def _room_presence(self, seat: Seat, message: dict) -> None:
        # Party presence changed, so each viewer also gets its own fresh state.
        if message.get("except") != self.connection_id:
            self._online = await hub.online_reads.read(seat.room_id, message.get("refresh"))
            self._send_presence_and_state(seat)

    async def _room_state(self, seat: Seat, message: dict) -> None:
        self._adopt((message["stamp"], RoomRead.from_message(message["room"])))
        self._send_presence(only_if_changed=True)  # the roster names each member's character
        state = self._state(seat)
        if not message.get("reset"):
            self.send(state)
            return
        self.send({**state, "reset": True})  # the client also clears its story
        await self.read_room_language(seat)  # a restored room brings its own settings
        told = replaced_notice(message.get("told") or {}, self.locale)
        if told is not None:
            self.send(frames.system(told))
        # The story is the room's as it is now: shown whole, as on a join.
        self._delivered = DeliveredRows()
        self._show(await self._replay(seat))
        self._manifests = await database_sync_to_async(pack_services.room_manifests)(seat.room_id)
        self._send_manifest(seat)
        self.send(self._state(seat))

    async def _room_manifest(self, seat: Seat, message: dict) -> None:
        self._manifests = {"player": message["player"], "keeper": message["keeper"]}
        self._send_manifest(seat)

    async def _room_round(self, seat: Seat, message: dict) -> None:
        told = getattr(self.carrier, "round_status", None)  # a carrier with its own words for it
        if told is not None:
            await told(message["actor"], message["waiting"])
        else:
            names = ", ".join(message["waiting"])
            self.send(
                frames.system(notice("round_waiting", self.locale, actor=message["actor"], names=names))
            )

    async def _room_panel_event(self, seat: Seat, message: dict) -> None:
        if message["frame"]["panel"] in self.panel_ids:
            self.send(message["frame"])

    async def _room_key(self, seat: Seat, message: dict) -> None:
        if message.get("key") == seat.key_id:
            await self._key_changed(seat)

    async def _room_disconnect(self, seat: Seat, message: dict) -> None:
        if message.get("member_id") == seat.member.member_id:
            text = disconnect_notice(message.get("minutes") or 0, self.locale)
            await self.deliver_then_close(frames.system(text, "warn"))

    async def _room_resync(self, seat: Seat, message: dict) -> None:
        await self._catch_up(seat)

    async def _room_language(self, seat: Seat, message: dict) -> None:
        # From now on every server line this member reads is in the room's new language
        # (its announcement, already written in it, follows on the bus).
        self.room_language = message.get("language") or ""


_HANDLERS: dict[str, Callable[[RoomMessages, Seat, dict], Awaitable[None]]] = {
    "room.frame": RoomMessages._room_frame,
    "room.presence": RoomMessages._room_presence,
    "room.state": RoomMessages._room_state,
    "room.manifest": RoomMessages._room_manifest,
    "room.round": RoomMessages._room_round,
    "room.panel_event": RoomMessages._room_panel_event,
    "room.key": RoomMessages._room_key,
    "room.disconnect": RoomMessages._room_disconnect,
    "room.resync": RoomMessages._room_resync,
    "room.language": RoomMessages._room_language,
}
