import importlib

from django.db import migrations, models

_search = importlib.import_module("keeper.migrations.0012_lore_search")


class Migration(migrations.Migration):
    dependencies = [
        ("keeper", "0013_chronicle"),
    ]

    operations = [
        migrations.AddField(
            model_name="loreentry",
            name="embedded_with",
            field=models.CharField(blank=True, editable=False, max_length=120),
        ),
        migrations.AddField(
            model_name="loreentry",
            name="embedding",
            field=models.JSONField(blank=True, editable=False, null=True),
        ),
        # SQLite adds these columns by rebuilding the table, which drops the triggers
        # that keep the full-text index in step; Postgres alters it in place.
        migrations.RunPython(_search.restore_after_rebuild, migrations.RunPython.noop),
    ]
