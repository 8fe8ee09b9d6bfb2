from django.apps import AppConfig


class TableConfig(AppConfig):
    """The browser table: a page at `/` that plays protocol 2.3 over the WebSocket
    carrier like any other client (its code is static ES modules, no build step)."""

    name = "loreweaver.table"
    label = "browser_table"
