"""`.avatar gen [description]`: the image endpoint draws the caller's character, and the
drawing becomes the room's media and the character's portrait."""

from __future__ import annotations

from base.i18n import Refusal, _
from keeper import characters
from keeper.commands import Caller, CommandReply, FollowUp, command
from keeper.llm import config as llm_config
from keeper.llm import images
from keeper.sheet_commands import no_character
from media_store.services import MediaError, Uploader

NOT_CONFIGURED = _(
    "No image endpoint is configured. A keeper sets one on the model screen (image generation); "
    "an operator can set TRPG_IMAGEGEN__PROVIDER, TRPG_IMAGEGEN__BASE_URL, TRPG_IMAGEGEN__MODEL "
    "and TRPG_IMAGEGEN__API_KEY."
)


@command("avatar", help=_("your portrait: .avatar gen [description] draws your character"))
def avatar(arguments: str, caller: Caller) -> CommandReply:
    word, _sep, rest = arguments.strip().partition(" ")
    if word.lower() != "gen":
        return CommandReply(caller.say(_("Use .avatar gen [description] to draw your character's portrait.")))
    character = characters.active_character(caller.room_id, caller.member_id)
    if character is None:
        return no_character(caller)
    config = llm_config.imagegen(caller.room_id)
    if not config.configured:
        return CommandReply(caller.say(NOT_CONFIGURED))
    system = characters.pack_of(character).name.en
    prompt = f"A portrait of {character.name}, a character in a {system} game. {rest.strip()[:1000]}".strip()
    uploader = Uploader(caller.room_id, caller.member_id, caller.name)

    def finish(drawn: object) -> CommandReply:
        if isinstance(drawn, Refusal):
            return CommandReply(drawn.message(caller.locale))
        if not isinstance(drawn, images.Drawing):
            return CommandReply(caller.say(_("The image endpoint did not draw it ({why})."), why="error"))
        try:
            item = images.store_drawing(uploader, f"{character.name} portrait", drawn)
            characters.set_avatar(caller.room_id, caller.member_id, item.sha256, character=None, user=None)
        except MediaError as refused:
            return CommandReply(caller.say(_("The portrait could not be kept ({why})."), why=refused.code))
        return CommandReply(
            caller.say(_("{name} has a new portrait."), name=character.name), private=False, media=[item.id]
        )

    return CommandReply(
        caller.say(_("Drawing a portrait of {name}…"), name=character.name),
        follow_up=FollowUp(lambda: images.draw(config, prompt), finish),
    )
