from django.apps import AppConfig


class MediaStoreConfig(AppConfig):
    """Media index and blob storage (the byte channel arrives with the media issue)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "media_store"
    verbose_name = "media"
