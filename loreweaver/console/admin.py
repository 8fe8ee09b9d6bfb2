"""The operator console: rooms (who is online, the recent story; export, reset and
delete-with-backup actions), the backups folder (download, restore, delete), and
access keys (minted here, shown once; never the last keeper key lost). Everything that
destroys data asks for confirmation first."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import admin, messages
from django.db.models import Count, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.text import format_lazy
from django.utils.translation import gettext, gettext_lazy, gettext_noop

from loreweaver.console import (
    keys_admin,  # noqa: F401 (registers the keys' pages)
    room_page,
)
from loreweaver.console import services as console
from loreweaver.console.downloads import backup_download
from loreweaver.console.story import story_as_seen, story_html
from loreweaver.wire import presence_now
from rooms import backups, services
from rooms.models import AccessKey, Role, Room, RoomBackup, TranscriptEntry

RECENT_LINES = 50


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows the table writes; operators look, they do not edit."""

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


# Each reset: its scope, the verb the pages use ("Are you sure you want to …?", "Yes,
# …"), the button (and the log's words), and what it removes; in English, translated
# where they are shown.
RESETS = {
    "reset_story": (
        "story",
        gettext_noop("reset the story"),
        gettext_noop("Reset the story"),
        gettext_noop("The story and its progress go; characters, module, keys stay."),
    ),
    "reset_chars": (
        "chars",
        gettext_noop("reset story and characters"),
        gettext_noop("Reset story and characters"),
        gettext_noop("The story and the characters go; the module stays."),
    ),
    "reset_all": (
        "all",
        gettext_noop("reset everything"),
        gettext_noop("Reset everything"),
        gettext_noop("Story, characters, module and NPCs go; keys and settings stay."),
    ),
}


def _keep_out_minutes(chosen: str) -> int:
    """The cool-down the operator picked on the Disconnect page (one of the offered
    choices; anything else means none)."""
    if not (chosen.isascii() and chosen.isdigit()):
        return 0
    return int(chosen) if int(chosen) in console.KEEP_OUT_CHOICES else 0


def _confirm(
    request: HttpRequest, rooms: QuerySet[Room], action: str, verb: str, consequence: str, backup_label: str
) -> TemplateResponse:
    """The page that asks before a destructive action: each room with who is online
    there now (they are told, or closed) and the backup file written first."""
    online = presence_now.online_now([room.pk for room in rooms])
    return TemplateResponse(
        request,
        "admin/rooms/room/confirm_action.html",
        {
            **admin.site.each_context(request),
            "title": gettext("Are you sure you want to {verb}?").format(verb=verb),
            "question": gettext("This will {verb} in:").format(verb=verb),
            "consequence": consequence,
            "rooms": [
                {
                    "room": room,
                    "online": ", ".join(
                        f"{member.name} ({room_page.role_label(member.role)})" for member in online[room.pk]
                    ),
                    "backup": console.backup_target(room, backup_label or room.name),
                }
                for room in rooms
            ],
            "action": action,
            "verb": verb,
        },
    )


def _backup_failed(room: Room, error: Exception) -> str:
    return gettext("{room}: the backup failed ({error}); nothing was deleted.").format(
        room=room.name, error=error
    )


def _reset_action(action: str) -> Callable[..., TemplateResponse | None]:
    scope, verb_words, button, consequence = RESETS[action]

    def run(
        modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Room]
    ) -> TemplateResponse | None:
        verb = gettext(verb_words)
        if request.POST.get("post") != "yes":
            return _confirm(request, queryset, action, verb, gettext(consequence), "before-reset")
        for room in queryset:
            try:
                safety, counts = console.reset(room, scope)
            except OSError as exc:
                messages.error(
                    request,
                    gettext("{room}: the backup failed ({error}); nothing was reset.").format(
                        room=room.name, error=exc
                    ),
                )
                continue
            modeladmin.log_change(request, room, f"{button} (after the backup {safety.name}).")
            messages.success(
                request,
                gettext("{room}: backed up to {backup}, then {verb} done ({rows} rows removed).").format(
                    room=room.name, backup=safety.name, verb=verb, rows=counts.store_rows
                ),
            )
        return None

    run.__name__ = action
    run.short_description = gettext_lazy(button)  # type: ignore[attr-defined]
    return run


@admin.register(Room)
class RoomAdmin(ReadOnlyAdmin):
    list_display = ["name", "members_online", "key_count", "line_count", "open_to_all", "created_at"]
    list_filter = ["open_to_all"]
    search_fields = ["name"]
    readonly_fields = [
        "name",
        "open_to_all",
        "sidequest_genre_control",
        "started_from_the_lobby",
        "created_at",
        "online_now",
        "room_actions",
        "room_keys",
        "room_backups",
        "recent_transcript",
    ]
    # The page shows these alone: the genre once, as its control (Django would add the
    # model's own field, read only, above it).
    fields = readonly_fields
    actions = [
        "export_backup",
        *(_reset_action(name) for name in RESETS),
        "delete_data_with_backup",
        "delete_room_with_backup",
        "open_to_any_name",
        "close_to_keys_only",
    ]

    @admin.action(
        description=gettext_lazy("Open to any name (SideQuest clients join without a key, as players)")
    )
    def open_to_any_name(self, request: HttpRequest, queryset: QuerySet[Room]) -> None:
        opened = queryset.update(open_to_all=True)
        messages.success(request, gettext("{count} room(s) open to any name.").format(count=opened))

    @admin.action(description=gettext_lazy("Close to keys only"))
    def close_to_keys_only(self, request: HttpRequest, queryset: QuerySet[Room]) -> None:
        closed = queryset.update(open_to_all=False)
        messages.success(request, gettext("{count} room(s) admit keys only.").format(count=closed))

    @admin.action(description=gettext_lazy("Export a backup"))
    def export_backup(self, request: HttpRequest, queryset: QuerySet[Room]) -> HttpResponse | None:
        written = []
        for room in queryset:
            path, counts = console.export(room)
            self.log_change(request, room, f"Exported the backup {path.name}.")
            written.append((room, path, counts))
        if len(written) == 1:
            # One room (the room page's button): its backup downloads, and the operator
            # stays on the page they were on.
            return backup_download(console.backup_at(written[0][1]))
        for room, path, counts in written:
            messages.success(
                request,
                gettext("{room}: backup {backup} written ({keys} keys, {rows} rows).").format(
                    room=room.name, backup=path.name, keys=counts.keys, rows=counts.store_rows
                ),
            )
        return None

    @admin.action(description=gettext_lazy("Delete data (after a backup)"))
    def delete_data_with_backup(
        self, request: HttpRequest, queryset: QuerySet[Room]
    ) -> TemplateResponse | None:
        if request.POST.get("post") != "yes":
            return _confirm(
                request,
                queryset,
                "delete_data_with_backup",
                gettext("delete the keys and story"),
                gettext(
                    "A backup of each room is written first; nothing is deleted if it cannot be. "
                    "Members online are disconnected (their keys are gone)."
                ),
                "",
            )
        for room in queryset:
            try:
                written, counts = console.delete_data(room)
            except OSError as exc:
                messages.error(request, _backup_failed(room, exc))
                continue
            self.log_change(request, room, f"Deleted the keys and story (after the backup {written.name}).")
            messages.success(
                request,
                gettext("{room}: backed up to {backup}, then {keys} keys and {rows} rows deleted.").format(
                    room=room.name, backup=written.name, keys=counts.keys, rows=counts.store_rows
                ),
            )
        return None

    @admin.action(description=gettext_lazy("Delete rooms (after a backup)"))
    def delete_room_with_backup(
        self, request: HttpRequest, queryset: QuerySet[Room]
    ) -> TemplateResponse | None:
        if request.POST.get("post") != "yes":
            return _confirm(
                request,
                queryset,
                "delete_room_with_backup",
                gettext("delete the rooms"),
                gettext(
                    "A backup of each room is written first (it stays on the Backups page, to "
                    "restore); nothing is deleted if it cannot be. Members online are disconnected."
                ),
                "",
            )
        for room in list(queryset):
            try:
                written, _counts = console.export(room)
            except OSError as exc:
                messages.error(request, _backup_failed(room, exc))
                continue
            self.log_deletions(request, [room])  # Django's order: logged while the row exists
            console.delete_room(room, written)
            messages.success(
                request,
                gettext("{room}: backed up to {backup}, then deleted.").format(
                    room=room.name, backup=written.name
                ),
            )
        return None

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        # Django's own delete keeps no backup and tells nobody: rooms go through
        # "Delete rooms (after a backup)" instead.
        return False

    def get_actions(self, request: HttpRequest) -> dict:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def get_urls(self) -> list:
        own = [
            path("backups/", self.admin_site.admin_view(self.backups_view), name="rooms_room_backups"),
            path(
                "<int:room_id>/disconnect/<str:member_id>/",
                self.admin_site.admin_view(self.disconnect_view),
                name="rooms_room_disconnect",
            ),
            path(
                "<int:room_id>/genre/", self.admin_site.admin_view(self.genre_view), name="rooms_room_genre"
            ),
            path(
                "<int:room_id>/revoke/<str:member_id>/",
                self.admin_site.admin_view(self.revoke_view),
                name="rooms_room_revoke",
            ),
            path(
                "backups/<int:backup_id>/download/",
                self.admin_site.admin_view(self.backup_download_view),
                name="rooms_room_backup_download",
            ),
            path(
                "backups/<int:backup_id>/restore/",
                self.admin_site.admin_view(self.backup_restore_view),
                name="rooms_room_backup_restore",
            ),
            path(
                "backups/<int:backup_id>/delete/",
                self.admin_site.admin_view(self.backup_delete_view),
                name="rooms_room_backup_delete",
            ),
        ]
        return own + super().get_urls()

    def _page(self, request: HttpRequest, template: str, title: str, **context: object) -> TemplateResponse:
        return TemplateResponse(
            request,
            f"admin/rooms/room/{template}",
            {**self.admin_site.each_context(request), "title": title, **context},
        )

    def disconnect_view(self, request: HttpRequest, room_id: int, member_id: str) -> HttpResponse:
        room = self.get_object(request, str(room_id))
        if room is None:
            raise Http404("no such room")
        member = next((m for m in console.online_members(room) if m.member_id == member_id), None)
        back = reverse("admin:rooms_room_change", args=[room.pk])
        if member is None:
            messages.warning(request, gettext("That member is no longer online."))
            return HttpResponseRedirect(back)
        if request.method != "POST" or request.POST.get("post") != "yes":
            return self._page(
                request,
                "disconnect_confirm.html",
                gettext("Disconnect {name}?").format(name=member.name),
                member=member,
                role=room_page.role_label(member.role),
                room=room,
                back=back,
                keep_out_choices=console.KEEP_OUT_CHOICES,
            )
        minutes = _keep_out_minutes(request.POST.get("keep_out", ""))
        console.disconnect(room, member_id, keep_out_minutes=minutes)
        kept = f", kept out for {minutes} minutes" if minutes else ""
        self.log_change(request, room, f"Disconnected {member.name} ({member.role}, {member_id}){kept}.")
        if minutes:
            told = gettext(
                "{name} was disconnected from {room} and cannot join again for {minutes} minutes. "
                "To keep them out for good, revoke their key."
            )
        else:
            told = gettext(
                "{name} was disconnected from {room}. Their client may rejoin at once. "
                "To keep them out for good, revoke their key."
            )
        messages.success(request, told.format(name=member.name, room=room.name, minutes=minutes))
        return HttpResponseRedirect(back)

    def genre_view(self, request: HttpRequest, room_id: int) -> HttpResponse:
        """Set the SideQuest genre the room is listed under (POST from the room page)."""
        room = self.get_object(request, str(room_id))
        if room is None:
            raise Http404("no such room")
        if request.method == "POST" and (changed := room_page.set_genre(request, room)):
            self.log_change(request, room, changed)
        return HttpResponseRedirect(reverse("admin:rooms_room_change", args=[room.pk]))

    def revoke_view(self, request: HttpRequest, room_id: int, member_id: str) -> HttpResponse:
        room = self.get_object(request, str(room_id))
        if room is None:
            raise Http404("no such room")
        holder = AccessKey.objects.filter(room=room, member_id=member_id).first()
        back = reverse("admin:rooms_room_change", args=[room.pk])
        if holder is None:
            messages.warning(request, gettext("That key is already gone."))
            return HttpResponseRedirect(back)
        if services.keys_delete_refusal(keys=AccessKey.objects.filter(room=room, member_id=member_id)):
            # Refused before the confirmation, not after it.
            messages.error(request, gettext(room_page.LAST_KEEPER).format(name=holder.name, room=room.name))
            return HttpResponseRedirect(back)
        if request.method != "POST" or request.POST.get("post") != "yes":
            return self._page(
                request,
                "revoke_confirm.html",
                gettext("Revoke {name}'s key?").format(name=holder.name),
                holder=holder,
                role=room_page.role_label(holder.role),
                room=room,
                back=back,
            )
        try:
            console.revoke(room, member_id)
        except services.LastKeeperError:
            messages.error(request, gettext(room_page.LAST_KEEPER).format(name=holder.name, room=room.name))
            return HttpResponseRedirect(back)
        self.log_change(request, room, f"Revoked the key of {holder.name} ({holder.role}, {member_id}).")
        messages.success(
            request,
            gettext("{name}'s key to {room} is revoked: they are closed and kept out.").format(
                name=holder.name, room=room.name
            ),
        )
        return HttpResponseRedirect(back)

    def backups_view(self, request: HttpRequest) -> TemplateResponse:
        return self._page(
            request,
            "backups.html",
            gettext("Backups"),
            backups=console.backup_listing(),
            folder=backups.backup_dir(),
        )

    @staticmethod
    def _backup(backup_id: int) -> RoomBackup:
        try:
            return console.backup_by_id(backup_id)
        except backups.BackupError:
            raise Http404(f"no backup #{backup_id}") from None

    def backup_download_view(self, request: HttpRequest, backup_id: int) -> HttpResponse:
        backup = self._backup(backup_id)
        try:
            return backup_download(backup)
        except backups.BackupError as exc:
            messages.error(
                request,
                gettext("{backup} cannot be downloaded: {error}").format(backup=backup.name, error=exc),
            )
            return HttpResponseRedirect(reverse("admin:rooms_room_backups"))

    def backup_restore_view(self, request: HttpRequest, backup_id: int) -> HttpResponse:
        backup = self._backup(backup_id)
        if request.method != "POST" or request.POST.get("post") != "yes":
            original = backups.room_named_in(backups.backup_file(backup)) or "?"
            return self._page(
                request,
                "backup_confirm.html",
                gettext("Restore {backup}?").format(backup=backup.name),
                question=gettext("Restore {backup}? The story of the room it goes into is replaced.").format(
                    backup=backup.name
                ),
                verb=gettext("restore"),
                restoring=True,
                original_room=original,
                safety_target=console.restore_safety_target(original),
            )
        try:
            typed = request.POST.get("room", "").strip()
            room, counts, safety = console.restore(backup, services.room_name_to_use(typed) if typed else "")
        except (OSError, backups.BackupError, services.KeyAdminError) as exc:
            messages.error(
                request, gettext("{backup} was not restored: {error}").format(backup=backup.name, error=exc)
            )
            return HttpResponseRedirect(reverse("admin:rooms_room_backups"))
        before = f" (the room as it was is saved as {safety.name}: restore it to undo this)" if safety else ""
        self.log_change(request, room, f"Restored the backup {backup.name}{before}.")
        # The file's name leads with a word: the admin capitalises a message's first letter.
        restored = gettext("Restored {backup} into room {room} ({keys} keys, {rows} rows).")
        if safety:
            restored = gettext(
                "Restored {backup} into room {room} ({keys} keys, {rows} rows) "
                "(the room as it was is saved as {safety}: restore it to undo this)."
            )
        messages.success(
            request,
            restored.format(
                backup=backup.name,
                room=room.name,
                keys=counts.keys,
                rows=counts.store_rows,
                safety=safety.name if safety else "",
            ),
        )
        if not room.keys.filter(role=Role.KEEPER).exists():
            messages.warning(
                request,
                format_html(
                    gettext('Room {} has no keeper key: <a href="{}?room={}">mint one</a> to run it.'),
                    room.name,
                    reverse("admin:rooms_accesskey_add"),
                    room.pk,
                ),
            )
        return HttpResponseRedirect(reverse("admin:rooms_room_change", args=[room.pk]))

    def backup_delete_view(self, request: HttpRequest, backup_id: int) -> HttpResponse:
        backup = self._backup(backup_id)
        if request.method != "POST" or request.POST.get("post") != "yes":
            return self._page(
                request,
                "backup_confirm.html",
                gettext("Delete {backup}?").format(backup=backup.name),
                question=gettext("Delete the backup file {backup}? This cannot be undone.").format(
                    backup=backup.name
                ),
                verb=gettext("delete it"),
            )
        self.log_deletions(request, RoomBackup.objects.filter(pk=backup.pk))
        backups.backup_delete(backup)
        messages.success(request, gettext("{backup} deleted.").format(backup=backup.name))
        return HttpResponseRedirect(reverse("admin:rooms_room_backups"))

    def get_queryset(self, request: HttpRequest) -> QuerySet[Room]:
        return (
            super()
            .get_queryset(request)
            .annotate(key_count=Count("keys", distinct=True), line_count=Count("transcript", distinct=True))
        )

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        response = super().changelist_view(request, extra_context)
        # One read of the shared presence for the whole page, not one per row.
        rows = getattr(response, "context_data", {}).get("cl")
        if rows is not None:
            self._online = presence_now.online_counts([room.pk for room in rows.result_list])
        return response

    @admin.display(description=gettext_lazy("online"))
    def members_online(self, room: Room) -> int:
        online = getattr(self, "_online", None)
        if online is not None and room.pk in online:
            return online[room.pk]
        return presence_now.online_counts([room.pk])[room.pk]

    @admin.display(description=gettext_lazy("online now"))
    def online_now(self, room: Room) -> str:
        return room_page.online_html(room)

    @admin.display(description=gettext_lazy("actions"))
    def room_actions(self, room: Room) -> str:
        return room_page.actions_html(room)

    @admin.display(description=gettext_lazy("started from the SideQuest lobby"))
    def started_from_the_lobby(self, room: Room) -> str:
        # Words, not Django's bare ✗ beside the field's help text (which read as a statement).
        return gettext("yes: a player made it from the lobby") if room.started_by_player else gettext("no")

    @admin.display(description=gettext_lazy("SideQuest genre"))
    def sidequest_genre_control(self, room: Room) -> str:
        return room_page.genre_html(room)

    @admin.display(description=gettext_lazy("keys"))
    def room_keys(self, room: Room) -> str:
        return room_page.keys_html(room)

    @admin.display(description=gettext_lazy("backups"))
    def room_backups(self, room: Room) -> str:
        return room_page.backups_html(room)

    @admin.display(description=gettext_lazy("keys"), ordering="key_count")
    def key_count(self, room: Room) -> int:
        return room.key_count

    @admin.display(description=gettext_lazy("story lines"), ordering="line_count")
    def line_count(self, room: Room) -> int:
        return room.line_count

    @admin.display(
        description=format_lazy(
            gettext_lazy("last {count} story lines, as players saw them"), count=RECENT_LINES
        )
    )
    def recent_transcript(self, room: Room) -> str:
        lines = story_as_seen(room, RECENT_LINES)
        return story_html(lines) if lines else gettext("No story yet.")


@admin.register(TranscriptEntry)
class TranscriptEntryAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "room", "speaker", "name", "short_text"]
    list_filter = ["speaker", "room"]
    list_select_related = ["room"]
    search_fields = ["text", "name"]

    @admin.display(description=gettext_lazy("text"))
    def short_text(self, entry: TranscriptEntry) -> str:
        return entry.text[:120]
