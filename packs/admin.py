"""Installed packs in the operator console: what each holds (its trust card), and
removal that also frees the pack's stored files. Packs are installed from the shell
(`manage.py pack install`) or by a keeper (`.pack install`), never uploaded here."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html_join

from packs import services
from packs.models import InstalledPack


@admin.register(InstalledPack)
class InstalledPackAdmin(admin.ModelAdmin):
    list_display = ["pack_id", "version", "title", "license", "installed_by", "installed_at"]
    search_fields = ["pack_id"]
    fields = ["pack_id", "version", "title", "license", "installed_by", "installed_at", "trust_card", "files"]
    readonly_fields = fields
    actions = ["remove_packs"]

    @admin.display(description="name")
    def title(self, pack: InstalledPack) -> str:
        return pack.title()

    @admin.display(description="trust card")
    def trust_card(self, pack: InstalledPack) -> str:
        return format_html_join(
            "\n", "<p>{}</p>", ((line,) for line in services.trust_lines(pack.manifest, "en"))
        )

    @admin.display(description="files")
    def files(self, pack: InstalledPack) -> str:
        return format_html_join(
            "\n", "<div><code>{}</code> {} bytes</div>", pack.files.values_list("path", "size")
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: InstalledPack | None = None) -> bool:
        return False

    def delete_model(self, request: HttpRequest, obj: InstalledPack) -> None:
        services.remove(obj.pack_id)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[InstalledPack]) -> None:
        for pack_id in list(queryset.values_list("pack_id", flat=True)):
            services.remove(pack_id)

    def get_actions(self, request: HttpRequest) -> dict:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # `remove_packs` frees the stored files too
        return actions

    @admin.action(description="Remove the selected packs (and their stored files)", permissions=["delete"])
    def remove_packs(self, request: HttpRequest, queryset: QuerySet[InstalledPack]) -> None:
        removed = [
            services.remove(pack_id).pack_id for pack_id in list(queryset.values_list("pack_id", flat=True))
        ]
        self.message_user(request, f"Removed {len(removed)} pack(s): {', '.join(removed)}.")
