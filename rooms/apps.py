from django.apps import AppConfig


class RoomsConfig(AppConfig):
    """The table's domain: rooms, access keys, the transcript and its turn events, with
    their services and selectors. The lowest app: it imports no other app."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "rooms"

    def ready(self) -> None:
        # Imported here, not at the top: these modules use the models, which exist only
        # once every app is loaded (Django calls ready() then).
        from rooms import backups

        backups.register(backups.TablePart())
