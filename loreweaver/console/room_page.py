"""The operator console's room page, its parts: who is online (and how), the buttons
of the room's actions, its keys with "mint for this room", and its backups."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, gettext_lazy, gettext_noop

from base.i18n import Refusal, active_locale
from keeper.rules.packs import catalog
from keeper.sidequest_services import genre_of, rule_system_of
from loreweaver.wire import presence_now
from rooms import backups, services
from rooms.models import SIDEQUEST_GENRES, Role, Room

CARRIERS = {"ws": "WebSocket", "iroh": "Iroh", "sidequest": gettext_lazy("SideQuest (web)")}
# The room page's buttons: the list's actions, for this room; those that destroy
# something look like it ("danger").
ROOM_PAGE_ACTIONS = [
    ("export_backup", gettext_lazy("Export a backup"), "button"),
    ("reset_story", gettext_lazy("Reset the story"), "button danger"),
    ("reset_chars", gettext_lazy("Reset story and characters"), "button danger"),
    ("reset_all", gettext_lazy("Reset everything"), "button danger"),
    ("delete_data_with_backup", gettext_lazy("Delete keys and story"), "button danger"),
    ("delete_room_with_backup", gettext_lazy("Delete the room"), "button danger"),
]


# Translated where it is said (`gettext`).
LAST_KEEPER = gettext_noop(
    "{name} holds the last keeper key of {room}: mint another keeper key before revoking it."
)


def role_label(role: str) -> str:
    """A member's role in the console's language."""
    return str(Role(role).label) if role in Role.values else role


def online_html(room: Room) -> str:
    """Who is online, with their role, how they are connected, and links to disconnect
    them or revoke their key (the holder of the room's last keeper key is told why
    theirs cannot be revoked instead of being offered it)."""
    online = presence_now.online_carriers_now(room.pk)  # one read of the shared presence
    if not online:
        return gettext("Nobody is online.")
    keepers = set(room.keys.filter(role=Role.KEEPER).values_list("member_id", flat=True))

    def revoke(member_id: str) -> str:
        if keepers == {member_id}:
            return format_html(
                "<span class='help' title='{}'>{}</span>",
                gettext("The room would be left without a keeper."),
                gettext("last keeper key: mint another keeper key to revoke it"),
            )
        return format_html(
            "<a class='deletelink' href='{}'>{}</a>",
            reverse("admin:rooms_room_revoke", args=[room.pk, member_id]),
            gettext("Revoke key"),
        )

    disconnect = gettext("Disconnect")
    return format_html(
        "<table><thead><tr><th>{}</th><th>{}</th><th>{}</th><th></th></tr></thead><tbody>{}</tbody></table>",
        gettext("member"),
        gettext("role"),
        gettext("connected by"),
        format_html_join(
            "",
            "<tr><td>{}</td><td class='role'>{}</td><td>{}</td>"
            "<td><a class='deletelink' href='{}'>{}</a> · {}</td></tr>",
            (
                (
                    m.name,
                    role_label(m.role),
                    ", ".join(str(CARRIERS.get(c, c)) for c in carriers),
                    reverse("admin:rooms_room_disconnect", args=[room.pk, m.member_id]),
                    disconnect,
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
            for slug, label in [
                ("", gettext("{genre} (from the rule system, {system})").format(genre=default, system=named))
            ]
            + [(slug, slug) for slug in SIDEQUEST_GENRES]
        ),
    )
    return format_html(
        "<select name='sidequest_genre' aria-label='{}'>{}</select> "
        "<button type='submit' class='button' formaction='{}'>{}</button>",
        gettext("SideQuest genre"),
        options,
        reverse("admin:rooms_room_genre", args=[room.pk]),
        gettext("Set the genre"),
    )


def set_genre(request: HttpRequest, room: Room) -> str:
    """Apply the genre the room page posted, telling the operator how it went; the
    change to log ("" when refused)."""
    try:
        services.set_sidequest_genre(room, request.POST.get("sidequest_genre", ""))
    except Refusal as refused:
        messages.error(request, refused.message(active_locale()))
        return ""
    genre = room.sidequest_genre or gettext("the rule system's genre")
    told = gettext("SideQuest clients now see {room} under {genre}.")
    messages.success(request, told.format(room=room.name, genre=genre))
    logged = room.sidequest_genre or "the rule system's genre"  # the log is in English
    return f"SideQuest genre set to {logged}."


def keys_html(room: Room) -> str:
    """The room's keys (masked; each links to its page) and a link that mints one here."""
    keys = list(room.keys.order_by("role", "name"))
    mint = format_html(
        "<a class='addlink' href='{}?room={}'>{}</a>",
        reverse("admin:rooms_accesskey_add"),
        room.pk,
        gettext("Mint a key for this room"),
    )
    if not keys:
        return format_html("{} {}", gettext("No keys."), mint)
    return format_html(
        "<table><thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr></thead>"
        "<tbody>{}</tbody></table>{}",
        gettext("name"),
        gettext("role"),
        gettext("key"),
        gettext("expires"),
        format_html_join(
            "",
            "<tr><td><a href='{}'>{}</a></td><td class='role'>{}</td>"
            "<td><code>{}</code></td><td>{}</td></tr>",
            (
                (
                    reverse("admin:rooms_accesskey_change", args=[key.pk]),
                    key.name,
                    gettext("{role} (guest)").format(role=role_label(key.role))
                    if key.guest
                    else role_label(key.role),
                    key.key_masked,
                    key.expires_at.strftime("%Y-%m-%d %H:%M UTC") if key.expires_at else gettext("never"),
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
        return gettext("No backups yet (Export a backup, above).")
    restore, download = gettext("restore"), gettext("download")
    return format_html(
        "<ul>{}</ul>",
        format_html_join(
            "",
            "<li>{} <small>{} · {}</small> · <a href='{}'>{}</a> · <a href='{}'>{}</a></li>",
            (
                (
                    backup.name,
                    filesizeformat(backup.size),
                    backup.created_at.strftime("%Y-%m-%d %H:%M UTC"),
                    reverse("admin:rooms_room_backup_restore", args=[backup.pk]),
                    restore,
                    reverse("admin:rooms_room_backup_download", args=[backup.pk]),
                    download,
                )
                for backup in found
            ),
        ),
    )
