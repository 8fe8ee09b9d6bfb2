"""The server's numbers, in the Prometheus text format at `/metrics` (each process
its own: `loreweaver/ops/metrics.py` serves them). Declared here, at the bottom of the
layers, so every part of the server can count what it does."""

from __future__ import annotations

import functools
from collections.abc import Iterator

from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

CONNECTIONS = Gauge("loreweaver_connections", "Open connections, by carrier", ["carrier"])
MEMBERS = Gauge("loreweaver_joined_members", "Connections that joined a room, by carrier", ["carrier"])
ACTIVE_ROOMS = Gauge("loreweaver_active_rooms", "Rooms with a member connected to this process")
FRAMES_IN = Counter("loreweaver_frames_in_total", "Frames received from clients, by type", ["type"])
FRAMES_OUT = Counter("loreweaver_frames_out_total", "Frames sent to clients, by type", ["type"])


@functools.lru_cache(maxsize=256)  # frame types are the protocol's few; the bound is a guard
def frames_out(frame_type: str) -> Counter:
    """The count of frames of `frame_type` sent: `FRAMES_OUT.labels(frame_type)`, looked
    up once per type (every frame to every member is counted)."""
    return FRAMES_OUT.labels(frame_type)


TURNS = Histogram(
    "loreweaver_turn_seconds",
    "Turns of rooms, from the input to the end of the turn, by kind (command, line, keeper)",
    ["kind"],
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120),
)
MODEL_CALLS = Counter(
    "loreweaver_model_calls_total", "Calls to the model, by provider and outcome", ["provider", "outcome"]
)
MODEL_SECONDS = Histogram(
    "loreweaver_model_seconds",
    "Time of a model call, by provider",
    ["provider"],
    buckets=(0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120),
)
MODEL_TOKENS = Counter(
    "loreweaver_model_tokens_total", "Model tokens, by provider and direction", ["provider", "direction"]
)
BUS_SUBSCRIBE_RETRIES = Counter(
    "loreweaver_bus_subscribe_retries_total",
    "Room bus subscriptions that Redis did not confirm in time, sent again",
)
REFUSALS = Counter("loreweaver_refusals_total", "Frames or joins refused, by error code", ["code"])
MEDIA_BYTES = Counter(
    "loreweaver_media_bytes_total", "Media bytes, by direction (stored, served)", ["direction"]
)
# The scheduled backups run in a process of their own; every server reports the last
# run (from the database) when it is scraped.
BACKUP_LAST_RUN = Gauge(
    "loreweaver_backup_last_run_timestamp_seconds", "When the last backup_rooms run ended"
)
BACKUP_LAST_FAILED = Gauge(
    "loreweaver_backup_last_run_failed", "1 when the last backup_rooms run failed for a room, else 0"
)
BACKUP_LAST_ROOMS = Gauge("loreweaver_backup_last_run_rooms", "Rooms the last backup_rooms run backed up")

# The database connections this process holds, read when scraped (base/database/).
DB_CONNECTION_TIMEOUTS = Counter(
    "loreweaver_db_connection_timeouts_total",
    "Requests that found no free database connection within TRPG_DB__POOL_TIMEOUT (hosted)",
)


class _DatabaseConnections(Collector):
    """The pool's numbers (hosted) or the SQLite file's open handles (embedded), as
    they are at each scrape; a number the profile cannot tell is left out."""

    def describe(self) -> list:
        return []  # registered without a first collection (settings may not be read yet)

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from base.database import connection_numbers  # reads Django's connections

        numbers = connection_numbers()
        shown = {
            "loreweaver_db_connections": (
                numbers.open,
                "Database connections this process holds open (hosted: its pool, idle or "
                "in use; embedded: open handles on the SQLite file)",
            ),
            "loreweaver_db_connections_in_use": (numbers.in_use, "Pooled connections in use now (hosted)"),
            "loreweaver_db_connections_max": (
                numbers.most,
                "The most connections this process's pool may hold (TRPG_DB__POOL_SIZE, hosted)",
            ),
            "loreweaver_db_connection_waiting": (
                numbers.waiting,
                "Requests waiting for a free database connection now (hosted)",
            ),
        }
        for name, (value, documentation) in shown.items():
            if value is not None:
                yield GaugeMetricFamily(name, documentation, value=value)


REGISTRY.register(_DatabaseConnections())
