"""What a connection shows of its room, and what it does with each message its room
sends over the hub (`room.*`): a mixin of `SessionCore`, which uses the session's own
state (its seat, what it has shown, its snapshot of the room) and ways of sending.

Room messages are dispatched by name, as Channels dispatches a consumer's: a message
of type `room.presence` is handled by the method `room_presence` of this class (only
of this class: no other attribute of a session answers to a message's name), and a
type with no method is logged and ignored, so a newer process's message does not
break an older one's sessions during an upgrade.

A room whose story was replaced (a restore, `.save load`, a reset) is shown to each
member at once, as on a join: the `state{reset:true}` that clears the client's story,
a line saying what happened and how to undo it, the story as it is now (its lines,
their rolls, the room's media and audio), the room's panels and a fresh state.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from channels.db import database_sync_to_async

from base import frames, metrics
from keeper.kp.keepers import images_configured, offline_keeper_plays
from keeper.kp.tools import chosen_language
from keeper.state import RoomRead, Viewer, build_state, state_share
from loreweaver.wire import admin_frames, coordination, hub, shutdown
from loreweaver.wire.protocol.messages import disconnect_notice, notice
from loreweaver.wire.seats import DeliveredRows, Seat, encode, encoded_for, join_replay
from media_store.services import Uploader
from packs import panels as panel_rules
from packs import services as pack_services
from rooms import held_keys
from rooms.selectors import Replay

log = logging.getLogger("loreweaver.wire.session")

RoomHandler = Callable[["RoomMessages", Seat, dict], Awaitable[None]]


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


def handler_for(message_type: str) -> RoomHandler | None:
    """The method of `RoomMessages` that handles a room message of `message_type`
    (`room.x` is handled by `room_x`); None when there is none."""
    if not message_type.startswith("room."):
        return None
    return getattr(RoomMessages, message_type.replace(".", "_"), None)


class RoomMessages:
    """What one connection shows of its room, and the room's messages to it (see the
    module docstring). Every method named `room_<type>` handles a message type."""

    async def on_room_message(self, message: dict) -> None:
        """Handle one message of the room, by its type's name."""
        seat = self.seat
        if seat is None:
            return
        message_type = message.get("type", "")
        handler = handler_for(message_type)
        if handler is None:
            log.warning("connection=%s ignored a room message of type %r", self.connection_id, message_type)
            return
        await handler(self, seat, message)

    def on_room_message_now(self, message: dict) -> bool:
        """Handle one message of the room at once when it needs no waiting (a frame, a
        turn's state without a reset, an input's end); false, and nothing done, when
        it must wait its turn with the others (`on_room_message`)."""
        seat = self.seat
        if seat is None:
            return False
        message_type = message.get("type")
        if message_type == "room.frame":
            self._frame_now(seat, message)
        elif message_type == "room.state" and not message.get("reset"):
            self._state_now(seat, message)
        elif message_type == "room.input_done":
            self._input_done_now(message)
        else:
            return False
        return True

    # --- the room's messages, by type ------------------------------------------------------

    async def room_frame(self, seat: Seat, message: dict) -> None:
        self._frame_now(seat, message)

    def _frame_now(self, seat: Seat, message: dict) -> None:
        row = message.get("row")
        if row and not self._delivered.first_sight(row):
            return  # the replay or a catch-up showed it already
        if seat.may_see(message):
            metrics.frames_out(message["frame"]["type"]).inc()
            self._enqueue(encoded_for(message, self.locale))

    async def room_presence(self, seat: Seat, message: dict) -> None:
        # Party presence changed, so each viewer also gets its own fresh state.
        if message.get("except") != self.connection_id:
            self._online = await hub.online_reads.read(seat.room_id, message.get("refresh"))
            self._send_presence_and_state(seat)

    async def room_state(self, seat: Seat, message: dict) -> None:
        if not message.get("reset"):
            self._state_now(seat, message)
            return
        self._keep_snapshot(message)
        self.send({**self._state(seat), "reset": True})  # the client also clears its story
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

    def _state_now(self, seat: Seat, message: dict) -> None:
        self._keep_snapshot(message)
        metrics.frames_out("state").inc()
        self._enqueue(self._shared_state(seat, message))

    def _keep_snapshot(self, message: dict) -> None:
        """Keep a `room.state`'s snapshot, and show the roster again if it changed (it
        names each member's character)."""
        snapshot = message.get("snapshot")  # read back once for all the sessions here
        if snapshot is None:
            snapshot = message["snapshot"] = (message["stamp"], RoomRead.from_message(message["room"]))
        self._adopt(snapshot)
        self._send_presence(only_if_changed=True)

    def _shared_state(self, seat: Seat, message: dict) -> str:
        """This viewer's `state` after `message`, as text: built and encoded once for all
        the room's viewers here who are shown it alike (`state_share`), as each is handed
        the same message in turn, and again for any whose snapshot or roster differs."""
        assert self._snapshot is not None, "a joined connection has read its room"
        room, online = self._snapshot[1], self._online
        viewer = self._viewer(seat)
        shared = message.setdefault("states", {})
        share = state_share(room, viewer)
        kept = shared.get(share)
        if kept is None or kept[0] is not room or kept[1] is not online:
            kept = shared[share] = (room, online, encode(self._built_state(room, viewer)))
        return kept[2]

    async def room_manifest(self, seat: Seat, message: dict) -> None:
        self._manifests = {"player": message["player"], "keeper": message["keeper"]}
        self._send_manifest(seat)

    async def room_round(self, seat: Seat, message: dict) -> None:
        told = getattr(self.carrier, "round_status", None)  # a carrier with its own words for it
        if told is not None:
            await told(message["actor"], message["waiting"])
        else:
            names = ", ".join(message["waiting"])
            self.send(
                frames.system(notice("round_waiting", self.locale, actor=message["actor"], names=names))
            )

    async def room_panel_event(self, seat: Seat, message: dict) -> None:
        if message["frame"]["panel"] in self.panel_ids:
            self.send(message["frame"])

    async def room_key(self, seat: Seat, message: dict) -> None:
        if message.get("key") == seat.key_id:
            await self._key_changed(seat)

    async def room_disconnect(self, seat: Seat, message: dict) -> None:
        if message.get("member_id") == seat.member.member_id:
            text = disconnect_notice(message.get("minutes") or 0, self.locale)
            await self.deliver_then_close(frames.system(text, "warn"))

    async def room_input_done(self, seat: Seat, message: dict) -> None:
        self._input_done_now(message)

    def _input_done_now(self, message: dict) -> None:
        if message.get("connection") == self.connection_id:
            # None from a process before inputs were numbered (a rolling upgrade).
            self.input_done(message.get("input"))

    async def room_resync(self, seat: Seat, message: dict) -> None:
        await self._catch_up(seat)

    async def room_language(self, seat: Seat, message: dict) -> None:
        # From now on every server line this member reads is in the room's new language
        # (its announcement, already written in it, follows on the bus).
        self.room_locale = message.get("language") or ""

    async def room_model(self, seat: Seat, message: dict) -> None:
        # A keeper's client shows the room's model (the model screen, the sample
        # adventure's offer while the offline Keeper plays): it is told the new one
        # without asking, as it is after saving on its own model screen.
        if seat.is_keeper and message.get("except") != self.connection_id:
            admin = admin_frames.Admin(seat.room_id, seat.room_name, True, self.locale)
            self.send(await database_sync_to_async(admin_frames.config)(admin))

    async def room_restart(self, seat: Seat, message: dict) -> None:
        # A process stopping says goodbye to its own members; another's is not ours.
        if shutdown.is_our_goodbye(message):
            await self.say_goodbye()

    # --- what the connection shows of its room ------------------------------------------------

    async def _replay(self, seat: Seat) -> Replay:
        answers = getattr(self.carrier, "replays_answers", False)  # SideQuest's page keeps nothing
        return await database_sync_to_async(join_replay)(seat, answers=answers)

    def _show(self, replay: Replay) -> None:
        """Send the replay's frames this connection has not been shown yet."""
        for frame, row in zip(replay.frames, replay.rows, strict=True):
            if row is not None:
                if row in self._delivered:
                    continue
                self._delivered.add(row)
            # A replay (or a catch-up) is one burst the server makes, however long the
            # operator's TRPG_REPLAY__ENTRIES: it never counts as a client falling behind.
            self._enqueue(encode(frames.for_viewer(frame, self.locale)), live=False)

    def _send_manifest(self, seat: Seat) -> None:
        panels = self._manifests["keeper" if seat.is_keeper else "player"]
        self.panel_ids = frozenset(panel["id"] for panel in panels)
        self.pack_hashes = panel_rules.hashes_in(panels)
        self.send(frames.ui_manifest(panels))

    def _send_presence_and_state(self, seat: Seat) -> None:
        self._send_presence()
        self.send(self._state(seat))

    async def _read_room_now(self, seat: Seat) -> None:
        """Read who is online and the room itself, fresh."""
        self._online = await hub.online_reads.read(seat.room_id, None)
        self._adopt(await database_sync_to_async(hub.take_snapshot)(seat.room_id))

    def _adopt(self, snapshot: hub.Snapshot) -> None:
        """Keep `snapshot` unless this connection has already seen a newer one."""
        if self._snapshot is None or snapshot[0] >= self._snapshot[0]:
            self._snapshot = snapshot

    async def _catch_up(self, seat: Seat) -> None:
        """After the layer came back from a failure: the stored lines this connection
        missed meanwhile, in story order, then where the table stands now."""
        self._show(await self._replay(seat))
        if not await coordination.shared().busy_actor(seat.room_id):
            # A turn that ended during the outage may have lost its `idle`.
            self.send(frames.turn_idle())
        await self.read_room_language(seat)
        await self._read_room_now(seat)
        self._send_presence_and_state(seat)

    async def read_room_language(self, seat: Seat) -> None:
        """Read the room's chosen language afresh (at a join, after the story was
        replaced, after the bus missed messages)."""
        self.room_locale = await database_sync_to_async(chosen_language)(seat.room_id)

    async def _key_changed(self, seat: Seat) -> None:
        """This connection's access key changed: closed when it is gone (or moved to
        another room); welcomed again as the key is now when renamed or re-roled."""
        now = await self.current_seat()
        if now is None or now == seat:
            return
        self.seat = now
        assert self._media is not None
        self._media.uploader = Uploader(now.room_id, now.member.member_id, now.member.name)
        await coordination.shared().presence_add(now.room_id, self.connection_id, now.member)
        offline = await offline_keeper_plays(now.room_id)
        imagegen = await images_configured(now.room_id)
        self.send(now.welcome(self.locale, demo=False, imagegen=imagegen, offline=offline))
        self._send_manifest(now)  # a keeper's panels come and go with the role
        # Everyone, this connection included, gets the new presence and its own state.
        await hub.publish_presence_changed(now.room_id)

    async def current_seat(self) -> Seat | None:
        """The seat as the access key gives it now; None (and the connection closing
        with `bad_key`) when the key was deleted or moved to another room."""
        seat = self.seat
        if seat is None:
            return None
        access_key = await database_sync_to_async(held_keys.key_now)(seat.key_id)
        if access_key is None or access_key.room_id != seat.room_id:
            log.info("connection=%s key revoked; closing", self.connection_id)
            await self.fail("bad_key", message_key="key_revoked")
            return None
        return Seat.of(access_key)

    def _send_presence(self, *, only_if_changed: bool = False) -> None:
        sheets = self._snapshot[1].sheets if self._snapshot is not None else []
        presence = hub.presence_frame(self._online, sheets)
        if not (only_if_changed and (presence is self._presence_sent or presence == self._presence_sent)):
            self._presence_sent = presence
            self.send(presence)

    def screen_language(self, locale: str) -> None:
        """The viewer's own screen changed language (`viewer_locale`): a fresh `state`
        with its labels in it."""
        self.viewer_locale = locale
        if self.seat is not None and self._snapshot is not None:
            self.send(self._state(self.seat))

    def _state(self, seat: Seat) -> dict:
        assert self._snapshot is not None, "a joined connection has read its room"
        return self._built_state(self._snapshot[1], self._viewer(seat))

    def _viewer(self, seat: Seat) -> Viewer:
        # The viewer's own screen language: the protocol resolves Resource labels per viewer.
        return Viewer(seat.member.member_id, seat.is_keeper, self.viewer_locale)

    def _built_state(self, room: RoomRead, viewer: Viewer) -> dict:
        online = [(m.member_id, m.name) for m, _carriers in self._online]
        return build_state(room=room, viewer=viewer, online=online)
