"""The server's numbers, in the Prometheus text format at `/metrics` (each process
its own: `loreweaver/ops/metrics.py` serves them). Declared here, at the bottom of the
layers, so every part of the server can count what it does."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

CONNECTIONS = Gauge("loreweaver_connections", "Open connections, by carrier", ["carrier"])
MEMBERS = Gauge("loreweaver_joined_members", "Connections that joined a room, by carrier", ["carrier"])
ACTIVE_ROOMS = Gauge("loreweaver_active_rooms", "Rooms with a member connected to this process")
FRAMES_IN = Counter("loreweaver_frames_in_total", "Frames received from clients, by type", ["type"])
FRAMES_OUT = Counter("loreweaver_frames_out_total", "Frames sent to clients, by type", ["type"])
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
