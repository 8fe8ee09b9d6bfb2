"""The wire's texts by key: error messages (by error code) and server notices.

Clients branch on codes only; the texts tell a person what happened and what to do,
in the viewer's language (the catalog: `base.i18n`).
"""

from __future__ import annotations

from base.i18n import _, say

ERRORS: dict[str, str] = {
    "bad_key": _("That access key is not valid on this server. Ask your keeper for a new one."),
    "key_revoked": _(
        "Your access key was revoked, has expired, or was moved to another room. "
        "Ask your keeper for a new one."
    ),
    "kept_out": _(
        "The server's operator disconnected you from this room. You can join again in {minutes} "
        "minutes; if you think this is a mistake, ask your keeper."
    ),
    "bad_frame": _("The server could not understand that message ({detail})."),
    "join_before_anything": _("The first message must be a join with your access key."),
    "input_too_long": _(
        "That message is too long: the limit is {limit} characters. Shorten it and send again."
    ),
    "rate_limited": _("You are sending too fast. Wait a moment and try again."),
    "server_error": _(
        "The server hit an internal error; nothing was changed. Try again, or tell the operator."
    ),
    "not_yet": _("This server does not handle {what} yet."),
    "join_timeout": _("No join arrived within {seconds} seconds; reconnect and send your key."),
    "crowded_out": _(
        "The server is full, and this connection had not sent its join yet, so its place went to "
        "another. Reconnect and send your key at once."
    ),
    "too_many_connections": _("The server is full right now. Try again in a little while."),
    "forbidden": _("Only the keeper can do that."),
    "panel_forbidden": _("That panel is not available to you."),
    "avatar_forbidden": _("You can only set the portrait of your own character."),
    "avatar_no_character": _("You have no active character to put a portrait on. Create or claim one first."),
    "demo_unavailable": _(
        "Only a keeper can start the sample adventure, while no model is connected, in a room "
        "that is not already playing a module. Nothing was changed."
    ),
    "media_not_found": _("That file is not in this room."),
    "media_disabled": _("Uploads are switched off in this room; ask the keeper to turn them on."),
    "media_rate_limited": _("Too many uploads in a minute; wait a little and try again."),
    "media_bad_mime": _(
        "That file type cannot be shared: images PNG, JPEG, WebP, GIF, SVG; audio MP3, OGG, "
        "WAV, FLAC, M4A, AAC."
    ),
    "media_too_large": _(
        "That file is empty or too large (images up to 8 MiB, audio up to 128 MiB by default)."
    ),
    "media_bad_hash": _("The offer's sha256 must be 64 lower-case hex digits."),
    "media_bad_offer": _("That upload offer is malformed: it needs name, mime, size and sha256."),
    "media_quota_exceeded": _(
        "This room's storage for that kind of file is full; the keeper can remove old files."
    ),
    "media_bad_svg": _(
        "That SVG was refused: only plain drawings (shapes and text; no scripts, links or styles) "
        "are allowed."
    ),
    "media_hash_mismatch": _(
        "The file's bytes do not match the sha256 offered; nothing was stored. Send it again."
    ),
    "media_size_mismatch": _(
        "The file's size does not match the size offered; nothing was stored. Send it again."
    ),
    "media_bad_upload": _("That upload id is unknown, expired or not yours; offer the file again."),
}

NOTICES: dict[str, str] = {
    "keeper_failed": _("The Keeper could not answer this time; your line is recorded. Go on, or try again."),
    "turn_cut_off": _(
        "The Keeper's answer to {actor} was cut off when a server process stopped; the line is kept."
    ),
    "disconnected": _("The server's operator disconnected this session."),
    "disconnected_for": _(
        "The server's operator disconnected you from this room for {minutes} minutes; "
        "you can join again after that."
    ),
    "server_restarting": _("The server is restarting; you will be reconnected and see what you missed."),
    "restarting_input_refused": _(
        "The server is restarting, so that line was not played. Send it again once you are reconnected."
    ),
    "queued": _("Another turn is running; yours is queued and will follow."),
    "human_keeper": _("A human keeper narrates this table: no bot answers the story lines."),
    "round_waiting": _("{actor} has acted. The Keeper answers when these have too: {names}."),
    "room_restored": _("The room was restored from the backup {backup}: here is its story."),
    "room_restored_undo": _(
        "The room was restored from the backup {backup}: here is its story. The game as it was is "
        "kept as the backup {undo}; a keeper can restore that to undo this."
    ),
    "room_reset_story": _("The room was reset: the story starts over; characters, module and keys stay."),
    "room_reset_chars": _("The room was reset: the story and the characters start over; the module stays."),
    "room_reset_all": _(
        "The room was reset: everything starts over (story, characters, module and media); the keys stay."
    ),
}


def error_message(key: str, locale: str | None = None, **values: object) -> str:
    """The message for an error code (or a more specific message key) in `locale`."""
    return say(locale, ERRORS[key], **values)


def disconnect_notice(minutes: int, locale: str | None = None) -> str:
    """What a member the operator disconnected is told (`minutes`: how long they are
    kept out, 0 when they may rejoin at once)."""
    if minutes:
        return notice("disconnected_for", locale, minutes=minutes)
    return notice("disconnected", locale)


def notice(key: str, locale: str | None = None, **values: object) -> str:
    """The text of a server notice in `locale`."""
    return say(locale, NOTICES[key], **values)
