"""`.module`: show the room's module; a keeper sets one by hand, imports a file from the
modules folder, imports pasted text (see `keeper.modules`), or loads a pack's module
(`.module <pack>`: a pack id, a `.lwpack` in the packs folder, `gh:owner/repo`, an
https URL; `keeper.pack_commands.load_module`)."""

from __future__ import annotations

from base.i18n import Refusal, _
from keeper import forge, modules, pack_commands, pack_sources
from keeper.commands import Caller, CommandReply, FollowUp, command, keeper_refusal
from keeper.llm import config as llm_config
from keeper.models import Story


@command(
    "module",
    help=_(
        "the module: .module; keeper: .module <file> (from the modules folder), .module <pack>, "
        ".module import <text>, .module set <title> | <intro for players> | <truth>"
    ),
)
def module(arguments: str, caller: Caller) -> CommandReply:
    word, _sep, rest = arguments.strip().partition(" ")
    if not word:
        return _show(caller)
    if not caller.is_keeper:
        return keeper_refusal(caller)
    if word.lower() == "set":
        return _set(rest, caller)
    try:
        if word.lower() == "import":
            if not rest.strip():
                return CommandReply(caller.say(_("Paste the module after .module import.")))
            return _import(rest, "imported", caller)
        if _names_a_pack(arguments):
            return pack_commands.load_module(arguments.strip(), caller)
        try:
            path = modules.module_file(arguments)
        except modules.ModuleError:
            if _a_pack_is_called(arguments.strip()):
                return pack_commands.load_module(arguments.strip(), caller)
            raise
        text = modules.read_text(path)
        if path.suffix.lower() in (".yaml", ".yml"):
            return _installed(modules.from_yaml(text, modules.slug(path.stem)), caller)
        return _import(text, modules.slug(path.stem), caller)
    except modules.ModuleError as refused:
        return CommandReply(refused.message(caller.locale))


def _names_a_pack(ref: str) -> bool:
    """Whether `ref` can only be a pack: a download, or a `.lwpack` file."""
    ref = ref.strip()
    return ref.startswith(("gh:", "https://", "http://")) or ref.lower().endswith(".lwpack")


def _a_pack_is_called(name: str) -> bool:
    """Whether a pack goes by `name` (installed, in the packs folder, shipped with the
    server), when no module file does."""
    try:
        pack_sources.find(name)
    except Refusal:
        return False
    return True


def _show(caller: Caller) -> CommandReply:
    story = Story.objects.filter(room_id=caller.room_id).first()
    if story is None or not story.module_title:
        return CommandReply(caller.say(_("No module yet.")))
    text = caller.say(_("Module: {t}"), t=story.module_title) + "\n" + story.module_intro
    if caller.is_keeper and story.module_truth:
        text += "\n" + caller.say(_("Truth (keeper only): {t}"), t=story.module_truth)
    return CommandReply(text)


def _set(rest: str, caller: Caller) -> CommandReply:
    title, _sep, more = rest.partition("|")
    intro, _sep, truth = more.partition("|")
    if not title.strip():
        return CommandReply(caller.say(_("Use .module set <title> | <intro> | <truth>.")))
    story = Story.of(caller.room_id)
    story.module_id = "custom"
    story.module_title = title.strip()[:200]
    story.module_intro = intro.strip()[:4000]
    story.module_truth = truth.strip()[:4000]
    story.save()
    return CommandReply(caller.say(_("Module {t} set."), t=story.module_title))


def _import(text: str, module_id: str, caller: Caller) -> CommandReply:
    """With a model, it drafts the module (after a first reply, since it takes a while);
    without one, the text's headings make it at once."""
    config = llm_config.resolve(caller.room_id)
    if not config.usable:
        return _installed(modules.from_headings(text, module_id), caller)

    def finish(draft: object) -> CommandReply:
        note = ""
        try:
            if isinstance(draft, Exception):
                raise modules.ModuleError(_("The model did not answer."))
            document = modules.from_yaml(str(draft), module_id)
        except modules.ModuleError as unusable:
            note = caller.say(
                _("The model's draft was not usable ({why}): the text's headings were read instead."),
                why=unusable.message(caller.locale),
            )
            document = modules.from_headings(text, module_id)
        reply = _installed(document, caller)
        reply.text = (note + "\n" + reply.text).strip()
        return reply

    return CommandReply(
        caller.say(_("The model is drafting the module from the text…")),
        follow_up=FollowUp(lambda: forge.draft(config, "module_import", text), finish),
    )


def _installed(document: forge.ModuleDocument, caller: Caller) -> CommandReply:
    """Install the module and say what it brought, naming the NPCs whose secrets were
    found (kept for keepers: the keeper can check nothing meant for them reads aloud)."""
    modules.install(caller.room_id, document)
    text = caller.say(
        _("Module {t} imported; NPCs added: {n}. Players see its intro (.module); its truth is for keepers."),
        t=document.title,
        n=len(document.npcs),
    )
    keeping = [npc.name for npc in document.npcs if npc.secret or modules.split_secret(npc.persona)[1]]
    if keeping:
        text += " " + caller.say(_("Secrets kept for keepers only: {names}."), names=", ".join(keeping))
    return CommandReply(text)
