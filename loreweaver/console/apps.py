from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    """The operator console: the Django admin pages for rooms, keys, backups and who is
    online. It calls the table's services and tells live members through the wire."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "loreweaver.console"
    label = "console"
