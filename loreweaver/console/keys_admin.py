"""The console's pages for access keys: minted here and shown once, never the last
keeper key lost; guests' seats marked, pruned when they expired unused, and the
revoked ones listed (deleting a revocation lets that browser sit again)."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected as django_delete_selected
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy

from loreweaver.console import room_page
from loreweaver.console import services as console
from loreweaver.console.forms import KeyChangeForm, KeyMintForm
from rooms import guests, services
from rooms.models import AccessKey, GuestRevocation


@admin.register(AccessKey)
class AccessKeyAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "room",
        "role",
        "guest",
        "purpose",
        "expires_at",
        "key_masked",
        "public_id",
        "created_at",
    ]
    list_filter = ["role", "guest", "purpose", "room"]
    list_select_related = ["room"]
    search_fields = ["name", "room__name"]
    readonly_fields = [
        "room",
        "guest",
        "purpose",
        "expires_at",
        "key_masked",
        "member_id",
        "public_id",
        "created_at",
    ]
    actions = ["delete_selected", "prune_expired_guests"]

    @admin.action(description=gettext_lazy("Prune guest seats that expired unused (all rooms)"))
    def prune_expired_guests(self, request: HttpRequest, queryset: QuerySet[AccessKey]) -> None:
        pruned = guests.guests_prune()
        told = gettext("Pruned {count} guest seat(s) that expired unused.").format(count=pruned)
        self.message_user(request, told, messages.SUCCESS)

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        # The prune action needs no selection: it acts on every expired guest seat.
        if request.POST.get("action") == "prune_expired_guests" and not request.POST.getlist(
            admin.helpers.ACTION_CHECKBOX_NAME
        ):
            post = request.POST.copy()
            post.setlist(admin.helpers.ACTION_CHECKBOX_NAME, ["0"])
            request.POST = post
        return super().changelist_view(request, extra_context)

    def get_form(self, request: HttpRequest, obj: AccessKey | None = None, **kwargs: object):
        kwargs["form"] = KeyChangeForm if obj is not None else KeyMintForm
        return super().get_form(request, obj, **kwargs)

    def get_fields(self, request: HttpRequest, obj: AccessKey | None = None) -> list[str]:
        if obj is None:
            return ["room", "new_room", "name", "role"]
        return ["room", "name", "role", *self.readonly_fields[1:]]  # the rest is read only

    def get_readonly_fields(self, request: HttpRequest, obj: AccessKey | None = None) -> list[str]:
        return self.readonly_fields if obj is not None else []

    def save_model(self, request: HttpRequest, obj: AccessKey, form: KeyMintForm, change: bool) -> None:
        if change:
            services.key_update(
                access_key=obj, name=form.cleaned_data["name"], role=form.cleaned_data["role"]
            )
            return
        minted = services.key_mint(
            room=form.room_name(), name=form.cleaned_data["name"], role=form.cleaned_data["role"]
        )
        obj.pk, obj.room = minted.access_key.pk, minted.access_key.room
        request.minted_key = minted  # shown once, in the page that answers this request

    def response_add(self, request: HttpRequest, obj: AccessKey, post_url_continue: str | None = None):
        """The new key in a panel with copy buttons and an invitation, until dismissed
        (never in a message, which would travel in the session)."""
        minted = getattr(request, "minted_key", None)
        if minted is None:
            return super().response_add(request, obj, post_url_continue)
        key = minted.access_key
        return TemplateResponse(
            request,
            "admin/rooms/accesskey/minted.html",
            {
                **self.admin_site.each_context(request),
                "title": gettext("Key for {name}").format(name=key.name),
                "key": minted.key,
                "name": key.name,
                "role": room_page.role_label(key.role),
                "room": key.room.name,
                **console.invitation_context(request, key.room.name, key.name, key.role, minted.key),
                "done_url": reverse("admin:rooms_room_change", args=[key.room_id]),
            },
        )

    @admin.action(description=django_delete_selected.short_description, permissions=["delete"])
    def delete_selected(self, request: HttpRequest, queryset: QuerySet[AccessKey]) -> HttpResponse | None:
        """Django's delete, refused before its confirmation page when it would take a
        room's last keeper key (asking first and refusing after is a trap)."""
        if (room := services.keys_delete_refusal(keys=queryset)) is not None:
            messages.error(
                request,
                gettext(
                    "Nothing was deleted: room {room} would lose its last keeper key. "
                    "Mint another keeper key for it first."
                ).format(room=room),
            )
            return None
        return django_delete_selected(self, request, queryset)

    def has_delete_permission(self, request: HttpRequest, obj: AccessKey | None = None) -> bool:
        # The last keeper key's page offers no Delete (its page says why instead).
        if obj is not None and obj.is_last_keeper():
            return False
        return super().has_delete_permission(request, obj)

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict | None = None
    ) -> HttpResponse:
        key = self.get_object(request, object_id)
        if request.method == "GET" and key is not None and key.is_last_keeper():
            messages.info(request, _last_keeper_message(key))
        return super().change_view(request, object_id, form_url, extra_context)

    def delete_view(self, request: HttpRequest, object_id: str, extra_context: dict | None = None):
        key = self.get_object(request, object_id)
        if key is not None and key.is_last_keeper():
            messages.error(request, _last_keeper_message(key))
            return HttpResponseRedirect(reverse("admin:rooms_accesskey_change", args=[key.pk]))
        return super().delete_view(request, object_id, extra_context)

    def delete_model(self, request: HttpRequest, obj: AccessKey) -> None:
        services.key_delete(access_key=obj)
        super().log_deletions(request, [obj])

    def log_deletions(self, request: HttpRequest, queryset: Iterable[AccessKey]) -> None:
        # Django logs a bulk deletion before it happens; `delete_queryset` logs it once
        # it happened (a refused one is not logged).
        pass

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[AccessKey]) -> None:
        doomed = list(queryset.select_related("room"))
        try:
            services.keys_delete(keys=doomed)
        except services.LastKeeperError as exc:
            refused = gettext("Nothing was deleted: room {room} would lose its last keeper key.")
            messages.error(request, refused.format(room=exc.room))
            request.deletion_refused = True
            return
        super().log_deletions(request, doomed)

    def message_user(
        self, request: HttpRequest, message: str, level: int = messages.INFO, *args, **kwargs
    ) -> None:
        # When deleting was refused, do not claim success on top of the refusal.
        if level == messages.SUCCESS and getattr(request, "deletion_refused", False):
            return
        super().message_user(request, message, level, *args, **kwargs)


def _last_keeper_message(key: AccessKey) -> str:
    return gettext(
        "{name} holds the last keeper key of room {room}: "
        "mint another keeper key before deleting or demoting it."
    ).format(name=key.name, room=key.room.name)


@admin.register(GuestRevocation)
class GuestRevocationAdmin(admin.ModelAdmin):
    """Guests whose seats were revoked: their browsers may not sit in that room again
    until the revocation is deleted here."""

    list_display = ["name", "room", "created_at"]
    list_filter = ["room"]
    list_select_related = ["room"]
    search_fields = ["name", "room__name"]
    readonly_fields = ["room", "name", "created_at"]
    fields = ["room", "name", "created_at"]

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
