"""The SideQuest contract: a second protocol over the same tables (docs/sidequest.md).

A SideQuest client speaks `{type, payload, player_id}` messages on `/ws`. This module
is its carrier: it turns the client's messages into loreweaver frames for a
`SessionCore` (so the key check, the room's turn, rate limits, replay, presence and
every table rule are the same ones), and the session's frames back into the
contract's messages. A SideQuest player and a loreweaver player at one table see one
story.

The contract has no credential; this server admits nobody without a key: it comes as
`payload.key` of the connect, or the `key` query parameter of the URL.
"""

from __future__ import annotations

import json
import logging
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from django.conf import settings
from pydantic import ValidationError

from base.i18n import _, say
from keeper.commands import Refused
from keeper.sidequest_services import background_of, newest_lore_id
from loreweaver.wire import sidequest_replay as replays
from loreweaver.wire.consumers import OVERSIZE_ANSWER, WebSocketCarrier
from loreweaver.wire.protocol.sidequest import (
    Action,
    Connect,
    Creation,
    JournalRequest,
    Seat,
    Unplayable,
    parse,
)
from loreweaver.wire.seats import log_failure
from loreweaver.wire.session import PRE_JOIN_LIMIT, SessionCore
from loreweaver.wire.sidequest_commands import ClientCommands
from loreweaver.wire.sidequest_creation import CharacterCreation
from loreweaver.wire.sidequest_lobby import world_of_game
from loreweaver.wire.sidequest_opening import OpeningScene
from loreweaver.wire.sidequest_table import (
    audio_cue,
    character_state,
    dice_line,
    footnotes,
    guest_seat_allowed,
    items_depleted,
    items_gained,
    map_update,
    media_link,
    message,
    party_member,
    plain_text,
    public_origin,
    quest_log,
    quests_completed,
    quests_opened,
    resources_at_minimum,
    state_delta,
)
from rooms.guests import (
    GuestRefused,
    NewSeatNeeded,
    guest_cookie,
    guest_seat,
    guest_token_from,
    new_guest_token,
)

log = logging.getLogger(__name__)

# The join errors after which the socket closes (the contract's "reconnect_required").
_FATAL = ("bad_key", "join_timeout", "too_many_connections")


# The client's confrontation messages (a beat, its dice, yielding): the client ends its
# wait at the NARRATION_END that follows this.
_UNPLAYABLE_NOTICE = _(
    "This table has no confrontations: the Keeper settles conflicts as the story goes. "
    "Say what your character does, or roll with .r 1d20."
)


class SideQuestConsumer(CharacterCreation, ClientCommands, OpeningScene, WebSocketCarrier):
    """A SideQuest client on `/ws`: a carrier for `SessionCore` that speaks the
    contract on the client's side.

    Every message is handled inside the same containment as the session's own frames:
    nothing raises out of `receive` (daphne would drop the consumer without calling
    `disconnect`, and the connection's slot and presence would never be given back).
    Before a join is accepted nothing is played: a refused join closes the connection,
    and what arrives meanwhile is answered with `ERROR` or, once closing, dropped.
    """

    label = "sidequest"
    replays_answers = True  # the join's replay also holds the commands' answers to the table

    async def connect(self) -> None:
        """Accept, and let the session run the handshake (cap, join deadline)."""
        self.session = SessionCore(self)
        self.ended = False  # the socket is closing: nothing more is read or written
        self.connect_sent = False  # a connect was handed to the session as its join
        self.name = ""
        self.state: dict | None = None
        self.gained: list[dict] = []  # items gained since the last NARRATION_END told them
        self.scene = ""
        self.in_combat = False
        self.mine: str | None = None  # my action, until the game says it is done with it
        # Which of the session's inputs my action is (`MemberInputs.taken`); None when
        # the session did not take it (refused before the game saw it).
        self.mine_input: int | None = None
        self.gm = False  # my action is a `/gm` command
        self.rolls: list[str] = []
        self.creation: dict | None = None
        self.making: list[str] | None = None  # the answers while the table makes the character
        self.lore_before = 0  # the room's newest lore entry when my turn began
        self.you: dict = {}
        self.backstory = ""  # the viewer's character's background, for its sheet
        self.turn_actor: str | None = None  # whose line the Keeper's turn answers
        self.own_lines = True  # the join's replay tells my own lines (the page kept none)
        self.seqs: dict[str, int] = {}  # the replayed lines' numbers, by frame id
        # The join's replay arrives before the first `state`: held, and told after the
        # connect's answer (the client clears its story when `ready` comes).
        self.held: list[dict] | None = []
        self.replaced = ""  # the line that says what replaced the room's story, held until told
        self.restarted = False  # the room's story was replaced: the page starts over
        self.query_key = (parse_qs(self.scope.get("query_string", b"").decode()).get("key") or [None])[0]
        # The browser's secret a guest's seat is bound to (rooms/guests.py): the cookie it
        # sends, or a new one given to it in the handshake's answer.
        cookie = b"; ".join(value for name, value in self.scope.get("headers", []) if name == b"cookie")
        self.guest_token = guest_token_from(cookie.decode("latin-1"))
        answer_headers = None
        if self.guest_token is None:
            self.guest_token = new_guest_token()
            answer_headers = [(b"set-cookie", guest_cookie(self.guest_token).encode("latin-1"))]
        # Before the accept, so it holds from the first message: a message over the cap
        # (never lifted here: no contract message comes near it) is refused in the
        # contract's shape, then the protocol closes with 1009.
        too_big = say(
            self.session.locale, _("A message here is at most {kib} KiB."), kib=PRE_JOIN_LIMIT // 1024
        )
        await self.base_send({"type": OVERSIZE_ANSWER, "text": self._error_message(too_big)})
        await self.accept(headers=answer_headers)
        await self.session.open()

    async def disconnect(self, code: int) -> None:
        """The client went away: the session gives back the slot and the presence."""
        self.ended = True
        await self.session.closed()

    async def admitted(self) -> None:
        """Nothing to lift: this carrier holds its own caps."""

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        """Close the socket; nothing is read or written on it after this."""
        self.ended = True
        await super().close(code=code, reason=reason)

    async def abort(self) -> None:
        """Close at once (the client stopped reading)."""
        self.ended = True
        await super().abort()

    # --- the client's messages --------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Handle one message of the client; no failure escapes (see the class)."""
        if self.ended:
            return
        try:
            await self._receive(text_data)
        except Exception as exc:
            log_failure(exc, "connection=%s could not handle a SideQuest message", self.session.connection_id)
            if self.session.seat is None:
                await self.session.fail("server_error")  # closes: `disconnect` cleans up
            else:
                self.session.send_error("server_error")  # an `ERROR`; the connection stays

    async def _receive(self, text_data: str | None) -> None:
        if self.connect_sent and self.session.seat is None:
            return  # the join was refused: the connection is closing, its reason on the way
        if text_data is None or len(text_data) > PRE_JOIN_LIMIT:
            await self._error(
                say(
                    self.session.locale,
                    _("A message must be one JSON text of at most {kib} KiB."),
                    kib=PRE_JOIN_LIMIT // 1024,
                )
            )
            return
        try:
            parsed = parse(text_data)
        except ValidationError as invalid:
            first = invalid.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "message"
            # pydantic's own reason stays as it says it (English): it names the contract's fields.
            await self._error(
                say(
                    self.session.locale,
                    _("Not a valid message: {where}: {why}"),
                    where=where,
                    why=first["msg"],
                )
            )
            return
        if isinstance(parsed, Connect):
            await self._connect(parsed)
        elif self.session.seat is None:
            # No join was accepted (yet): nothing is played for this connection.
            await self._error(
                say(self.session.locale, _("Send SESSION_EVENT connect first.")), reconnect_required=True
            )
        elif isinstance(parsed, Action):
            await self._action(parsed)
        elif isinstance(parsed, Creation):
            await self._create(parsed)
        elif isinstance(parsed, JournalRequest):
            await self._journal(parsed)
        elif isinstance(parsed, Seat):
            # The current client takes a seat after creation; a member's seat here is the key.
            seat = {"player_id": self.you.get("id", ""), "character_slot": parsed.character_slot}
            await self._send(message("SEAT_CONFIRMED", seat))
        elif isinstance(parsed, Unplayable):
            await self._narrate(say(self.session.locale, _UNPLAYABLE_NOTICE))
            await self._send(message("NARRATION_END", {"state_delta": self._delta()}))
        # VOICE_SIGNAL: nothing this server keeps.

    async def _connect(self, connect: Connect) -> None:
        if self.connect_sent:
            # The client may send its connect again on the same socket (the contract-era
            # client does, 300 ms after the first): it is answered as the first was.
            if self.session.seat is not None and self.state is not None:
                await self._greet(again=True)
            return
        key = connect.key or self.query_key
        world = connect.world
        if connect.game_slug and not key:
            # The current client names the game by the slug its lobby handed out.
            world = await database_sync_to_async(world_of_game)(connect.game_slug) or ""
        if not key and world:
            # A room the operator opened to any name admits a guest as a player.
            key = await self._guest_key(world, connect.player_name)
            if key is None:
                return  # refused, and told why: the socket is closing
        if not key:
            await self._refuse(
                _(
                    "This server admits players with an access key (payload.key or ?key=), "
                    "or to a room its operator opened to any name."
                )
            )
            await self.close()
            return
        self.connect_sent, self.name = True, connect.player_name.strip()
        self.own_lines = replays.tells_own_lines(
            game_slug=connect.game_slug, last_seen_given="last_seen_seq" in connect.model_fields_set
        )
        join: dict = {"type": "join", "key": key, "client": {"name": "sidequest", "version": "1"}}
        if self.name:
            join["name"] = self.name
        # The whole handshake runs here: afterwards the session has a seat, or it is
        # closing with the reason (`bad_key`, `too_many_connections`, ...) on its way.
        await self.session.receive_text(json.dumps(join))

    async def _guest_key(self, world: str, name: str) -> str | None:
        """The key of this browser's seat in the open room `world` (made if it has none,
        within the address's allowance); None once a refusal was told and the socket
        is closing."""
        seated = database_sync_to_async(guest_seat)
        try:
            try:
                return await seated(room_name=world, name=name, token=self.guest_token, may_create=False)
            except NewSeatNeeded:
                if not await guest_seat_allowed(self.peer):
                    raise GuestRefused(
                        "too_many_guests",
                        _("Too many new guests came from your address; try again in an hour."),
                    ) from None
                return await seated(room_name=world, name=name, token=self.guest_token)
        except GuestRefused as refused:
            if refused.code == "not_open":
                return ""  # told as a connect without a key
            self.connect_sent = True  # nothing more is read: the socket is closing
            await self._error(refused.message(self.session.locale))
            await self.close()
            return None

    async def _action(self, action: Action) -> None:
        text = action.action.strip()
        if not text:
            await self._error(say(self.session.locale, _("An action needs some text.")))
            return
        if action.aside:
            # Out of character: shown to the table as said, never narrated.
            text = f"(( {text} ))"
        elif text.startswith("/"):
            await self._slash(text)
            return
        self.mine, self.rolls, self.gm = text, [], False
        self.lore_before = await database_sync_to_async(newest_lore_id)(self.session.seat.room_id)
        await self._send(message("THINKING"))
        await self.play_mine(text)

    # --- the table's frames -----------------------------------------------------

    async def send_text(self, text: str) -> None:
        """A loreweaver frame from the session, told as the contract's messages (a
        failure costs that frame only: the connection goes on)."""
        try:
            await self._tell(json.loads(text))
        except Exception as exc:
            log_failure(
                exc, "connection=%s could not tell a frame to a SideQuest client", self.session.connection_id
            )

    async def send_refusal(self, text: str, code: str) -> None:
        """A command the game refused: a `/gm` command refused as a keeper's is an
        `ERROR` (the contract's word for it); any other refusal is told as a line."""
        if code == Refused.KEEPER_ONLY and self.gm and self.mine is not None:
            await self._error(json.loads(text).get("text", ""))
            return
        await self.send_text(text)

    async def _tell(self, frame: dict) -> None:
        kind = frame.get("type")
        if self.held is not None and kind in ("narrative", "dice", "media"):
            self.held.append(frame)
            return
        if self.held is not None and kind == "system" and self.state is None and self.you:
            self.replaced = frame.get("text", "")  # what replaced the story: told after it
            return
        if kind == "welcome":
            self.you = frame["you"]
            # Footnotes count as new only for facts established after the join.
            if self.session.seat is not None:
                self.lore_before = await database_sync_to_async(newest_lore_id)(self.session.seat.room_id)
        elif kind == "error":
            fatal = frame.get("code") in _FATAL
            if self.mine is not None and not fatal:
                await self._end_turn()
            await self._error(frame.get("message", ""), reconnect_required=False)
        elif kind == "narrative":
            await self._narrative(frame)
        elif kind == "dice":
            self.rolls.append(dice_line(frame, self.session.locale))
        elif kind == "turn_status":
            await self._turn_status(frame)
        elif kind == "state":
            await self._on_state(frame)
        elif kind == "audio_control":
            await self._send(message("AUDIO_CUE", audio_cue(frame)))
        elif kind == "media" and str(frame.get("mime", "")).startswith("image/") and self.session.seat:
            await self._send(message("IMAGE", self._image(frame)))

    async def _turn_status(self, frame: dict) -> None:
        """The Keeper's turn for someone's line: `active` while it runs (the client shows
        whose turn it is), `resolved` when it ends."""
        if frame.get("status") == "busy":
            if self.turn_actor == frame.get("actor", ""):
                return  # the same turn, told again (a queued line, then the Keeper)
            self.turn_actor = frame.get("actor", "")
            status = {"player_name": self.turn_actor, "status": "active"}
        elif frame.get("status") == "idle" and self.turn_actor is not None:
            status, self.turn_actor = {"player_name": self.turn_actor, "status": "resolved"}, None
        else:
            return
        await self._send(message("TURN_STATUS", {**status, "state_delta": state_delta(self.state)}))

    async def round_status(self, actor: str, waiting: list[str]) -> None:
        """A structured round (`SessionCore` asks the carrier): `actor` has acted."""
        await self._send(
            message(
                "TURN_STATUS",
                {"player_name": actor, "status": "resolved", "state_delta": state_delta(self.state)},
            )
        )

    async def _narrative(self, frame: dict, *, replayed: bool = False) -> None:
        text, speaker = frame.get("text", ""), frame.get("speaker")
        if not text:
            return
        if self.making is not None and not replayed:
            if speaker == "system":
                self.making.append(text)  # the answers of the commands that make it
                return
            if speaker == "player" and frame.get("name") == self.you.get("name"):
                return  # the commands themselves
        if speaker == "player":
            mine = self.mine is not None and frame.get("name") == self.you.get("name")
            if mine and (text == self.mine or self.mine.startswith(".")):
                return  # my own action, echoed: not narrated back to me
            await self._narrate(f"{frame.get('name', '')}: {text}", seq=await self._seq(frame))
            return
        if frame.get("format") == "markdown":
            text = plain_text(text)
        notes: list[dict] = []
        if speaker == "npc":
            text = f"{frame.get('name', '')}: {text}"
        elif speaker == "kp" and self.session.seat is not None:
            room_id = self.session.seat.room_id
            notes, self.lore_before = await database_sync_to_async(footnotes)(room_id, text, self.lore_before)
        if speaker == "system":
            self.rolls = []  # a command's answer tells its own rolls
        elif self.rolls:
            text = "\n".join(self.rolls) + "\n\n" + text
            self.rolls = []
        await self._narrate(text, notes, seq=await self._seq(frame))

    async def _on_state(self, state: dict) -> None:
        if state.get("reset"):
            # The room's story was replaced (a restore, a reset): the session shows it
            # whole, then a fresh state, which is greeted as a join's (the page starts
            # over at `ready`: the story again, my own lines too, then the party).
            self.state, self.held, self.creation, self.own_lines = None, [], None, True
            self.restarted = True
            return
        first, before = self.state is None, self.state
        self.state = state
        if before is not None:
            await self._changes(before, state)
        if self.making is not None:
            await self._made(state)
        if first:
            if not state.get("character"):
                self.creation = {"step": 0}
            elif self.session.seat is not None:
                seat = self.session.seat
                self.backstory = await database_sync_to_async(background_of)(
                    seat.room_id, seat.member.member_id
                )
            await self._greet(restarted=self.restarted)
            self.restarted = False
            await self._replay(self.held or [])
            if self.replaced:
                await self._narrate(self.replaced)
                self.replaced = ""
            elif self.creation is None:
                await self._open_story()  # ready, in a room whose story has not begun
        scene = (state.get("scene") or {}).get("name", "")
        if scene and scene != self.scene and not first:
            await self._send(message("CHAPTER_MARKER", {"title": scene, "location": scene}))
            await self._send(message("MAP_UPDATE", map_update(scene)))  # the party moved
        self.scene = scene
        await self._send(message("PARTY_STATUS", self._party(state)))
        order = state.get("initiative") or []
        if order or self.in_combat:
            self.in_combat = bool(order)
            current = next((entry["name"] for entry in order if entry.get("current")), "")
            combat = {"in_combat": self.in_combat, "enemies": [], "turn_order": [e["name"] for e in order]}
            await self._send(message("COMBAT_EVENT", {**combat, "current_turn": current}))
        if self.gained and self.mine is None:
            # Items came from someone else's turn (a gift, the Keeper): told at once.
            await self._send(message("NARRATION_END", {"state_delta": self._delta()}))

    async def _changes(self, before: dict, after: dict) -> None:
        """What the contract tells as events of their own, from two states in a row:
        items used up, resources at their minimum, quests completed; and the items
        gained, for the next `NARRATION_END`."""
        mine, now = before.get("character") or {}, after.get("character") or {}
        self.gained += items_gained(mine, now)
        for depleted in items_depleted(mine, now):
            await self._send(message("ITEM_DEPLETED", depleted))
        for reached in resources_at_minimum(mine, now):
            await self._send(message("RESOURCE_MIN_REACHED", reached))
        for earned in quests_completed(before, after):
            await self._send(message("ACHIEVEMENT_EARNED", earned))
        if quests_opened(before, after):
            await self._tell_quests()

    def _delta(self) -> dict:
        """The state delta for a `NARRATION_END`: it carries (and so clears) the items gained."""
        gained, self.gained = self.gained, []
        return state_delta(self.state, gained)

    async def _replay(self, held: list[dict]) -> None:
        """The join's replay, told as `sidequest_replay.telling` says (my own lines as my
        actions, a roll where it was told live), then the journal's open quests."""
        self.held = None
        seat = self.session.seat
        ids = [f["id"] for f in held if f["type"] == "narrative" and f.get("id")]
        lines = await database_sync_to_async(replays.story_lines)(ids, seat.member.member_id if seat else "")
        if settings.TRPG_SIDEQUEST_CLIENT == "current":
            self.seqs = lines.seqs
        for how, frame in replays.telling(held, lines.mine, own_lines=self.own_lines):
            if how == replays.MINE:
                action = replays.own_action(frame.get("text", ""))
                seq = await self._seq(frame)
                await self._send(message("PLAYER_ACTION", action if seq is None else {**action, "seq": seq}))
            elif how == replays.LINE:
                await self._narrative(frame, replayed=True)
            elif how == replays.ROLL_ON_TOP:
                self.rolls.append(dice_line(frame, self.session.locale))
            elif how == replays.ROLL:
                await self._narrate(dice_line(frame, self.session.locale))
            else:
                await self._tell(frame)
        await self._tell_quests()

    async def _greet(self, *, again: bool = False, restarted: bool = False) -> None:
        """The answer to a connect: `ready` for a member with a character, else
        `connected` and the creation scene they are at. Again: with the party.
        Restarted (the room's story was replaced): both client generations clear their
        story only at a `ready` that follows another phase, so `connected` comes first."""
        state = self.state or {}
        if self.creation is None and state.get("character"):
            if restarted:
                await self._send(message("SESSION_EVENT", {"event": "connected", "has_character": False}))
            initial = {
                "characters": [character_state(state["character"])],
                "location": (state.get("scene") or {}).get("name", ""),
                "quests": quest_log(state),
                "turn_count": 0,
            }
            await self._send(message("SESSION_EVENT", {"event": "ready", "initial_state": initial}))
            if again:
                await self._send(message("PARTY_STATUS", self._party(state)))
        else:
            await self._send(message("SESSION_EVENT", {"event": "connected", "has_character": False}))
            await self._creation_step()

    def _party(self, state: dict) -> dict:
        return {"members": [self._member(m) for m in state.get("party") or []]}

    async def _end_turn(self) -> None:
        """`NARRATION_END`, always, even after a failed turn."""
        if self.rolls:
            await self._narrate("\n".join(self.rolls))
            self.rolls = []
        self.mine, self.gm = None, False
        await self._send(message("NARRATION_END", {"state_delta": self._delta()}))

    async def input_done(self, number: int | None) -> None:
        """The game is done with my input `number`, all of whose frames are told: a
        command's answer, a line a human keeper will narrate, or the Keeper's whole turn.
        My action's turn ends with its own input, not with one sent before it (the
        commands that made my character may end after my first action began)."""
        if self.mine is not None and (number is None or self.mine_input in (None, number)):
            await self._end_turn()

    async def _seq(self, frame: dict) -> int | None:
        """The line's number in the room's story, for the current client (which keeps
        what it has seen by `seq`, and names the last at its connect)."""
        if settings.TRPG_SIDEQUEST_CLIENT != "current" or not frame.get("id"):
            return None
        if frame["id"] in self.seqs:  # looked up with the join's replay
            return self.seqs[frame["id"]]
        return (await database_sync_to_async(replays.line_numbers)([frame["id"]])).get(frame["id"])

    async def _narrate(self, text: str, notes: list[dict] | None = None, seq: int | None = None) -> None:
        payload = {"text": text, "state_delta": state_delta(self.state), "footnotes": notes or []}
        if seq is not None:
            payload["seq"] = seq
        await self._send(message("NARRATION", payload))

    def _member(self, member: dict) -> dict:
        return party_member(
            member, self.state, self.you.get("id", ""), self.name or self.you.get("name", ""), self.backstory
        )

    def _image(self, frame: dict) -> dict:
        return {
            "url": public_origin(self.scope) + media_link(self.session.seat.room_id, frame["hash"]),
            "description": frame.get("name", ""),
            "handout": True,
            "render_id": frame.get("id", ""),
            "tier": "scene",
        }

    @staticmethod
    def _error_message(text: str, *, reconnect_required: bool = False) -> str:
        return message("ERROR", {"message": text, "reconnect_required": reconnect_required})

    async def _refuse(self, text: str, **values: object) -> None:
        """`ERROR` with a marked text, in the viewer's language."""
        await self._error(say(self.session.locale, text, **values))

    async def _error(self, text: str, *, reconnect_required: bool = False) -> None:
        await self._send(self._error_message(text, reconnect_required=reconnect_required))

    async def _send(self, text: str) -> None:
        if self.ended:
            return
        try:
            await self.send(text_data=text)
        except Exception as exc:
            # The protocol refuses a send once its close began (autobahn's Disconnected).
            log.info("connection=%s write failed (%r); closing", self.session.connection_id, exc)
            self.ended = True

    async def send_bytes(self, data: bytes) -> None:
        """Media replies have no place in this contract."""
