"""Media in the operator console: each room's files with size and uploader, a preview
of images (served to staff only, from the storage), and deletion that removes the
blob with its index row."""

from __future__ import annotations

from django.contrib import admin
from django.core.files.storage import default_storage
from django.db.models import QuerySet
from django.http import FileResponse, Http404, HttpRequest
from django.urls import path, reverse
from django.utils.html import format_html

from media_store.models import AudioLayer, MediaItem, MediaKind, RoomMedia


def delete_blob(item: MediaItem) -> None:
    """Remove a file's blob (its key is the room's own)."""
    if default_storage.exists(item.storage_key):
        default_storage.delete(item.storage_key)


@admin.register(MediaItem)
class MediaItemAdmin(admin.ModelAdmin):
    list_display = ["name", "room", "kind", "mime", "size", "uploader_name", "created_at"]
    list_filter = ["kind", "room"]
    list_select_related = ["room"]
    search_fields = ["name", "title", "sha256", "room__name"]
    readonly_fields = ["room", "sha256", "kind", "mime", "size", "uploader_name", "created_at", "preview"]
    fields = [*readonly_fields, "name", "title", "license", "source", "tags"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # files arrive through the byte channel

    @admin.display(description="preview")
    def preview(self, item: MediaItem) -> str:
        if item.kind != MediaKind.IMAGE:
            return "—"
        url = reverse("admin:media_store_mediaitem_blob", args=[item.pk])
        return format_html(
            '<img src="{}" alt="{}" style="max-width: 320px; max-height: 320px">', url, item.name
        )

    def get_urls(self) -> list:
        blob = path(
            "<int:pk>/blob/", self.admin_site.admin_view(self.blob_view), name="media_store_mediaitem_blob"
        )
        return [blob, *super().get_urls()]

    def blob_view(self, request: HttpRequest, pk: int) -> FileResponse:
        item = MediaItem.objects.filter(pk=pk).first()
        if item is None or not default_storage.exists(item.storage_key):
            raise Http404("no such file")
        response = FileResponse(default_storage.open(item.storage_key, "rb"), content_type=item.mime)
        # An uploaded file is shown, never run: no scripts, no same-origin reach.
        response["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
        response["X-Content-Type-Options"] = "nosniff"
        return response

    def delete_model(self, request: HttpRequest, obj: MediaItem) -> None:
        delete_blob(obj)
        super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[MediaItem]) -> None:
        for item in queryset:
            delete_blob(item)
        super().delete_queryset(request, queryset)


@admin.register(RoomMedia)
class RoomMediaAdmin(admin.ModelAdmin):
    list_display = ["room", "uploads_enabled"]


@admin.register(AudioLayer)
class AudioLayerAdmin(admin.ModelAdmin):
    list_display = ["room", "layer", "name", "playing", "loop", "volume"]
