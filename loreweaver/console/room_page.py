"""The operator console's room page, its parts: who is online (and how), the buttons
of the room's actions, its keys with "mint for this room", and its backups."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from base.i18n import Refusal
from keeper.rules.packs import catalog
from keeper.sidequest_services import genre_of, rule_system_of
from loreweaver.wire import coordination
from rooms import backups, services
from rooms.models import SIDEQUEST_GENRES, Role, Room

CARRIERS = {"ws": "WebSocket", "iroh": "Iroh", "sidequest": "SideQuest (web)"}
# The room page's buttons: the list's actions, for this room; those that destroy
# something look like it ("danger").
ROOM_PAGE_ACTIONS = [
    ("export_backup", "Export a backup", "button"),
    ("reset_story", "Reset the story", "button danger"),
    ("reset_chars", "Reset story and characters", "button danger"),
    ("reset_all", "Reset everything", "button danger"),
    ("delete_data_with_backup", "Delete keys and story", "button danger"),
    ("delete_room_with_backup", "Delete the room", "button danger"),
]


LAST_KEEPER = "{name} holds the last keeper key of {room}: mint another keeper key before revoking it."


def online_html(room: Room) -> str:
    """Who is online, with their role, how they are connected, and links to disconnect
    them or revoke their key (the holder of the room's last keeper key is told why
    theirs cannot be revoked instead of being offered it)."""
    online = coordination.online_carriers_now(room.pk)  # one read of the shared presence
    if not online:
        return "Nobody is online."
    keepers = set(room.keys.filter(role=Role.KEEPER).values_list("member_id", flat=True))

    def revoke(member_id: str) -> str:
        if keepers == {member_id}:
            return format_html(
                "<span class='help' title='{}'>last keeper key: mint another keeper key to revoke it</span>",
                "The room would be left without a keeper.",
            )
        return format_html(
            "<a class='deletelink' href='{}'>Revoke key</a>",
            reverse("admin:rooms_room_revoke", args=[room.pk, member_id]),
        )

    return format_html(
        "<table><thead><tr><th>member</th><th>role</th><th>connected by</th><th></th></tr></thead>"
        "<tbody>{}</tbody></table>",
        format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td>"
            "<td><a class='deletelink' href='{}'>Disconnect</a> · {}</td></tr>",
            (
                (
                    m.name,
                    m.role,
                    ", ".join(CARRIERS.get(c, c) for c in carriers),
                    reverse("admin:rooms_room_disconnect", args=[room.pk, m.member_id]),
                    revoke(m.member_id),
                )
                for m, carriers in online
            ),
        ),
    )


def actions_html(room: Room) -> str:
    """The room's actions as buttons."""
    # Buttons of the page's own form that post to the room list's actions, for this
    # room alone: each asks for confirmation there before it destroys anything.
    buttons = format_html_join(
        " ",
        "<button type='submit' class='{}' formaction='{}' name='action' value='{}'>{}</button>",
        (
            (classes, reverse("admin:rooms_room_changelist"), action, label)
            for action, label, classes in ROOM_PAGE_ACTIONS
        ),
    )
    return format_html("<input type='hidden' name='_selected_action' value='{}'>{}", room.pk, buttons)


def genre_html(room: Room) -> str:
    """The SideQuest genre the room is listed under, and a control that changes it."""
    default = genre_of(room, chosen="")
    # Named with the system it follows, so a genre that looks wrong says why (the room
    # plays what its last character was made in: a .dnd in a Call of Cthulhu room).
    system = rule_system_of(room)
    pack = catalog().packs.get(system)
    named = pack.name.en if pack else system
    options = format_html_join(
        "",
        "<option value='{}'{}>{}</option>",
        (
            (slug, " selected" if slug == room.sidequest_genre else "", label)
            for slug, label in [("", f"{default} (from the rule system, {named})")]
            + [(slug, slug) for slug in SIDEQUEST_GENRES]
        ),
    )
    return format_html(
        "<select name='sidequest_genre' aria-label='SideQuest genre'>{}</select> "
        "<button type='submit' class='button' formaction='{}'>Set the genre</button>",
        options,
        reverse("admin:rooms_room_genre", args=[room.pk]),
    )


def set_genre(request: HttpRequest, room: Room) -> str:
    """Apply the genre the room page posted, telling the operator how it went; the
    change to log ("" when refused)."""
    try:
        services.set_sidequest_genre(room, request.POST.get("sidequest_genre", ""))
    except Refusal as refused:
        messages.error(request, refused.message("en"))
        return ""
    genre = room.sidequest_genre or "the rule system's genre"
    messages.success(request, f"SideQuest clients now see {room.name} under {genre}.")
    return f"SideQuest genre set to {genre}."


def keys_html(room: Room) -> str:
    """The room's keys (masked; each links to its page) and a link that mints one here."""
    keys = list(room.keys.order_by("role", "name"))
    mint = format_html(
        "<a class='addlink' href='{}?room={}'>Mint a key for this room</a>",
        reverse("admin:rooms_accesskey_add"),
        room.pk,
    )
    if not keys:
        return format_html("No keys. {}", mint)
    return format_html(
        "<table><thead><tr><th>name</th><th>role</th><th>key</th><th>expires</th></tr></thead>"
        "<tbody>{}</tbody></table>{}",
        format_html_join(
            "",
            "<tr><td><a href='{}'>{}</a></td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
            (
                (
                    reverse("admin:rooms_accesskey_change", args=[key.pk]),
                    key.name,
                    f"{key.role} (guest)" if key.guest else key.role,
                    key.key_masked,
                    key.expires_at.strftime("%Y-%m-%d %H:%M UTC") if key.expires_at else "never",
                )
                for key in keys
            ),
        ),
        mint,
    )


def backups_html(room: Room) -> str:
    """The room's backups, newest first, with their sizes, each to restore or download."""
    found = backups.listing(room.pk)
    if not found:
        return "No backups yet (Export a backup, above)."
    return format_html(
        "<ul>{}</ul>",
        format_html_join(
            "",
            "<li>{} <small>{} · {}</small> · <a href='{}'>restore</a> · <a href='{}'>download</a></li>",
            (
                (
                    backup.name,
                    filesizeformat(backup.size),
                    backup.created_at.strftime("%Y-%m-%d %H:%M UTC"),
                    reverse("admin:rooms_room_backup_restore", args=[backup.pk]),
                    reverse("admin:rooms_room_backup_download", args=[backup.pk]),
                )
                for backup in found
            ),
        ),
    )
