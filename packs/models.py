"""Installed content packs and their files (the bytes live in the media storage,
content-addressed, so every server process reads the same pack)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class InstalledPack(models.Model):
    """A pack installed on this server. Installed is not enabled: a keeper admits its
    panels to a room."""

    pack_id = models.CharField(max_length=64, unique=True)
    version = models.CharField(max_length=64)
    name = models.JSONField(help_text="{en, zh}")
    description = models.JSONField(default=dict)
    license = models.CharField(max_length=200)
    manifest = models.JSONField(help_text="the checked manifest: inventory, assets, trust card")
    panels = models.JSONField(default=list, help_text="resolved panels, each with its audience")
    cards = models.JSONField(default=list, help_text="its card files: path, name, kind")
    installed_by = models.CharField(max_length=64, blank=True)
    installed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("installed pack")
        verbose_name_plural = _("installed packs")
        ordering = ["pack_id"]

    def __str__(self) -> str:
        return f"{self.pack_id} {self.version}"

    def title(self, locale: str = "en") -> str:
        """The pack's name in `locale` (English when it has none)."""
        return self.name.get(locale) or self.name.get("en") or self.pack_id


class PackFile(models.Model):
    """One file of an installed pack, by its path in the pack."""

    pack = models.ForeignKey(InstalledPack, on_delete=models.CASCADE, related_name="files")
    path = models.CharField(max_length=512)
    sha256 = models.CharField(max_length=64, db_index=True)
    size = models.PositiveBigIntegerField()
    mime = models.CharField(max_length=80)

    class Meta:
        verbose_name = _("pack file")
        verbose_name_plural = _("pack files")
        ordering = ["pack", "path"]
        constraints = [models.UniqueConstraint(fields=["pack", "path"], name="one_file_per_path_per_pack")]

    def __str__(self) -> str:
        return f"{self.pack.pack_id}/{self.path}"

    @property
    def storage_key(self) -> str:
        """Where the bytes are in the media storage (shared by identical files)."""
        return storage_key(self.sha256)


def storage_key(sha256: str) -> str:
    """The media-storage key of a pack file's bytes."""
    return f"packs/{sha256[:2]}/{sha256}"


class RoomPack(models.Model):
    """A pack whose panels a keeper enabled in a room (`.panels enable`)."""

    room = models.ForeignKey("rooms.Room", on_delete=models.CASCADE, related_name="packs")
    pack = models.ForeignKey(InstalledPack, on_delete=models.CASCADE, related_name="rooms")
    enabled_by = models.CharField(max_length=64, blank=True)
    enabled_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("room pack")
        verbose_name_plural = _("room packs")
        ordering = ["room", "id"]
        constraints = [
            models.UniqueConstraint(fields=["room", "pack"], name="one_enabling_per_pack_per_room")
        ]

    def __str__(self) -> str:
        return f"{self.pack.pack_id} in {self.room_id}"


class BundledPack(models.Model):
    """A pack that ships with the server and was installed here once: it is not
    installed again after an operator removed it."""

    pack_id = models.CharField(max_length=64, unique=True)
    version = models.CharField(max_length=64)
    installed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("bundled pack")
        verbose_name_plural = _("bundled packs")

    def __str__(self) -> str:
        return f"{self.pack_id} {self.version} (bundled)"


class RoomHook(models.Model):
    """A hook script a world card brought to a room (`.import <ref> world`). A pack's
    own `hooks.js` runs while its pack is on in the room and needs no row here."""

    room = models.ForeignKey("rooms.Room", on_delete=models.CASCADE, related_name="hooks")
    source = models.CharField(max_length=200, help_text="the card it came from")
    position = models.PositiveSmallIntegerField(default=0)
    code = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("room hook")
        verbose_name_plural = _("room hooks")
        ordering = ["room", "source", "position"]

    def __str__(self) -> str:
        return f"{self.source} #{self.position} in {self.room_id}"
