"""The Keeper's tools: what a model may do besides talking.

Every die goes through the game's one API (`keeper/game.py`), the same functions the
typed commands (`.r`, `.ra`, `.sc`, `.rav`, `.ri`) call, with the model's arguments
passed straight in and run as the character concerned, so a tool roll and a typed
roll cannot differ. A tool returns the text the model reads and the frames the table sees
(built from the structured result, never from that text). `activity` is the coarse
kind the table is told about; a tool's name never leaves the server.
"""

from __future__ import annotations

from django.db import connection

from base.i18n import Refusal
from keeper import characters, game, lore, variables
from keeper.dice import DiceError
from keeper.kp import item_tools, stage
from keeper.kp.tool_kinds import INT as _INT
from keeper.kp.tool_kinds import TEXT as _TEXT
from keeper.kp.tool_kinds import Tool, ToolContext, ToolOutcome
from keeper.kp.tool_kinds import schema as _schema
from keeper.models import Character, KeeperNote, LoreEntry, Story, TableSettings
from keeper.rules.outcome import Outcome
from rooms.models import AccessKey, TranscriptEntry

__all__ = ["Tool", "ToolContext", "ToolOutcome"]  # where the turn loop and the tests find them

KEEPER_NAME = "Keeper"
# The DC a d20 check gets when the model names none.
DEFAULT_DC = 15


def find_character(room_id: int, name: str) -> Character | None:
    """An active character of the room by name (case-insensitive), or a pregen, or the
    active character of the member of that name (the model reads the players' lines under
    their own names): a roll for them is their character's."""
    name = (name or "").strip()
    if not name:
        return None
    found = Character.objects.filter(room_id=room_id, active=True, name__iexact=name).first()
    found = found or Character.objects.filter(room_id=room_id, name__iexact=name).first()
    if found is None:
        members = AccessKey.objects.filter(room_id=room_id, name__iexact=name).values("member_id")
        found = Character.objects.filter(room_id=room_id, active=True, owner__in=members).first()
    return found


def _actor(context: ToolContext, character: Character | None, fallback_name: str) -> game.Actor:
    """Who a tool rolls for: the character (by its name, with its sheet), else the name
    the model gave (someone without a sheet), else the Keeper."""
    if character is not None:
        return game.Actor(context.room_id, character.name, character)
    return game.Actor(context.room_id, fallback_name or KEEPER_NAME)


def _verdict(outcome: Outcome | None) -> str:
    """A check's result spelled out for the model."""
    if outcome is None:
        return ""
    return " (success)" if outcome.success else " (failure)"


def _roll_dice(arguments: dict, context: ToolContext) -> ToolOutcome:
    expression = str(arguments.get("expression") or "").strip()
    if not expression:
        return ToolOutcome("give an expression, such as 1d6+1")
    who = str(arguments.get("actor") or "")
    actor = _actor(context, find_character(context.room_id, who), who)
    try:
        rolled = game.roll(actor, expression, hidden=bool(arguments.get("hidden")))
    except (DiceError, game.GameError) as refused:
        return ToolOutcome(refused.message("en"))
    totals = ", ".join(r.breakdown for r in rolled.results)
    return ToolOutcome(f"{actor.name} rolls {totals}", _table(rolled))


def _table(played: game.Played) -> list[tuple[dict, bool]]:
    return [(event.frame, event.keepers_only) for event in played.events]


def _skill_check(arguments: dict, context: ToolContext) -> ToolOutcome:
    # Models write "Spot Hidden" or "侦查": the pack knows its skills by those names too.
    skill = " ".join(str(arguments.get("skill") or "").split())
    if not skill or any(ch.isdigit() for ch in skill):
        return ToolOutcome("name the skill, without a number")
    who = str(arguments.get("character") or "")
    character = find_character(context.room_id, who)
    value = arguments.get("value")
    if character is None and not isinstance(value, int):
        return ToolOutcome(f"no character called {who!r}; give `value` to roll for someone without a sheet")
    counts = {}
    for kind in ("bonus", "penalty"):
        count = arguments.get(f"{kind}_dice")
        counts[kind] = count if isinstance(count, int) and 0 < count <= 2 else 0
    difficulty = str(arguments.get("difficulty") or "regular").lower()
    try:
        checked = game.skill_check(
            _actor(context, character, who),
            skill,
            value=value if isinstance(value, int) and 0 <= value <= game.MAX_VALUE else None,
            difficulty=difficulty if difficulty in ("hard", "extreme") else "regular",
            bonus=counts["bonus"],
            penalty=counts["penalty"],
            dc=arguments["dc"] if isinstance(arguments.get("dc"), int) else DEFAULT_DC,
        )
    except game.GameError as refused:
        return ToolOutcome(refused.message("en"))
    label = checked.outcome.as_wire("en")["label"] if checked.outcome else ""
    against = f"/{checked.target}" if checked.target is not None else ""
    name = _actor(context, character, who).name
    text = f"{name}: {checked.skill} {checked.total}{against} {label}".rstrip()
    return ToolOutcome(text + _verdict(checked.outcome), _table(checked))


def _sanity_check(arguments: dict, context: ToolContext) -> ToolOutcome:
    character = find_character(context.room_id, str(arguments.get("character") or ""))
    if character is None or not character.owner:
        return ToolOutcome("sanity checks are for player characters; name one")
    success, failure = str(arguments.get("success_loss") or "0"), str(arguments.get("failure_loss") or "1")
    if " " in success + failure:
        return ToolOutcome("losses are dice expressions without spaces, such as 1 and 1d6")
    try:
        checked = game.sanity_check(_actor(context, character, ""), success, failure)
    except (DiceError, game.GameError) as refused:
        return ToolOutcome(refused.message("en"))
    result = checked.result
    assert result is not None
    text = (
        f"{character.name}: sanity {result.roll.value}/{checked.sanity}, "
        f"loses {result.loss} ({result.remaining} left)"
    )
    return ToolOutcome(text + _verdict(result.outcome), _table(checked))


def _side(arguments: dict, side: str, context: ToolContext) -> game.Side | str:
    who = str(arguments.get(side) or "").strip() or side
    skill = str(arguments.get(f"{side}_skill") or "").strip()
    value = arguments.get(f"{side}_value")
    character = find_character(context.room_id, who)
    if not isinstance(value, int):
        found = characters.sheet_value(character, skill) if character and skill else None
        if found is None:
            return f"give {side}_value for {who}"
        value = found[1]
    return game.Side(who, max(0, min(int(value), game.MAX_VALUE)))


def _opposed_check(arguments: dict, context: ToolContext) -> ToolOutcome:
    left, right = _side(arguments, "left", context), _side(arguments, "right", context)
    if isinstance(left, str) or isinstance(right, str):
        return ToolOutcome(left if isinstance(left, str) else str(right))
    try:
        result = game.opposed_check(_actor(context, None, context.actor_name), left, right)
    except game.GameError as refused:
        return ToolOutcome(refused.message("en"))
    winner = (
        "a tie" if result.winner == "tie" else f"{(left if result.winner == 'left' else right).name} wins"
    )
    text = f"{left.name} {result.rolls[0]} vs {right.name} {result.rolls[1]}: {winner}"
    return ToolOutcome(text, _table(result))


def _initiative(arguments: dict, context: ToolContext) -> ToolOutcome:
    action = str(arguments.get("action") or "list").lower()
    who = str(arguments.get("name") or "")
    if action == "roll":
        try:
            rolled = game.initiative_roll(_actor(context, find_character(context.room_id, who), who))
        except game.GameError as refused:
            return ToolOutcome(refused.message("en"))
        return ToolOutcome(f"{rolled.name} rolls initiative: {rolled.value}", _table(rolled))
    if action == "next":
        following = game.initiative_next(context.room_id)
        return ToolOutcome(f"{following.name} acts now" if following else "no initiative rolled yet")
    if action == "clear":
        game.initiative_clear(context.room_id)
        return ToolOutcome("initiative cleared")
    if action == "list":
        order = game.initiative_order(context.room_id)
        return ToolOutcome("\n".join(f"{e.name} {e.value}" for e in order) or "no initiative rolled yet")
    return ToolOutcome("action is one of roll, next, list, clear")


def _update_character(arguments: dict, context: ToolContext) -> ToolOutcome:
    who = str(arguments.get("character") or "")
    character = find_character(context.room_id, who)
    if character is None:
        return ToolOutcome(f"no character called {who!r}")
    said = []
    resource, change = str(arguments.get("resource") or "").strip(), arguments.get("change")
    if resource and isinstance(change, int) and change:
        try:
            key, old, new = characters.sheet_change(
                character, resource, "+" if change > 0 else "-", abs(change)
            )
        except characters.SheetError as refused:
            return ToolOutcome(refused.message("en"))
        said.append(f"{key} {old} -> {new}")
    for word, adding in (("add_status", True), ("remove_status", False)):
        status = str(arguments.get(word) or "").strip()[:40]
        if not status:
            continue
        effects = [s for s in character.status_effects if s != status]
        character.status_effects = [*effects, status] if adding else effects
        character.save(update_fields=["status_effects"])
        said.append(("+" if adding else "-") + status)
    return ToolOutcome(f"{character.name}: {', '.join(said) or 'unchanged'}")


def _set_scene(arguments: dict, context: ToolContext) -> ToolOutcome:
    story = Story.of(context.room_id)
    story.scene_name = str(arguments.get("name") or "").strip()[:200]
    story.scene_focus = str(arguments.get("focus") or "").strip()[:200]
    story.save(update_fields=["scene_name", "scene_focus"])
    return ToolOutcome(f"scene: {story.scene_name or '(none)'}")


def _advance_clock(arguments: dict, context: ToolContext) -> ToolOutcome:
    minutes = arguments.get("minutes")
    if not isinstance(minutes, int) or not 0 <= minutes <= 60 * 24 * 365:
        return ToolOutcome("minutes is a whole number from 0 to a year")
    story = Story.of(context.room_id)
    before = story.clock_text()
    story.clock_minutes = (story.clock_minutes or 0) + minutes
    story.save(update_fields=["clock_minutes"])
    advance = {"from": before, "to": story.clock_text(), "delta": f"{minutes} minutes", "minutes": minutes}
    return ToolOutcome(f"it is now {advance['to']}", happened=[("clock_advanced", advance)])


def _keeper_note(arguments: dict, context: ToolContext) -> ToolOutcome:
    text = str(arguments.get("text") or "").strip()[:2000]
    if not text:
        return ToolOutcome("the note is empty")
    KeeperNote.objects.create(room_id=context.room_id, text=text)
    return ToolOutcome("noted (keeper-only)", keeper_notice=text)


def _recall(arguments: dict, context: ToolContext) -> ToolOutcome:
    query = str(arguments.get("query") or "").strip()
    lines = TranscriptEntry.objects.filter(room_id=context.room_id, text__icontains=query).order_by("-id")[:5]
    found = [f"{line.name or line.speaker}: {line.text[:300]}" for line in reversed(lines)]
    return ToolOutcome("\n".join(found) or "nothing about that yet")


def _read_variables(arguments: dict, context: ToolContext) -> ToolOutcome:
    lines = []
    for entry in variables.entries(context.room_id):
        bounds = (
            f" ({entry.get('min', '')}..{entry.get('max', '')})" if "min" in entry or "max" in entry else ""
        )
        seen = "players see it" if entry["exposed"] else "keepers only"
        lines.append(f"{entry['id']} = {entry['value']!r}{bounds}, {entry['kind']}, {seen}")
    return ToolOutcome("\n".join(lines) or "this room has no module variables")


def _set_variable(arguments: dict, context: ToolContext) -> ToolOutcome:
    var_id = str(arguments.get("id") or "").strip()
    if variables.find(context.room_id, var_id) is None:
        return ToolOutcome(f"there is no variable {var_id!r}; read_variables lists them")
    try:
        if isinstance(arguments.get("add"), int) and not isinstance(arguments.get("add"), bool):
            variable, old, stopped = variables.add(context.room_id, var_id, arguments["add"])
            return ToolOutcome(
                f"{var_id}: {old} -> {variable.value}" + (" (stopped at its bound)" if stopped else ""),
                happened=[("variables_changed", {"path": var_id, "op": "add"})],
            )
        if "value" not in arguments:
            return ToolOutcome("give `value`, or `add` for a number")
        variable, old = variables.set_value(context.room_id, var_id, arguments["value"])
    except Refusal as refused:
        return ToolOutcome(refused.message("en"))
    changed = [("variables_changed", {"path": var_id, "op": "set"})]
    return ToolOutcome(f"{var_id}: {old!r} -> {variable.value!r}", happened=changed)


def _remember(arguments: dict, context: ToolContext) -> ToolOutcome:
    keywords = arguments.get("keywords") or []
    if isinstance(keywords, str):
        keywords = keywords.split(",")
    keywords = [str(keyword).strip() for keyword in keywords if str(keyword).strip()]
    secret = arguments.get("secret") is True
    visibility = LoreEntry.Visibility.KEEPERS if secret else LoreEntry.Visibility.EVERYONE
    try:
        entry = lore.write(
            context.room_id,
            str(arguments.get("title") or ""),
            keywords,
            str(arguments.get("content") or ""),
            visibility=visibility,
            source="keeper",
        )
    except Refusal as refused:
        return ToolOutcome(refused.message("en"))
    return ToolOutcome(f"remembered {entry.title!r}" + (" (keeper-only)" if secret else ""))


def _present(arguments: dict, context: ToolContext) -> ToolOutcome:
    frame, result = stage.presentation(context.room_id, arguments)
    return ToolOutcome(result, ui=[frame] if frame else [])


_CHARACTER = {"type": "string", "description": "the character's name"}
_DIFFICULTY = {"type": "string", "enum": ["regular", "hard", "extreme"]}

TOOLS: dict[str, Tool] = {
    t.name: t
    for t in (
        Tool(
            "roll_dice",
            "dice",
            "Roll dice with the table's dice engine (1d6+2, 3d6, 2d20kh1). Every die roll goes through here.",
            _schema(
                ["expression"],
                expression=_TEXT,
                actor=_TEXT,
                hidden={"type": "boolean", "description": "only the keepers see it"},
            ),
            _roll_dice,
        ),
        Tool(
            "skill_check",
            "dice",
            "A graded skill or characteristic check for a character. "
            "Give `value` only for someone without a sheet.",
            _schema(
                ["character", "skill"],
                character=_CHARACTER,
                skill=_TEXT,
                difficulty=_DIFFICULTY,
                bonus_dice=_INT,
                penalty_dice=_INT,
                value=_INT,
                dc={"type": "integer", "description": "d20 systems: the difficulty class (15 if left out)"},
            ),
            _skill_check,
        ),
        Tool(
            "sanity_check",
            "dice",
            "A sanity check: SAN lost on success and on failure, as dice expressions (0, 1, 1d6).",
            _schema(
                ["character", "success_loss", "failure_loss"],
                character=_CHARACTER,
                success_loss=_TEXT,
                failure_loss=_TEXT,
            ),
            _sanity_check,
        ),
        Tool(
            "opposed_check",
            "dice",
            "Two sides roll against their skills; the better result wins.",
            _schema(
                ["left", "left_skill", "right", "right_skill"],
                left=_TEXT,
                left_skill=_TEXT,
                left_value=_INT,
                right=_TEXT,
                right_skill=_TEXT,
                right_value=_INT,
            ),
            _opposed_check,
        ),
        Tool(
            "initiative_tracker",
            "dice",
            "Combat order: roll initiative for someone, move to the next, list, or clear.",
            _schema(
                ["action"], action={"type": "string", "enum": ["roll", "next", "list", "clear"]}, name=_TEXT
            ),
            _initiative,
        ),
        Tool(
            "speak_as_npc",
            "cast",
            "Let a non-player character speak. `direction` says what they want to get across.",
            _schema(["npc", "direction"], npc=_TEXT, direction=_TEXT),
            None,
        ),
        Tool(
            "draw_image",
            "cast",
            "Draw a picture for the table (a scene, a handout, a map, a face) and show it to everyone. "
            "Describe only what the players may see.",
            _schema(["description"], description=_TEXT, title=_TEXT),
            None,
        ),
        Tool(
            "present",
            "cast",
            "The Stage Director: on a story beat, hand the players a prop as they would see it: "
            "a letter they found, a newspaper clipping, a title card for a new act, a pin on a map "
            "the table has, a picture the table has. Only what the characters hold or see; never a "
            "keeper-only fact. Shown after your narration.",
            _schema(
                ["template"],
                template={"type": "string", "enum": list(stage.TEMPLATES)},
                body={"type": "string", "description": "letter, clipping: the text"},
                headline=_TEXT,
                source={"type": "string", "description": "clipping: the paper"},
                date=_TEXT,
                **{"from": _TEXT},
                to=_TEXT,
                title={"type": "string", "description": "title_card: the title"},
                subtitle=_TEXT,
                act={"type": "string", "description": "title_card: e.g. Act II"},
                picture={"type": "string", "description": "map_pin, image: a picture's title"},
                label={"type": "string", "description": "map_pin: the place"},
                x={"type": "number", "description": "map_pin: 0..1 across the picture"},
                y={"type": "number", "description": "map_pin: 0..1 down the picture"},
                note=_TEXT,
                caption=_TEXT,
                alt=_TEXT,
            ),
            _present,
        ),
        Tool(
            "update_character",
            "bookkeeping",
            "Change a character's resource (hp, san, mp, luck ... by `change`) or status effects.",
            _schema(
                ["character"],
                character=_CHARACTER,
                resource=_TEXT,
                change=_INT,
                add_status=_TEXT,
                remove_status=_TEXT,
            ),
            _update_character,
        ),
        Tool(
            "set_scene",
            "bookkeeping",
            "Set where the story is now.",
            _schema(["name"], name=_TEXT, focus=_TEXT),
            _set_scene,
        ),
        Tool(
            "advance_clock",
            "bookkeeping",
            "Move story time forward.",
            _schema(["minutes"], minutes=_INT),
            _advance_clock,
        ),
        Tool(
            "keeper_note",
            "bookkeeping",
            "Write a note only the keepers will ever see (plans, secrets, consequences).",
            _schema(["text"], text=_TEXT),
            _keeper_note,
        ),
        Tool(
            "read_variables",
            "reading",
            "The room's module variables (day counters, clues, alertness) with their values and bounds.",
            _schema([]),
            _read_variables,
        ),
        Tool(
            "set_variable",
            "bookkeeping",
            "Change a module variable as the story moves: `value` sets it (within its bounds and kind), "
            "`add` adds to a number (stopping at its bounds). "
            "Players see only the variables the keeper exposed.",
            _schema(["id"], id=_TEXT, value={"type": ["integer", "boolean", "string"]}, add=_INT),
            _set_variable,
        ),
        Tool(
            "remember",
            "bookkeeping",
            "Keep a fact of the campaign as lore, so you are reminded of it when it comes up again, "
            "even sessions later: a name, a password, a promise, a place, a clue. `keywords` are the "
            "words that bring it back. `secret`: only for the keepers (never told to players).",
            _schema(
                ["title", "keywords", "content"],
                title=_TEXT,
                keywords={"type": "array", "items": {"type": "string"}},
                content=_TEXT,
                secret={"type": "boolean"},
            ),
            _remember,
        ),
        Tool(
            "recall",
            "reading",
            "Look up earlier lines of the story.",
            _schema(["query"], query=_TEXT),
            _recall,
        ),
        *item_tools.TOOLS,
    )
}


# Tools offered only when the server can do what they ask.
NEEDS_IMAGES = frozenset({"draw_image"})


def specs(*, images: bool = False) -> list[dict]:
    """The tools the model is offered (`draw_image` only with an image endpoint)."""
    return [tool.spec() for tool in TOOLS.values() if images or tool.name not in NEEDS_IMAGES]


def run(name: str, arguments: dict, context: ToolContext) -> ToolOutcome:
    """Run a synchronous tool (in a worker thread). An unknown tool is told, not raised."""
    tool = TOOLS.get(name)
    if tool is None or tool.run is None:
        return ToolOutcome(f"there is no tool called {name}")
    return tool.run(arguments, context)


def activity_of(name: str) -> str:
    """The coarse activity a tool round is announced with."""
    tool = TOOLS.get(name)
    return tool.activity if tool else "bookkeeping"


def room_locale(room_id: int, default: str) -> str:
    """The room's language: the keeper's choice, else `default`."""
    return chosen_language(room_id) or default


def chosen_language(room_id: int) -> str:
    """The language the room's keeper chose (`.language`), "" when none was chosen."""
    # A plain query: every turn asks (a room has one settings row).
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT language FROM {TableSettings._meta.db_table} WHERE room_id = %s", [room_id])
        found = cursor.fetchone()
    return (found[0] if found else "") or ""
