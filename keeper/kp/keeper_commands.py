"""Commands that belong to the AI Keeper: `.npc`, `.report`, `.model`, `.note`, `.skill`.

Every answer here is private to the caller. `.model key` never echoes its argument:
the echo the caller sees is masked, and commands never enter the transcript.
"""

from __future__ import annotations

import re
from collections import Counter

from base.i18n import _
from base.names import same_name_key
from keeper import character_names, skill_catalog
from keeper.commands import Caller, CommandReply, command, keeper_refusal
from keeper.kp import subscription_commands
from keeper.llm import config as llm_config
from keeper.llm import grants
from keeper.llm.endpoints import EndpointRefused
from keeper.llm.providers import CATALOG, OFFLINE, OFFLINE_MODELS, SAMPLE_ADVENTURE
from keeper.models import Character, KeeperNote, Npc, Story
from rooms.models import AccessKey, TranscriptEntry, TurnEvent

# A skill's content rating, as `.skill` lists it.
RATINGS = {"general": _("general"), "teen": _("teen"), "mature": _("mature")}

# What makes a word of `.model set` an address rather than a model's name: a URL scheme,
# in any case (`HTTP://`, `ftp://`).
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


@command(
    "npc",
    help=_("NPCs: .npc [list|show <name>], .npc add <name> | <persona> | <secret>, .npc del <name> (keeper)"),
)
def npc(arguments: str, caller: Caller) -> CommandReply:
    word, _sep, rest = arguments.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("add", "del") and not caller.is_keeper:
        return keeper_refusal(caller)
    if word == "add":
        return _npc_add(rest, caller)
    if word == "del":
        deleted, _kinds = Npc.objects.filter(room_id=caller.room_id, name__iexact=rest).delete()
        if not deleted:
            return CommandReply(caller.say(_("No NPC called {name}."), name=rest))
        return CommandReply(caller.say(_("NPC {name} removed."), name=rest))
    npcs = Npc.objects.filter(room_id=caller.room_id)
    if word == "show":
        npcs = npcs.filter(name__iexact=rest)
    elif word not in ("", "list"):
        return CommandReply(
            caller.say(
                _("Use .npc, .npc show <name>, .npc add or .npc del."),
            )
        )
    lines = []
    for record in npcs:
        line = f"{record.name}: {record.persona or '—'}"
        if caller.is_keeper and record.secret:  # the secret is the keeper's alone
            line += caller.say(_(" [secret: {s}]"), s=record.secret)
        lines.append(line)
    return CommandReply("\n".join(lines) or caller.say(_("No NPCs yet.")))


def _npc_add(arguments: str, caller: Caller) -> CommandReply:
    """`.npc add <name> [replace] | <persona> | <secret>`: an NPC of a name the room
    already has (compared as characters' names are) is rewritten only with `replace`
    (docs/rules.md, "Characters and their names")."""
    head, _sep, more = arguments.partition("|")
    persona, _sep, secret = more.partition("|")
    persona, secret = persona.strip()[:2000], secret.strip()[:2000]
    typed, replace = character_names.without_replace(head)
    name = character_names.chosen_name(typed, "")
    if not name:
        return CommandReply(caller.say(_("Use .npc add <name> | <persona> | <secret>.")))
    key = same_name_key(name)
    npcs = Npc.objects.filter(room_id=caller.room_id)
    found = next((record for record in npcs if same_name_key(record.name) == key), None)
    if found is None:
        Npc.objects.create(room_id=caller.room_id, name=name, persona=persona, secret=secret)
        return CommandReply(caller.say(_("NPC {name} saved."), name=name))
    if not replace:
        if not persona and not secret:  # `/gm spawn` of one already here: nothing to change
            return CommandReply(caller.say(_("NPC {name} is already in this room."), name=found.name))
        return CommandReply(
            caller.say(
                _(
                    "There is already an NPC called {name}: .npc add {name} replace | <persona> | <secret> "
                    "rewrites them, or choose another name."
                ),
                name=found.name,
            )
        )
    found.persona, found.secret = persona, secret
    found.save(update_fields=["persona", "secret"])
    return CommandReply(caller.say(_("NPC {name} rewritten."), name=found.name))


@command("report", help=_("the session log: lines, rolls, successes"))
def report(arguments: str, caller: Caller) -> CommandReply:
    """Counts over the room's story: who spoke, who rolled, how checks went (only the
    rolls the caller could see). One person is counted under one name: their
    character's when they play one, as their dice name them."""
    playing, rolled_as = _table_names(caller.room_id)
    spoke = Counter(
        playing.get(entry.member_id) or entry.name or entry.speaker
        for entry in TranscriptEntry.objects.filter(room_id=caller.room_id).only(
            "name", "speaker", "member_id"
        )
    )
    rolls, successes = Counter(), Counter()
    for event in TurnEvent.objects.filter(room_id=caller.room_id):
        if event.frame.get("type") != "dice":
            continue
        if not event.visible_to(member_id=caller.member_id, is_keeper=caller.is_keeper):
            continue
        actor = str(event.frame.get("actor", "?"))
        actor = rolled_as.get(actor, actor)
        rolls[actor] += 1
        if (event.frame.get("outcome") or {}).get("success"):
            successes[actor] += 1
    if not spoke and not rolls:
        return CommandReply(caller.say(_("Nothing to report yet.")))
    lines = [caller.say(_("Session report"))]
    lines += [caller.say(_("{who}: {n} lines"), who=who, n=n) for who, n in spoke.most_common()]
    lines += [
        caller.say(
            _("{who}: {n} rolls, {ok} successful checks"),
            who=who,
            n=n,
            ok=successes[who],
        )
        for who, n in rolls.most_common()
    ]
    story = Story.objects.filter(room_id=caller.room_id).first()
    if story and story.ai_turns:
        lines.append(
            caller.say(
                _("Keeper turns: {t}; tokens in {i}, out {o}"),
                t=story.ai_turns,
                i=story.input_tokens,
                o=story.output_tokens,
            )
        )
    return CommandReply("\n".join(lines))


def _table_names(room_id: int) -> tuple[dict[str, str], dict[str, str]]:
    """(member id → the name they play under, member name → the same): each member
    playing a character goes by its name. The second reads rolls recorded before dice
    named the character (under the member's name) as the character's."""
    playing = dict(
        Character.objects.filter(room_id=room_id, active=True).exclude(owner="").values_list("owner", "name")
    )
    members = AccessKey.objects.filter(room_id=room_id, member_id__in=list(playing)).values_list(
        "name", "member_id"
    )
    return playing, {name: playing[member_id] for name, member_id in members}


def _current(caller: Caller) -> str:
    current = llm_config.resolve(caller.room_id)
    if not current.usable:
        state = caller.say(_("the offline Keeper (no model)"))
        if current.subscription:
            state += caller.say(_(" ({p} is not signed in: .model login {p})"), p=current.subscription)
        elif current.provider in CATALOG:
            state += caller.say(_(" ({p} has no key yet)"), p=current.provider)
        elif current.chat_model == SAMPLE_ADVENTURE:
            state += caller.say(_(", offering the sample adventure until a module begins"))
        return caller.say(_("Model: {s}"), s=state)
    if current.subscription:
        return caller.say(
            _("Model: {p} / {m} at {u} (signed in with this room's subscription)"),
            p=current.provider,
            m=current.chat_model,
            u=current.base_url,
        )
    key = current.key_masked or caller.say(_("no key"))
    return caller.say(
        _("Model: {p} / {m} at {u} (key {k})"),
        p=current.provider,
        m=current.chat_model,
        u=current.base_url,
        k=key,
    )


@command(
    "model",
    help=_(
        "the AI model: .model [list]; keeper: .model set <provider> [model] [url], .model key|reset, "
        ".model login chatgpt|supergrok, .model logout (this room only)"
    ),
)
def model(arguments: str, caller: Caller) -> CommandReply:
    """The model of the caller's room: shown to anyone; a keeper changes it for this
    room only (the server-wide default is the operator's)."""
    word, _sep, rest = arguments.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("", "list"):
        catalog = "\n".join(f"  {p.id}: {p.base_url} ({p.default_model})" for p in CATALOG.values())
        catalog += f"\n  {OFFLINE}: " + caller.say(_("no endpoint ({m})"), m=", ".join(OFFLINE_MODELS))
        return CommandReply(_current(caller) + "\n" + caller.say(_("Providers:")) + "\n" + catalog)
    if word not in ("set", "key", "reset", "login", "logout"):
        return CommandReply(
            caller.say(
                _("Use .model, .model set, .model key, .model reset, .model login or .model logout."),
            )
        )
    if not caller.is_keeper:
        reply = keeper_refusal(caller)
        reply.echo = ".model " + word + (" ****" if word == "key" else "")
        return reply
    if word == "key":
        if not rest or " " in rest:
            reply = CommandReply(caller.say(_("Use .model key <key>.")))
        else:
            try:
                llm_config.save_key(caller.room_id, rest)
                reply = CommandReply(
                    caller.say(
                        _("Key saved for this room, this provider and this endpoint only. "),
                    )
                    + _current(caller),
                    model_changed=True,
                )
            except ValueError:
                reply = CommandReply(caller.say(_("Choose a provider first: .model set <provider>.")))
            except grants.SignedOut:
                reply = CommandReply(
                    caller.say(_("This provider signs in instead: .model login <provider>."))
                )
        reply.echo = ".model key ****"
        return reply
    if word == "login":
        return subscription_commands.login(rest, caller)
    if word == "logout":
        return subscription_commands.logout(rest, caller)
    if word == "reset":
        llm_config.reset(caller.room_id)
        return CommandReply(
            caller.say(_("Back to the server's configuration. ")) + _current(caller), model_changed=True
        )
    parts = rest.split()
    if not parts or parts[0].lower() not in (*CATALOG, OFFLINE) or len(parts) > 3:
        names = ", ".join([*CATALOG, OFFLINE])
        return CommandReply(
            caller.say(
                _("Use .model set <provider> [model] [url]; providers: {n}"),
                n=names,
            )
        )
    provider, chat_model, base_url = parts[0].lower(), "", ""
    for part in parts[1:]:
        scheme = _SCHEME.match(part)
        if scheme is None:
            chat_model = part
        elif scheme.group(1).lower() in ("http", "https"):
            base_url = scheme.group(1).lower() + part[scheme.end(1) :]  # `HTTP://` is http too
        else:  # an address, but not one a model is reached at: refused, nothing changes
            return CommandReply(EndpointRefused(part[:100], "scheme").message(caller.locale))
    try:
        llm_config.select(caller.room_id, provider, chat_model[:200], base_url[:500])
    except EndpointRefused as refused:
        return CommandReply(refused.message(caller.locale))
    return CommandReply(caller.say(_("Switched (this room only). ")) + _current(caller), model_changed=True)


@command(
    "note",
    help=_("keeper notes: .note <text>, .note to list them"),
    keeper_only=True,
)
def note(arguments: str, caller: Caller) -> CommandReply:
    text = arguments.strip()
    if text:
        KeeperNote.objects.create(room_id=caller.room_id, text=text[:2000])
        return CommandReply(caller.say(_("Noted (keepers only).")))
    notes = KeeperNote.objects.filter(room_id=caller.room_id).order_by("-id")[:20]
    return CommandReply("\n".join(f"- {n.text}" for n in reversed(notes)) or caller.say(_("No notes yet.")))


@command(
    "skill",
    help=_("Keeper skills: .skill [list]; keeper: .skill enable|disable <id>"),
)
def skill(arguments: str, caller: Caller) -> CommandReply:
    word, _sep, rest = arguments.strip().partition(" ")
    word, rest = word.lower(), rest.strip().lower()
    if word in ("enable", "disable"):
        if not caller.is_keeper:
            return keeper_refusal(caller)
        try:
            skill_catalog.set_enabled(caller.room_id, rest, word == "enable")
        except KeyError:
            return CommandReply(
                caller.say(
                    _("No skill called {id}; see .skill list."),
                    id=rest,
                )
            )
        done = caller.say(_("enabled")) if word == "enable" else caller.say(_("disabled"))
        return CommandReply(caller.say(_("Skill {id} {done}."), id=rest, done=done), private=False)
    if word not in ("", "list"):
        return CommandReply(
            caller.say(
                _("Use .skill, .skill enable <id> or .skill disable <id>."),
            )
        )
    lines = []
    for entry in skill_catalog.listing(caller.room_id, caller.locale):
        mark = "[x]" if entry["enabled"] else "[ ]"
        rating = caller.say(RATINGS.get(entry["content_rating"], RATINGS["general"]))
        lines.append(f"{mark} {entry['id']}: {entry['name']} ({rating}): {entry['description']}")
    return CommandReply("\n".join(lines) or caller.say(_("No skills on this server.")))
