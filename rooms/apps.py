from django.apps import AppConfig


class RoomsConfig(AppConfig):
    """The table's domain: rooms, access keys, the transcript and its turn events, with
    their services and selectors. The lowest app: it imports no other app."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "rooms"

    def ready(self) -> None:
        from rooms import backups

        backups.register(backups.TablePart())
