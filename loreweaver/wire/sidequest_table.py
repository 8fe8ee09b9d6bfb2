"""What the SideQuest carrier (`loreweaver/wire/sidequest.py`) asks of the table, and
its HTTP side: the contract's messages, `GET /api/genres`, signed links to a room's
pictures, footnotes from the lore, character creation, and the
state delta read off a loreweaver `state`."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core import signing
from django.http import FileResponse, Http404, HttpRequest
from django.views.decorators.http import require_GET

from base.i18n import _, say
from keeper import lore, sidequest_services
from keeper.rules.packs import catalog
from loreweaver.wire import coordination
from media_store import services as media_services


def message(kind: str, payload: dict | None = None, player_id: str = "") -> str:
    """One contract message, serialized."""
    return json.dumps({"type": kind, "payload": payload or {}, "player_id": player_id}, ensure_ascii=False)


def genres() -> dict[str, dict[str, list[str]]]:
    """`GET /api/genres`: the rooms a SideQuest client can join, by genre. Its connect
    carries no key, so those are the rooms the operator opened to any name; each is a
    world of its genre, and only genres the client knows are ever listed."""
    listed: dict[str, dict[str, list[str]]] = {}
    for room in sidequest_services.open_rooms():
        listed.setdefault(room.genre, {"worlds": []})["worlds"].append(room.name)
    return dict(sorted(listed.items()))


# --- pictures by link -----------------------------------------------------------------

MEDIA_SALT = "sidequest-media"
MEDIA_LINK_SECONDS = 24 * 3600


def media_link(room_id: int, sha256: str) -> str:
    """The path of a signed link to one of the room's pictures, for a member of the
    room (the contract's `IMAGE` carries a URL): it names nothing else, and expires."""
    return "/api/media/" + signing.dumps([room_id, sha256], salt=MEDIA_SALT, compress=True)


def public_origin(scope: dict) -> str:
    """Where the links given to this connection point (`scheme://host`): the operator's
    `TRPG_PUBLIC_URL`; else the connection's own scheme and Host, https when the TLS
    proxy the operator declared (`TRPG_BEHIND_TLS_PROXY`) says so in `X-Forwarded-Proto`,
    as Django trusts it for HTTP (anyone can write the header, so only then). Behind a
    TLS proxy an `http://` link is mixed content a browser refuses to show."""
    if settings.TRPG_PUBLIC_URL:
        return settings.TRPG_PUBLIC_URL
    headers = dict(scope.get("headers") or [])
    host = headers.get(b"host", b"").decode("latin-1") or "localhost"
    secure = scope.get("scheme") == "wss"
    if settings.TRPG_BEHIND_TLS_PROXY:
        forwarded = headers.get(b"x-forwarded-proto", b"").decode("latin-1")
        secure = secure or forwarded.split(",")[0].strip().lower() == "https"
    return f"{'https' if secure else 'http'}://{host}"


@require_GET
def media_view(request: HttpRequest, token: str) -> FileResponse:
    """A picture of a room, by a signed link `media_link` made (anything else: 404)."""
    try:
        room_id, sha256 = signing.loads(token, salt=MEDIA_SALT, max_age=MEDIA_LINK_SECONDS)
        item = media_services.find(int(room_id), str(sha256))
    except (signing.BadSignature, ValueError, TypeError, media_services.MediaError):
        raise Http404("no such picture") from None
    response = FileResponse(media_services.read_pieces(item), content_type=item.mime)
    response["Content-Length"] = str(item.size)
    response["Cache-Control"] = "private, max-age=3600"
    response["X-Content-Type-Options"] = "nosniff"
    return response


# --- footnotes ------------------------------------------------------------------------


def footnotes(room_id: int, text: str, since_id: int) -> tuple[list[dict], int]:
    """The narration's footnotes: facts for everyone the Keeper established this turn
    (lore written after entry `since_id`: new, with a marker) and the known ones the
    narration mentions (callbacks, with their `fact_id`), never a keeper-only fact;
    and the newest entry seen (a later narration's new facts come after it)."""
    notes: list[dict] = []
    newest = since_id
    for entry in sorted(sidequest_services.lore_for_everyone(room_id), key=lambda entry: entry.id):
        summary = f"{entry.title}: {entry.text}"[:300]
        newest = max(newest, entry.id)
        if entry.id > since_id:
            marker = sum(1 for note in notes if note["is_new"]) + 1  # markers number the new facts
            notes.append({"marker": marker, "summary": summary, "category": "Lore", "is_new": True})
        elif any(lore.mentions(text, keyword) for keyword in [entry.title, *entry.keywords]):
            notes.append(
                {"fact_id": f"lore-{entry.id}", "summary": summary, "category": "Lore", "is_new": False}
            )
    return notes, newest


JOURNAL_CATEGORIES = ("Lore", "Place", "Person", "Quest", "Ability")


def journal(room_id: int, category: str | None, sort_by: str) -> list[dict]:
    """`JOURNAL_RESPONSE` entries: what the party knows, as a player may see it. The
    room's lore for everyone (never a keeper-only fact), the places the story has
    been and the open quests (never a keeper-only one: neither client generation has
    a quest panel, its journal shows them), each with the turn it was learned at; one
    category when asked, newest first, grouped by category for `sort_by: "category"`."""
    turns = sidequest_services.turns_seen(room_id)

    def learned(moment: datetime) -> int:
        return sum(1 for _scene, ended in turns if ended <= moment)

    entries: list[dict] = []
    if category in (None, "Lore"):
        for entry in sidequest_services.lore_for_everyone(room_id):
            content = f"{entry.title}: {entry.text}"
            entries.append(_fact(f"lore-{entry.id}", content, "Lore", "Discovery", learned(entry.learned_at)))
    if category in (None, "Place"):
        places: dict[str, int] = {}
        for number, (scene, _ended) in enumerate(turns, start=1):
            if scene:
                places.setdefault(scene, number)
        for index, (place, turn_number) in enumerate(places.items()):
            entries.append(_fact(f"place-{index}", place, "Place", "Observation", turn_number))
    if category in (None, "Quest"):
        for quest in sidequest_services.pursued_quests(room_id):
            content = f"{quest.title}: {quest.text}" if quest.text else quest.title
            entries.append(
                _fact(f"quest-{quest.id}", content, "Quest", "Dialogue", learned(quest.learned_at))
            )
    entries.sort(key=lambda entry: -entry["learned_turn"])  # newest first, stable within a turn
    if sort_by == "category":
        entries.sort(key=lambda entry: JOURNAL_CATEGORIES.index(entry["category"]))
    return entries


def _fact(fact_id: str, content: str, category: str, source: str, learned_turn: int) -> dict:
    return {
        "fact_id": fact_id,
        "content": content[:2000],
        "category": category,
        "source": source,
        "confidence": "Certain",
        "learned_turn": learned_turn,
    }


async def allowed_per_hour(bucket: str, address: str, per_hour: int) -> bool:
    """Whether `address` may do one more of what `bucket` counts now: `per_hour` an
    hour, a burst of them at once, shared by every process."""
    return await coordination.shared().take_tokens(
        [f"{bucket}:{address}"], burst=per_hour, refill_seconds=3600 / per_hour
    )


async def guest_seat_allowed(address: str) -> bool:
    """Whether `address` may make one more guest seat now (TRPG_GUESTS__NEW_PER_ADDRESS
    an hour)."""
    return await allowed_per_hour("guest-seat", address, settings.TRPG_GUESTS_NEW_PER_ADDRESS)


# --- creation ---------------------------------------------------------------------

PRONOUNS = ("she/her", "he/him", "they/them")
CREATION_STEPS = ("name", "pronouns", "backstory")
PREVIEW_LABELS = ("Name", "Pronouns", "Where they come from")


def creation_scene(index: int, answers: dict | None = None) -> dict:
    """Creation scene `index` (0-based, as the client counts them), showing the answer
    given before, if any (after `back` or `edit`)."""
    prompts = (
        ("What is your character's name?", []),
        ("Which pronouns does your character use?", [{"label": p, "description": ""} for p in PRONOUNS]),
        ("Tell us where your character comes from, in a few sentences.", []),
    )
    prompt, choices = prompts[index]
    scene = {
        "phase": "scene",
        "scene_index": index,
        "total_scenes": len(prompts),
        "prompt": prompt,
        "choices": choices,
        "allows_freeform": True,
        "input_type": "name" if index == 0 else "text",
    }
    before = (answers or {}).get(CREATION_STEPS[index])
    if before:
        labels = [choice["label"] for choice in choices]
        if before in labels:
            scene["previous_choice"] = labels.index(before)
        else:
            scene["previous_input"] = before
    return scene


def creation_answer(index: int, choice: str) -> str | None:
    """What the player chose in scene `index`: a choice's label (the client sends a
    1-based index, or the label), or their own words; None for an index out of range."""
    choices = [c["label"] for c in creation_scene(index)["choices"]]
    if choices and choice.isdigit():
        number = int(choice)
        return choices[number - 1] if 1 <= number <= len(choices) else None
    return choice[: 64 if index == 0 else 2000]


def creation_confirmation(answers: dict) -> dict:
    """The confirmation: one row per scene, in the scenes' order (an `edit` names a
    row by its place), and Yes or No."""
    preview = {
        label: answers.get(step, "") for label, step in zip(PREVIEW_LABELS, CREATION_STEPS, strict=True)
    }
    return {
        "phase": "confirmation",
        "prompt": "Is this your character?",
        "character_preview": preview,
        "choices": [{"label": "Yes", "description": ""}, {"label": "No", "description": ""}],
    }


# --- from the table's frames to the contract's messages ---------------------------


def resource_of(entry: dict, resource_id: str) -> dict:
    return next((r for r in entry.get("resources") or [] if r.get("id") == resource_id), {})


def class_of(character: dict) -> str:
    """The character's class as the client shows it: their rule system's display name in
    the viewer's language (the `state`'s `system_name`), its id from an older frame."""
    return character.get("system_name") or character.get("system", "")


def stats_of(character: dict) -> dict[str, int]:
    """The characteristics by the names the viewer reads (`attribute_names`): the client
    shows a stat's key as its label."""
    names = character.get("attribute_names") or {}
    return {names.get(key, key): value for key, value in (character.get("attributes") or {}).items()}


def money_text(character: dict) -> str:
    """The character's money with its unit ("12 dollars", "12 美元"); "" without a unit."""
    if not character.get("currency"):
        return ""
    return f"{int(character.get('money') or 0)} {character['currency']}"


def character_state(character: dict) -> dict:
    hp = resource_of(character, "hp")
    return {
        "name": character.get("name", ""),
        "hp": hp.get("value", 0),
        "max_hp": hp.get("max", hp.get("value", 0)),
        "level": 1,
        "class": class_of(character),
        "statuses": list(character.get("status_effects") or []),
        "inventory": [item["name"] for item in _carried(character)],
    }


def _carried(character: dict) -> list[dict]:
    """The items a character has any of (one used up stays on the sheet at 0)."""
    return [item for item in character.get("items") or [] if item.get("quantity", 0) > 0]


def inventory(character: dict) -> dict:
    """`INVENTORY` (and a party member's `inventory`): the items the character has any
    of, in the contract's words, and their money as `gold` whatever the pack calls it.

    An item used up is left out, as from `equipment` and the delta's `inventory`: both
    client generations draw an item at quantity 0 as one carried (`ITEM_DEPLETED` told
    it). The current client names the money by `currency_name` (the pack's word, in
    the viewer's language) and says "coin" without it; the contract has no such field."""
    items = [
        {
            "name": item["name"],
            "type": item.get("kind", "misc"),
            "equipped": bool(item.get("equipped")),
            "quantity": item.get("quantity", 0),
            "description": item.get("description", ""),
        }
        for item in _carried(character)
    ]
    shown: dict[str, Any] = {"items": items, "gold": int(character.get("money") or 0)}
    if settings.TRPG_SIDEQUEST_CLIENT == "current" and character.get("currency"):
        shown["currency_name"] = character["currency"]
    return shown


def quest_log(state: dict | None) -> dict[str, str]:
    """The quests the viewer may see, name to status (the client merges them by name)."""
    return {quest["name"]: quest["status"] for quest in (state or {}).get("quests") or []}


def state_delta(state: dict | None, gained: list[dict] | None = None) -> dict:
    """The contract's state delta from a loreweaver `state`: where the party is, the
    viewer's own character, the quests they may see, and the items `gained` since the
    delta that last carried them."""
    if not state:
        return {}
    delta: dict[str, Any] = {}
    if state.get("scene", {}).get("name"):
        delta["location"] = state["scene"]["name"]
    if state.get("character"):
        delta["characters"] = [character_state(state["character"])]
    if state.get("quests"):
        delta["quests"] = quest_log(state)
    if gained:
        delta["items_gained"] = gained
    return delta


_CODE = re.compile(r"`([^`\n]*)`")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", re.S)
_EMPHASIS = re.compile(r"(?<![\w*])([*_])(?=\S)(.+?)(?<=\S)\1(?![\w*])", re.S)
_HEADING = re.compile(r"^#{1,6}\s+", re.M)


def plain_text(text: str) -> str:
    """A markdown line (the Keeper's narration) as plain text: both SideQuest client
    generations print narration as it comes, so code marks, emphasis and headings would
    show as literal backticks, asterisks and hashes."""
    text = _CODE.sub(r"\1", text)
    text = _STRONG.sub(r"\2", text)
    text = _EMPHASIS.sub(r"\2", text)
    return _HEADING.sub("", text)


# --- what changed between two states of one viewer -------------------------------


def _quantities(character: dict) -> dict[str, int]:
    """How many of each item (by lower-case name) a character's frame shows."""
    return {item["name"].lower(): item.get("quantity", 0) for item in character.get("items") or []}


def items_gained(before: dict, after: dict) -> list[dict]:
    """Items the viewer's character has more of than before (`items_gained`)."""
    had = _quantities(before)
    return [
        {
            "name": item["name"],
            "description": item.get("description", ""),
            "category": item.get("kind", "misc"),
        }
        for item in _carried(after)
        if item["quantity"] > had.get(item["name"].lower(), 0)
    ]


def items_depleted(before: dict, after: dict) -> list[dict]:
    """`ITEM_DEPLETED` payloads: items whose quantity came down to zero."""
    had = _quantities(before)
    return [
        {"item_name": item["name"], "remaining_before": had[item["name"].lower()]}
        for item in after.get("items") or []
        if item.get("quantity", 0) == 0 and had.get(item["name"].lower(), 0) > 0
    ]


def resources_at_minimum(before: dict, after: dict) -> list[dict]:
    """`RESOURCE_MIN_REACHED` payloads: the character's resources (HP, sanity, any the
    pack declares) that came down to their minimum. Only for the same character."""
    if before.get("name") != after.get("name"):
        return []
    was = {resource["id"]: resource.get("value", 0) for resource in before.get("resources") or []}
    reached = []
    for resource in after.get("resources") or []:
        least = resource.get("min", 0)
        if resource.get("value", 0) <= least < was.get(resource["id"], least):
            reached.append({"resource_name": resource.get("label") or resource["id"], "min_value": least})
    return reached


def _open_quests(state: dict) -> set[str]:
    return {
        quest["name"]
        for quest in state.get("quests") or []
        if quest["status"] == "in_progress" and not quest.get("secret")
    }


def quests_opened(before: dict, after: dict) -> bool:
    """Whether a quest the players see was opened (or opened again) between two states
    of one viewer: the journal's quests are told anew."""
    return bool(_open_quests(after) - _open_quests(before))


def quests_completed(before: dict, after: dict) -> list[dict]:
    """`ACHIEVEMENT_EARNED` payloads: the quests the viewer sees that were completed."""
    done_before = {name for name, status in quest_log(before).items() if status == "completed"}
    return [
        {
            "achievement_id": f"quest:{quest['name']}",
            "name": quest["name"],
            "description": quest.get("description", ""),
            "trope_id": "quest",
            "trigger": "resolved",
        }
        for quest in after.get("quests") or []
        if quest["status"] == "completed" and quest["name"] not in done_before
    ]


def dice_line(frame: dict, locale: str) -> str:
    """A roll, as a line of the narration in `locale`: the roller as the dice name them
    (a player's character), a skill by its display name (the frame's labels are already
    the viewer's)."""
    skill = frame.get("skill")
    expr = str(frame.get("expr") or "")
    what = catalog().skill_label(str(skill), locale, expr) if skill else expr
    total = f"{frame.get('total', '')}"
    if frame.get("target") is not None:
        total += f"/{frame['target']}"
    line = say(
        locale, _("{actor} rolls {what}: {total}"), actor=frame.get("actor", ""), what=what, total=total
    )
    label = (frame.get("outcome") or {}).get("label")
    return line + (f" ({label})" if label else "")


def party_member(member: dict, state: dict | None, my_id: str, my_name: str, backstory: str) -> dict:
    """A party member as the client reads it. The client finds its own player by the
    name it connected with (`my_name`), so the viewer's entry carries that name, and
    the sheet and inventory its panels show; the others go by their characters."""
    hp = resource_of(member, "hp")
    character_name = member.get("name", "")
    entry = {
        "player_id": f"peer:{character_name}",
        "name": character_name,
        "character_name": character_name,
        "current_hp": hp.get("value", 0),
        "max_hp": hp.get("max", hp.get("value", 0)),
        "statuses": [],
        "class": "",
        "level": 1,
    }
    character = (state or {}).get("character") or {}
    if member.get("active") and character:
        entry["player_id"], entry["name"] = my_id, my_name
        entry["statuses"] = list(character.get("status_effects") or [])
        entry["class"] = class_of(character)
        entry["sheet"] = {
            "stats": stats_of(character),
            "abilities": [],
            "backstory": backstory,
            "race": "",
        }
        entry["inventory"] = inventory(character)
    return entry


def character_sheet(character: dict) -> dict:
    """`CHARACTER_SHEET` for `/status`. The contract-era client names money only as
    `gold`: its sheet's `equipment` also lists the money with its unit ("12 dollars"),
    the one place of its messages with room for it."""
    equipment = [item["name"] for item in _carried(character)]
    if settings.TRPG_SIDEQUEST_CLIENT != "current" and money_text(character):
        equipment.append(money_text(character))
    return {
        "name": character.get("name", ""),
        "class": class_of(character),
        "race": "",
        "level": 1,
        "stats": stats_of(character),
        "abilities": [],
        "backstory": "",
        "personality": "",
        "pronouns": "",
        "equipment": equipment,
    }


def map_update(location: str) -> dict:
    """`MAP_UPDATE`: the scene the party is in (this server keeps no map)."""
    explored = [{"name": location, "x": 0, "y": 0, "type": "location", "connections": []}] if location else []
    return {
        "current_location": location,
        "region": "",
        "explored": explored,
        "fog_bounds": {"width": 500, "height": 400},
    }


def audio_cue(frame: dict) -> dict:
    """`AUDIO_CUE` from a loreweaver `audio_control` frame."""
    action = {"play": "play", "resume": "play", "stop": "stop", "pause": "stop"}.get(
        frame.get("action"), "play"
    )
    cue = {"channel": "sfx" if frame.get("layer") == "sfx" else "music", "action": action}
    if frame.get("title") or frame.get("name"):
        cue["music_track"] = frame.get("title") or frame.get("name")
    if frame.get("volume") is not None:
        cue["volume"] = frame["volume"]
    return cue
