from django.apps import AppConfig


class RoomsConfig(AppConfig):
    """The table: keys, rooms, transcript, the wire protocol and both carriers."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "rooms"

    def ready(self) -> None:
        from rooms import revocation

        revocation.connect()
