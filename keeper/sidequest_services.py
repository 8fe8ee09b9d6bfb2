"""What the SideQuest carrier (`loreweaver/wire/sidequest*.py`) reads of the game and
writes to it: the rooms opened to any name and the genre each is listed under, the
games players start from the lobby, where a story that has not begun opens, the facts
and quests the party knows and the turns the table saw (its journal and footnotes), and
the command that makes a character. The carrier calls these (in the database thread)
and only turns the answers into the contract's messages (docs/sidequest.md); the
transcript's own answers are `rooms/sidequest_services.py`'s."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from keeper import characters
from keeper.models import UNSEEN_BY_THE_TABLE, ChronicleEntry, LoreEntry, Quest, Story, TableSettings
from keeper.rules.packs import catalog
from rooms.guests import player_game_room
from rooms.models import SIDEQUEST_GENRE_FALLBACK, SIDEQUEST_GENRE_OF_SYSTEM, Room
from rooms.sidequest_services import story_begun

# --- the rooms open to any name -----------------------------------------------------------


def rule_system_of(room: Room) -> str:
    """The rule system `room` plays (its table settings'; a room with none is `coc7`)."""
    table = getattr(room, "table_settings", None)  # rooms listed together select it with them
    return table.system if table else "coc7"


def genre_of(room: Room, chosen: str | None = None) -> str:
    """The SideQuest genre `room` is listed under: the operator's choice (`chosen`
    stands in for it when given), else its rule system's."""
    chosen = room.sidequest_genre if chosen is None else chosen
    if chosen:
        return chosen
    return SIDEQUEST_GENRE_OF_SYSTEM.get(rule_system_of(room), SIDEQUEST_GENRE_FALLBACK)


@dataclass(frozen=True)
class OpenRoom:
    """A room open to any name, as the SideQuest lobby lists it: its genre, the module
    it plays and the scene its story is at, and whether it plays structured rounds."""

    id: int
    name: str
    genre: str
    module_title: str = ""
    scene_name: str = ""
    structured: bool = False


def _listed(room: Room) -> OpenRoom:
    table, story = getattr(room, "table_settings", None), getattr(room, "story", None)
    return OpenRoom(
        id=room.pk,
        name=room.name,
        genre=genre_of(room),
        module_title=story.module_title if story else "",
        scene_name=story.scene_name if story else "",
        structured=bool(table and table.turn_mode == "structured"),
    )


def open_rooms() -> list[OpenRoom]:
    """The rooms the operator opened to any name (a SideQuest connect carries no key,
    so these are the ones it may join), by name."""
    rooms = Room.objects.filter(open_to_all=True).select_related("table_settings", "story")
    return [_listed(room) for room in rooms.order_by("name")]


def open_room(name: str) -> OpenRoom | None:
    """The room called `name`, if it is open to any name."""
    room = Room.objects.filter(name=name, open_to_all=True).select_related("table_settings", "story").first()
    return _listed(room) if room else None


def start_game(world: OpenRoom) -> OpenRoom:
    """A new game a player starts from the lobby in the open room `world`: a room open
    to any name, in the world's genre and rule system (`rooms.guests.GuestRefused` when
    the server holds as many as players may start)."""
    with transaction.atomic():
        room = player_game_room(world_name=world.name, genre=world.genre)
        system = TableSettings.objects.filter(room_id=world.id).values_list("system", flat=True).first()
        if system:
            TableSettings.objects.update_or_create(room=room, defaults={"system": system})
    return OpenRoom(id=room.pk, name=room.name, genre=genre_of(room))


# --- where a story opens ------------------------------------------------------------------


@dataclass(frozen=True)
class StoryStart:
    """What players may know of a story that has not begun: never the module's truth."""

    room_name: str
    module_title: str = ""
    module_intro: str = ""
    scene_name: str = ""


def story_start(room_id: int) -> StoryStart | None:
    """Where the room's story opens, while no line of play has been said (None once one
    has)."""
    if story_begun(room_id):
        return None
    room_name = Room.objects.filter(pk=room_id).values_list("name", flat=True).first() or ""
    story = Story.objects.filter(room_id=room_id).first()
    if story is None:
        return StoryStart(room_name)
    return StoryStart(room_name, story.module_title, story.module_intro, story.scene_name)


# --- what the party knows -----------------------------------------------------------------


@dataclass(frozen=True)
class Known:
    """A fact of the room's lore for everyone, or a quest the party pursues, as a player
    may read it (a quest's `text` is its description)."""

    id: int
    title: str
    text: str
    learned_at: datetime
    keywords: tuple[str, ...] = ()


def lore_for_everyone(room_id: int) -> list[Known]:
    """The room's lore every member may read (never a keeper-only fact), in the lore's
    own order."""
    shared = LoreEntry.objects.filter(room_id=room_id, visibility=LoreEntry.Visibility.EVERYONE)
    return [Known(e.id, e.title, e.content, e.created_at, tuple(e.keywords)) for e in shared]


def pursued_quests(room_id: int) -> list[Known]:
    """The quests in progress the players know of (never a keeper-only one), oldest first."""
    pursued = Quest.objects.filter(room_id=room_id, secret=False, status=Quest.Status.IN_PROGRESS)
    return [Known(q.id, q.name, q.description, q.created_at) for q in pursued.order_by("id")]


def turns_seen(room_id: int) -> list[tuple[str, datetime]]:
    """The turns the table saw, oldest first, each as its scene and when it ended: a
    hidden roll's is the keepers' alone and moves no number."""
    seen = ChronicleEntry.objects.filter(room_id=room_id).exclude(UNSEEN_BY_THE_TABLE)
    return list(seen.order_by("id").values_list("scene", "created_at"))


def newest_lore_id(room_id: int) -> int:
    """The room's newest lore entry (what a turn's new facts come after)."""
    return LoreEntry.objects.filter(room_id=room_id).order_by("-id").values_list("id", flat=True).first() or 0


# --- characters ---------------------------------------------------------------------------


def background_of(room_id: int, member_id: str) -> str:
    """The background of the member's active character (its sheet's backstory)."""
    character = characters.active_character(room_id, member_id)
    return character.background if character else ""


def make_word(room_id: int) -> str:
    """The command that makes a character under the room's rule system (`coc`, `dnd`)."""
    system = TableSettings.of(room_id).system
    pack = catalog().packs.get(system)
    return pack.make_char if pack and pack.make_char else "coc"
