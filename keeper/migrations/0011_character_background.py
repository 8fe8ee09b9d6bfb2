import importlib

from django.db import migrations, models

_stamp = importlib.import_module("keeper.migrations.0008_state_stamp")


def restore_sqlite_triggers(apps, schema_editor):
    # SQLite adds this column by rebuilding the table, which drops its state-stamp
    # triggers; Postgres alters the table in place and keeps them.
    if schema_editor.connection.vendor == "sqlite":
        _stamp.drop_triggers_on(schema_editor, ["keeper_character"])
        _stamp.create_triggers_on(schema_editor, ["keeper_character"])


class Migration(migrations.Migration):
    dependencies = [
        ("keeper", "0010_lore"),
    ]

    operations = [
        migrations.AddField(
            model_name="character",
            name="background",
            field=models.TextField(blank=True, help_text="who they are (from an imported card)"),
        ),
        migrations.RunPython(restore_sqlite_triggers, migrations.RunPython.noop),
    ]
