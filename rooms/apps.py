from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RoomsConfig(AppConfig):
    """The table's domain: rooms, access keys, the transcript and its turn events, with
    their services and selectors. The lowest app: it imports no other app."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "rooms"
    verbose_name = _("Rooms")

    def ready(self) -> None:
        # Imported here, not at the top: these modules use the models, which exist only
        # once every app is loaded (Django calls ready() then).
        from django.db.models.signals import post_delete, post_save

        from rooms import backups, signals

        backups.register(backups.TablePart())
        access_key = self.get_model("AccessKey")
        post_save.connect(signals.key_saved_or_deleted, sender=access_key, dispatch_uid="rooms.key.saved")
        post_delete.connect(signals.key_saved_or_deleted, sender=access_key, dispatch_uid="rooms.key.deleted")
