from django.apps import AppConfig


class PacksConfig(AppConfig):
    """Content packs (`.lwpack`): building, checking and installing them, and what they
    bring to a room (panels, variables, cards, assets). Above the table and media, below
    the game, which uses what a pack brings."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "packs"

    def ready(self) -> None:
        # The hook scripts' cache listens to the packs' models once every app is loaded.
        from packs import hook_cache

        hook_cache.connect()
