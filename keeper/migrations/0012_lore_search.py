"""The full-text index `keeper.lore_search` reads (see its docstring for the choices).

SQLite: an FTS5 table `keeper_lore_fts` (title, keywords, content; rowid = the entry's
id) with its own copy of the text, kept in step with `keeper_loreentry` by three
triggers. Keywords are indexed as words: the JSON list is unpacked with `json_each`
(Django stores it with `\\uXXXX` escapes on SQLite, so the raw column would not do).

Postgres: an IMMUTABLE function `keeper_lore_document(title, keywords, content)` that
builds the entry's tsvector (the 'english' configuration; every CJK character made a
word of its own; title and keywords weighted A, content D), and a GIN index on it.

A later migration that rebuilds `keeper_loreentry` on SQLite (AddField, AlterField...:
Django copies the rows to a new table and drops the old one) drops the triggers with
the old table: it must call `create_sqlite_triggers(schema_editor)` after, or put
`migrations.RunPython(restore_after_rebuild, migrations.RunPython.noop)` after its
operations. Postgres alters the table in place and keeps the index.
"""

from django.db import migrations

FTS_TABLE = "keeper_lore_fts"
TRIGGERS = ("keeper_loreentry_fts_insert", "keeper_loreentry_fts_update", "keeper_loreentry_fts_delete")
PG_FUNCTION = "keeper_lore_document"
PG_INDEX = "keeper_lore_search_idx"

# The keywords of a row of keeper_loreentry as words ("灯塔 Old Dock"), whatever JSON it holds.
_SQLITE_KEYWORDS = (
    "CASE WHEN json_valid({row}.keywords) "
    "THEN (SELECT group_concat(value, ' ') FROM json_each({row}.keywords)) "
    "ELSE {row}.keywords END"
)

_SQLITE_INSERT = (
    f"INSERT INTO {FTS_TABLE} (rowid, title, keywords, content) "
    "VALUES ({row}.id, {row}.title, " + _SQLITE_KEYWORDS + ", {row}.content);"
)

_SQLITE_DELETE = f"DELETE FROM {FTS_TABLE} WHERE rowid = {{row}}.id;"

# The ideographs and kana (the scripts written without spaces between words).
_CJK_CLASS = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"

_PG_CREATE_FUNCTION = rf"""
CREATE OR REPLACE FUNCTION {PG_FUNCTION}(title text, keywords jsonb, content text)
RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector('english'::regconfig,
                     regexp_replace(coalesce(title, '') || ' ' || coalesce(keywords::text, ''),
                                    '({_CJK_CLASS})', ' \1 ', 'g')), 'A')
      || to_tsvector('english'::regconfig,
                     regexp_replace(coalesce(content, ''), '({_CJK_CLASS})', ' \1 ', 'g'))
$$
"""


def create_sqlite_triggers(schema_editor):
    """(Re)create the triggers that keep the FTS table in step with keeper_loreentry and
    copy every entry into it afresh: what a migration that rebuilt the table calls."""
    for name in TRIGGERS:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}")
    schema_editor.execute(
        f"CREATE TRIGGER keeper_loreentry_fts_insert AFTER INSERT ON keeper_loreentry "
        f"FOR EACH ROW BEGIN {_SQLITE_INSERT.format(row='NEW')} END"
    )
    schema_editor.execute(
        f"CREATE TRIGGER keeper_loreentry_fts_update AFTER UPDATE ON keeper_loreentry FOR EACH ROW BEGIN "
        f"{_SQLITE_DELETE.format(row='OLD')} {_SQLITE_INSERT.format(row='NEW')} END"
    )
    schema_editor.execute(
        f"CREATE TRIGGER keeper_loreentry_fts_delete AFTER DELETE ON keeper_loreentry "
        f"FOR EACH ROW BEGIN {_SQLITE_DELETE.format(row='OLD')} END"
    )
    schema_editor.execute(f"DELETE FROM {FTS_TABLE}")
    schema_editor.execute(
        f"INSERT INTO {FTS_TABLE} (rowid, title, keywords, content) "
        f"SELECT e.id, e.title, {_SQLITE_KEYWORDS.format(row='e')}, e.content FROM keeper_loreentry e"
    )


def create_sqlite_index(schema_editor):
    """The FTS5 table, its triggers and its rows (safe to run again)."""
    schema_editor.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5("
        "title, keywords, content, tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    create_sqlite_triggers(schema_editor)


def create_postgres_index(schema_editor):
    """The document function and the GIN index on it (safe to run again)."""
    schema_editor.execute(_PG_CREATE_FUNCTION)
    schema_editor.execute(
        f"CREATE INDEX IF NOT EXISTS {PG_INDEX} ON keeper_loreentry "
        f"USING gin ({PG_FUNCTION}(title, keywords, content))"
    )


def create_index(schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        create_sqlite_index(schema_editor)
    elif vendor == "postgresql":
        create_postgres_index(schema_editor)
    else:
        raise NotImplementedError(f"no lore search index for {vendor}")


def drop_index(schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for name in TRIGGERS:
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}")
        schema_editor.execute(f"DROP TABLE IF EXISTS {FTS_TABLE}")
    elif vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {PG_INDEX}")
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {PG_FUNCTION}(text, jsonb, text)")


def restore_after_rebuild(apps, schema_editor):
    """For a later migration's RunPython after it rebuilt keeper_loreentry on SQLite."""
    if schema_editor.connection.vendor == "sqlite":
        create_sqlite_triggers(schema_editor)


def forwards(apps, schema_editor):
    create_index(schema_editor)


def backwards(apps, schema_editor):
    drop_index(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("keeper", "0011_character_background"),
    ]

    operations = [
        migrations.RunPython(forwards, backwards),
    ]
