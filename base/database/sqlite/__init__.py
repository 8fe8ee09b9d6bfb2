"""The embedded profile's database backend: Django's SQLite backend, each statement's
placeholders converted once per process (`ENGINE = "base.database.sqlite"`)."""
