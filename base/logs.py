"""The server's log lines: plain text by default, one JSON object per line with
`TRPG_LOG_FORMAT=json`. Every line written while a connection is being served carries
its carrier, and once it joined its room and member id (never its key): the session
puts them in `connection_log` when the connection opens and when it joins."""

from __future__ import annotations

import contextvars
import datetime
import json
import logging

_CONTEXT: contextvars.ContextVar[dict | None] = contextvars.ContextVar("loreweaver_connection", default=None)
FIELDS = ("carrier", "room", "member")


def connection_log(**fields: str) -> None:
    """Name what this connection's log lines carry (the current context and the tasks
    it starts afterwards share one dict, so a later join reaches them too)."""
    current = _CONTEXT.get()
    if current is None:
        _CONTEXT.set(dict(fields))
    else:
        current.update(fields)


class ConnectionFilter(logging.Filter):
    """Puts the connection's fields on each record (empty outside a connection)."""

    def filter(self, record: logging.LogRecord) -> bool:
        current = _CONTEXT.get() or {}
        for name in FIELDS:
            setattr(record, name, current.get(name, ""))
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the connection's fields
    when there are any, and the exception's text when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.datetime.fromtimestamp(record.created, datetime.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update({name: getattr(record, name) for name in FIELDS if getattr(record, name, "")})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)
