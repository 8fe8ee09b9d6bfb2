"""The server's numbers, in the Prometheus text format at `/metrics` (each process
its own: `loreweaver/ops/metrics.py` serves them). Declared here, at the bottom of the
layers, so every part of the server can count what it does."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

CONNECTIONS = Gauge("loreweaver_connections", "Open connections, by carrier", ["carrier"])
MEMBERS = Gauge("loreweaver_joined_members", "Connections that joined a room, by carrier", ["carrier"])
ACTIVE_ROOMS = Gauge("loreweaver_active_rooms", "Rooms with a member connected to this process")
FRAMES_IN = Counter("loreweaver_frames_in_total", "Frames received from clients, by type", ["type"])


class FrameCount:
    """How many frames of one type were sent (`frames_out`): a plain number, read at
    each scrape. Every frame to every member is counted, on the event loop: a
    Prometheus counter took its lock at each one, about 1.5 % of a roll's server work.
    An increment racing another thread's may be lost; a count of frames can take that."""

    def __init__(self) -> None:
        self.value = 0

    def inc(self, amount: int = 1) -> None:
        """Count `amount` more frames."""
        self.value += amount


class _FramesOut(Collector):
    """`loreweaver_frames_out_total`, by type, from the `FrameCount`s."""

    def describe(self) -> list:
        return [self._family()]

    def _family(self) -> CounterMetricFamily:
        return CounterMetricFamily(
            "loreweaver_frames_out", "Frames sent to clients, by type", labels=["type"]
        )

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = self._family()
        for frame_type, count in list(_frames_out.items()):
            family.add_metric([frame_type], count.value)
        yield family


_frames_out: dict[str, FrameCount] = {}
_FRAME_TYPES_COUNTED = 256  # frame types are the protocol's few; the bound is a guard


def frames_out(frame_type: str) -> FrameCount:
    """The count of frames of `frame_type` sent (every frame to every member)."""
    count = _frames_out.get(frame_type)
    if count is None:
        if len(_frames_out) >= _FRAME_TYPES_COUNTED:
            frame_type = "other"
        count = _frames_out.setdefault(frame_type, FrameCount())
    return count


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
REGISTRY.register(_FramesOut())
