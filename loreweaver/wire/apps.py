from django.apps import AppConfig


class WireConfig(AppConfig):
    """The wire: both carriers, the session, frame validation, the hub, the turn queue,
    admin frames, the media channel and the serving commands. It sits above the game
    and the table; nothing below imports it."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "loreweaver.wire"
    label = "wire"

    def ready(self) -> None:
        # Imported here, not at the top: these modules use the models, which exist only
        # once every app is loaded (Django calls ready() then).
        from django.core import checks

        from loreweaver.wire import deploy, listeners

        listeners.connect()
        checks.register(deploy.proxy_listed, checks.Tags.security)
