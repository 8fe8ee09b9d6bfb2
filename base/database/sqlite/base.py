"""Django's SQLite backend, converting a statement's `%s` placeholders to SQLite's `?`
once per distinct statement rather than at every execution.

Django runs a regular expression over the whole statement at every `execute`; a turn
sends the same few statements thousands of times, and the conversion was a fiftieth of
an embedded roll's server work. The conversion is Django's own, kept by statement.
"""

from __future__ import annotations

import functools

from django.db.backends.sqlite3 import base as sqlite3


@functools.lru_cache(maxsize=2048)
def _with_question_marks(query: str) -> str:
    return sqlite3.FORMAT_QMARK_REGEX.sub("?", query).replace("%%", "%")


class CursorWrapper(sqlite3.SQLiteCursorWrapper):
    """Django's SQLite cursor, its placeholder conversion remembered per statement."""

    def convert_query(self, query: str, *, param_names: list[str] | None = None) -> str:
        """`query` with SQLite's placeholders (named ones converted as Django does)."""
        if param_names is not None:
            return super().convert_query(query, param_names=param_names)
        return _with_question_marks(query)


class DatabaseWrapper(sqlite3.DatabaseWrapper):
    """Django's SQLite backend with `CursorWrapper`."""

    def create_cursor(self, name: str | None = None) -> CursorWrapper:
        """A cursor of this connection (Django's, with the remembered conversion)."""
        return self.connection.cursor(factory=CursorWrapper)
