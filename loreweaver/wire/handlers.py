"""What a joined connection does with each frame type.

`HANDLERS` maps a frame's `type` to its handler, one per type and named after it
(`on_<type>`); the session looks the type up and calls the handler with itself and
the validated frame. Every admin frame goes to `on_admin`, which gates on the key's
role as it is now and hands the frame to `admin_frames`.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Protocol

from channels.db import database_sync_to_async
from django.conf import settings

from base import frames
from keeper.characters import set_avatar
from loreweaver.wire import admin_frames, coordination, hub, self_update, shutdown
from loreweaver.wire.protocol import inbound
from loreweaver.wire.protocol.messages import notice
from loreweaver.wire.seats import Seat, log_failure
from loreweaver.wire.turns import TurnContext, run_input
from media_store.services import MediaError, Uploader, set_uploads_enabled
from media_store.services import offer as media_offer
from packs import services as pack_services


class Joined(Protocol):
    """A joined connection, as the handlers see it (`SessionCore`)."""

    seat: Seat | None
    locale: str
    inputs: MemberInputs
    panel_ids: frozenset[str]  # the panels of this viewer's own `ui_manifest`

    connection_id: str
    tells_turns_end: bool  # its carrier tells the end of each input its own way

    def send(self, frame: dict) -> None: ...
    def send_refusal(self, frame: dict, code: str) -> None: ...
    def send_error(self, code: str, *, message_key: str | None = None, **values: object) -> None: ...
    async def deliver_then_close(self, frame: dict, timeout: float = 5.0) -> None: ...
    async def current_seat(self) -> Seat | None: ...
    def screen_language(self, locale: str) -> None: ...


Handler = Callable[[Joined, inbound.Inbound], Awaitable[None]]


class MemberInputs:
    """A connection's inputs, played one after another in the order typed. The worker is
    not cancelled when the connection goes: an accepted turn always finishes."""

    def __init__(self, connection: Joined) -> None:
        self.connection = connection
        self._waiting: asyncio.Queue[tuple[int, str]] = asyncio.Queue()
        self._worker: asyncio.Task | None = None
        # How many inputs were accepted: each is numbered, and the game's word that it
        # is done with one (`room.input_done`) names it.
        self.taken = 0

    def add(self, seat: Seat, text: str) -> None:
        """Queue an accepted input; start the worker if none runs."""
        self.taken += 1
        self._waiting.put_nowait((self.taken, text))
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._play(seat))
            shutdown.track_turns(self._worker)  # a stopping process lets it finish

    async def _play(self, seat: Seat) -> None:
        connection = self.connection
        context = TurnContext(
            room_id=seat.room_id,
            member=seat.member,
            key_id=seat.key_id,
            locale=connection.locale,
            send_private=connection.send,
            send_refusal=connection.send_refusal,
            tell_done=connection.connection_id if connection.tells_turns_end else "",
            queued_notice=lambda: connection.send(_queued_notice(connection.locale)),
        )
        while not self._waiting.empty():
            number, text = self._waiting.get_nowait()
            try:
                await run_input(replace(context, input_number=number) if context.tell_done else context, text)
            except Exception as exc:
                log_failure(exc, "turn failed room=%s member=%s", seat.room_id, seat.member.member_id)
                connection.send_error("server_error")


@functools.lru_cache(maxsize=16)  # a language's notice is the same for every input
def _queued_notice(locale: str) -> dict:
    """What an input that waits behind another's turn is told, in `locale`."""
    return frames.system(notice("queued", locale))


def _seat(connection: Joined) -> Seat:
    assert connection.seat is not None, "handlers serve joined connections"
    return connection.seat


async def on_input(connection: Joined, frame: inbound.Input) -> None:
    """A line of play or a dot command: checked, rate-limited, then queued as a turn."""
    if len(frame.text) > settings.TRPG_INPUT_MAX_CHARS:
        connection.send_error("input_too_long", limit=settings.TRPG_INPUT_MAX_CHARS)
        return
    await _accept_input(connection, frame.text)


async def _accept_input(connection: Joined, text: str) -> None:
    """Rate-limit a line the member typed (or a panel sent for them), then queue it."""
    seat = _seat(connection)
    if not text.strip():
        return
    if shutdown.draining():  # a turn begun now could be cut off: the member sends it again
        connection.send(frames.system(notice("restarting_input_refused", connection.locale), "warn"))
        return
    allowed = await coordination.shared().take_tokens(
        [f"room:{seat.room_id}", f"member:{seat.room_id}:{seat.member.member_id}"],
        burst=settings.TRPG_RATE_BURST,
        refill_seconds=settings.TRPG_RATE_REFILL_SECONDS,
    )
    if not allowed:
        connection.send_error("rate_limited")
        return
    connection.inputs.add(seat, text)


async def on_ping(connection: Joined, frame: inbound.Ping) -> None:
    """Answered at once with the client's own `t`."""
    connection.send(frames.pong(frame.t))


async def on_join(connection: Joined, frame: inbound.Join) -> None:
    """A second join on a joined connection."""
    connection.send_error("bad_frame", detail="already joined")


async def on_list_pack_cards(connection: Joined, frame: inbound.ListPackCards) -> None:
    """The installed packs' card files, by name and kind (an empty list when none)."""
    connection.send(frames.pack_cards(await database_sync_to_async(pack_services.pack_cards)()))


async def on_viewer_locale(connection: Joined, frame: inbound.ViewerLocale) -> None:
    """The viewer's screen is now in `frame.locale`: its `state` labels follow, in a
    fresh `state` at once (the story's language stays the room's)."""
    connection.screen_language(frame.locale)


# A panel's value is capped like this whatever the input cap is (protocol 2.3).
PANEL_VALUE_MAX_CHARS = 2000


async def on_panel_intent(connection: Joined, frame: inbound.PanelIntent) -> None:
    """A panel acts as the member viewing it: only a panel of their own manifest, and
    only what they could type. A choice or an input is a line they typed; a roll is
    their public `.r <value>`, so the dice engine checks the expression."""
    if frame.panel not in connection.panel_ids:
        connection.send_error("forbidden", message_key="panel_forbidden")
        return
    limit = min(PANEL_VALUE_MAX_CHARS, settings.TRPG_INPUT_MAX_CHARS)
    if len(frame.value) > limit:
        connection.send_error("input_too_long", limit=limit)
        return
    await _accept_input(connection, f".r {frame.value}" if frame.kind == "roll" else frame.value)


async def on_avatar_set(connection: Joined, frame: inbound.AvatarSet) -> None:
    """A portrait for the caller's own character; the room sees it in its next state."""
    seat = _seat(connection)
    try:
        await database_sync_to_async(set_avatar)(
            seat.room_id, seat.member.member_id, frame.hash, character=frame.character, user=frame.user
        )
    except MediaError as refused:
        connection.send_error(
            refused.code, message_key="avatar_forbidden" if refused.code == "forbidden" else None
        )
        return
    await hub.publish_state_refresh(seat.room_id)


async def on_media_offer(connection: Joined, frame: inbound.MediaOffer) -> None:
    """An upload id for new bytes, or the stored file when the room has it already."""
    seat = _seat(connection)
    uploader = Uploader(seat.room_id, seat.member.member_id, seat.member.name)
    try:
        accepted = await database_sync_to_async(media_offer)(
            uploader, name=frame.name, mime=frame.mime, size=frame.size, sha256=frame.sha256
        )
    except MediaError as refused:
        connection.send_error(refused.code)
        return
    if accepted.existing is None:
        connection.send(frames.media_accept(accepted.upload_id))
        return
    stored = accepted.existing.as_frame()
    connection.send(frames.media_accept("", stored))
    # Everyone sees the file again; the history keeps its one entry.
    await hub.publish(seat.room_id, stored)


async def on_media_set_enabled(connection: Joined, frame: inbound.MediaSetEnabled) -> None:
    """A keeper switches the room's uploads on or off."""
    seat = _seat(connection)
    current = await connection.current_seat() if seat.is_keeper else seat  # a demotion counts at once
    if current is None:
        return
    if not current.is_keeper:
        connection.send_error("forbidden")
        return
    await database_sync_to_async(set_uploads_enabled)(seat.room_id, frame.enabled)
    await hub.publish(seat.room_id, frames.media_enabled(frame.enabled))


async def on_admin(connection: Joined, frame: inbound.Inbound) -> None:
    """Every admin frame: refused to a player before anything is read; answered for a
    keeper of the room, as the key's role is now."""
    if connection.seat is None or not connection.seat.is_keeper:
        connection.send(admin_frames.Admin(0, "", False, connection.locale).error("forbidden"))
        return
    seat = await connection.current_seat()  # a keeper demoted since the join is refused
    if seat is None:
        return
    admin = admin_frames.Admin(seat.room_id, seat.room_name, seat.is_keeper, connection.locale)
    if not admin.is_keeper:
        connection.send(admin.error("forbidden"))
        return
    slow = admin_frames.SLOW_HANDLERS.get(type(frame))
    if slow is not None:
        connection.send(await slow(frame, admin))
        return
    # The reply is queued as soon as the answer is back, before anything else is
    # awaited: an answer that revoked this very key (deleting the room's data) is
    # followed by the revocation, and the reply must reach the keeper first.
    if isinstance(frame, admin_frames.TURN_TAKING):
        async with coordination.shared().room_turn(seat.room_id, seat.member.name):
            connection.send(await database_sync_to_async(admin_frames.answer)(frame, admin))
        return
    reply = await database_sync_to_async(admin_frames.answer)(frame, admin)
    connection.send(reply)
    if isinstance(frame, admin_frames.MODEL_SETTING) and reply["type"] == "admin_config":
        # The room's other keepers see the new model too, as after `.model set` in chat;
        # this one has it in the reply (a second copy could be taken for the reply to
        # its next request).
        await hub.publish_model_changed(seat.room_id, except_connection=connection.connection_id)


async def on_admin_update_server(connection: Joined, frame: inbound.AdminUpdateServer) -> None:
    """The operator's own update command (never anything the client sends), then a
    restart that drains like SIGTERM. Updating the server is the operator's: a room
    keeper is refused unless the operator allowed it (`TRPG_ALLOW_REMOTE_UPDATE`)."""
    seat = await connection.current_seat() if connection.seat and connection.seat.is_keeper else None
    if seat is None or not seat.is_keeper:
        if connection.seat is not None:
            connection.send(admin_frames.Admin(0, "", False, connection.locale).error("forbidden"))
        return
    admin = admin_frames.Admin(seat.room_id, seat.room_name, True, connection.locale)
    if not settings.TRPG_ALLOW_REMOTE_UPDATE:
        connection.send(admin.error("forbidden", "update_is_the_operators"))
        return
    if not settings.TRPG_UPDATE_COMMAND:
        connection.send(admin.error("not_configured"))
        return
    if not self_update.begin():
        # One update at a time: another keeper's is already running or restarting.
        connection.send(admin.error("op_failed", "update_running"))
        return
    try:
        result = await asyncio.to_thread(self_update.run_update_command)
    except BaseException:
        self_update.abandon()
        raise
    if not result.ok:
        self_update.abandon()
        connection.send(frames.admin_reply("admin_update", status="failed", output=result.output))
        return
    connection.send(frames.admin_reply("admin_update", status="restarting", output=result.output))
    # The way SIGTERM stops the process: turns in flight finish, every member is told
    # the server is restarting (1012), then the process starts again on the new code.
    self_update.request_restart()


HANDLERS: dict[str, Handler] = {
    "input": on_input,
    "ping": on_ping,
    "join": on_join,
    "list_pack_cards": on_list_pack_cards,
    "viewer_locale": on_viewer_locale,
    "panel_intent": on_panel_intent,
    "avatar_set": on_avatar_set,
    "media_offer": on_media_offer,
    "media_set_enabled": on_media_set_enabled,
    "admin_update_server": on_admin_update_server,
    **{
        kind: on_admin
        for kind in inbound.KNOWN_TYPES
        if kind.startswith("admin_") and kind != "admin_update_server"
    },
}
