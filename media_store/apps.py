from django.apps import AppConfig


class MediaStoreConfig(AppConfig):
    """Media: the index, blob storage, the SVG gate, the audio library and desk."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "media_store"
    verbose_name = "media"

    def ready(self) -> None:
        # Imported here, not at the top: these modules use the models, which exist only
        # once every app is loaded (Django calls ready() then).
        from media_store.backup import MediaPart
        from rooms import backups

        backups.register(MediaPart())
