from django.apps import AppConfig


class PacksConfig(AppConfig):
    """Content packs (`.lwpack`): building, checking and installing them, and what they
    bring to a room (panels, variables, cards, assets). Above the table and media, below
    the game, which uses what a pack brings."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "packs"
