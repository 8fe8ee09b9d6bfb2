"""Settings, read from the environment only.

Two profiles, chosen by which variables are set:

- embedded (default): SQLite and files under TRPG_DATA_DIR, the in-process room
  bus and a local-memory cache. One process: `manage.py serve`.
- hosted: DATABASE_URL (Postgres), REDIS_URL (room bus + cache, shared by every
  process), MEDIA_STORAGE=s3 with the usual AWS_* variables.

The variables are described once, as pydantic-settings classes in base/env.py, and
read here once; a bad value stops the process at start with a message naming the
variable and what it expected.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from base.env import DjangoEnv, HostEnv, S3Env, TableEnv, read_env, writable_dir

_django = read_env(DjangoEnv)
_host = read_env(HostEnv)
_table = read_env(TableEnv)

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = writable_dir("TRPG_DATA_DIR", _table.data_dir or BASE_DIR / "data")


def _secret_key() -> str:
    """DJANGO_SECRET_KEY, or one generated once and kept in the data dir."""
    configured = _django.secret_key
    if configured:
        return configured
    path = DATA_DIR / "secret_key"
    if not path.exists():
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(50))
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = _django.debug
ALLOWED_HOSTS = _django.allowed_hosts
# Whether the operator left these to their defaults (a generated secret, any host): a
# hosted process refuses to start then (loreweaver/wire/deploy.py), as the settings read them.
SECRET_KEY_GENERATED = not _django.secret_key
ALLOWED_HOSTS_DEFAULTED = "allowed_hosts" not in _django.model_fields_set
CSRF_TRUSTED_ORIGINS = _django.csrf_trusted_origins

# Behind a reverse proxy that terminates TLS (compose's `proxy`): trust its
# X-Forwarded-Proto, send cookies over https only, HSTS, and redirect plain HTTP (the
# health checks excepted; WebSocket upgrades never pass this middleware).
TRPG_BEHIND_TLS_PROXY = _table.behind_tls_proxy
# Where players reach the table (scheme://host[:port]): the links written into messages
# (a SideQuest client's pictures) start with it. Empty: the connection's own scheme and
# Host, the scheme from the proxy's X-Forwarded-Proto only behind TRPG_BEHIND_TLS_PROXY.
TRPG_PUBLIC_URL = _table.public_url.rstrip("/")
# `/metrics` (and the whole `/readyz`) answers a scraper that presents this bearer
# token, or one at an address of TRPG_METRICS_ALLOWED (addresses or networks, checked
# as they were read; none by default: loopback is every local user's).
TRPG_METRICS_TOKEN = _table.metrics_token
TRPG_METRICS_ALLOWED = _table.metrics_allowed
# Reverse proxies whose X-Forwarded-For names the client (addresses or networks), for
# limits per address, the admin lockout, `/metrics` and the logs
# (loreweaver/ops/forwarded.py). None unless listed, behind the TLS proxy too: a
# default that trusted whole networks let any client on them name any address (the
# start warns when the TLS proxy is on and nothing is listed: loreweaver/wire/deploy.py).
# Each entry was checked to be an address or a network as it was read.
TRPG_TRUSTED_PROXIES = _table.trusted_proxies
if TRPG_BEHIND_TLS_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    # The health checks never reach Django (loreweaver.ops.health.health_first).
    SECURE_REDIRECT_EXEMPT = [r"^metrics$"]
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = 31536000
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True  # allows submitting the domain to the preload list; it does not submit it

# daphne is not an app here: `manage.py serve` runs its server itself (loreweaver/wire/
# server.py imports daphne.server, which installs Twisted's asyncio reactor, before
# anything imports the reactor), and as an app it would load Twisted into every
# management command, a sixth of a second each.
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "axes",
    "channels",
    "rooms",
    "media_store",
    "packs",
    "keeper",
    "loreweaver.wire",
    "loreweaver.console",
    "loreweaver.table",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "loreweaver.ops.headers.security_headers",
    # A view that found no free database connection in time answers 503.
    "loreweaver.ops.http_threads.DatabaseBusy",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The console speaks the operator's browser's language (English or Chinese).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it answers a locked-out login.
    "axes.middleware.AxesMiddleware",
]

# Admin logins are throttled against password guessing (django-axes): after
# TRPG_ADMIN__LOGIN_FAILURES failures for one user name from one address, that pair is
# locked out for TRPG_ADMIN__LOCKOUT_MINUTES. Kept in the database, which every process
# shares.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = _table.admin.login_failures
AXES_COOLOFF_TIME = _table.admin.lockout_minutes / 60
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True

ROOT_URLCONF = "loreweaver.urls"
ASGI_APPLICATION = "loreweaver.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database --------------------------------------------------------------------

DATABASE_URL = _host.database_url
# Hosted, each process's pool holds at most this many Postgres connections; Django's
# HTTP requests run on half as many threads, on both profiles (loreweaver/ops/http_threads.py).
TRPG_DB_POOL_SIZE = _table.db.pool_size
TRPG_DB_POOL_TIMEOUT = _table.db.pool_timeout
# Threads that live long (the database thread, the HTTP request threads, the backup
# threads, the main thread after startup) keep their SQLite connection for ten minutes
# at a time. Health checks replace a connection the database dropped.
_SQLITE_CONN_MAX_AGE = 600
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_health_checks=True)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # Postgres: a pool per process (base/database/); each HTTP request, backup and
        # readiness check takes a connection and gives it back (Django pools only with
        # CONN_MAX_AGE=0), and the database thread keeps the one it takes
        # (loreweaver/wire/process.py). One connection stays open while the process
        # idles; those above it are closed once unused for TRPG_DB__POOL_IDLE seconds,
        # one at a time. A request that finds none free within TRPG_DB__POOL_TIMEOUT
        # seconds fails (HTTP 503, `server_error` on the wire).
        DATABASES["default"].update(ENGINE="base.database", CONN_MAX_AGE=0)
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "name": "loreweaver",
            "min_size": 1,
            "max_size": TRPG_DB_POOL_SIZE,
            "timeout": TRPG_DB_POOL_TIMEOUT,
            "max_idle": _table.db.pool_idle,
        }
        if _table.db.prepared == "on":
            # Parameters travel apart from the statement (server-side binding), so
            # Postgres can keep a statement a connection sent five times parsed and
            # planned (psycopg's prepare_threshold): the turn's few statements are sent
            # thousands of times on the database thread's connection. It took Postgres's
            # CPU per roll down by three fifths, and the server's by 8 % (which no longer
            # writes the parameters into each statement). Off behind a pooler
            # that cannot keep prepared statements (PgBouncer before 1.21, transaction
            # mode).
            DATABASES["default"]["OPTIONS"].update(server_side_binding=True, prepare_threshold=5)
    else:
        # SQLite: Django's backend, each statement's placeholders converted once (base/database/sqlite/).
        DATABASES["default"].update(ENGINE="base.database.sqlite", CONN_MAX_AGE=_SQLITE_CONN_MAX_AGE)
else:
    DATABASES = {
        "default": {
            "ENGINE": "base.database.sqlite",
            "NAME": DATA_DIR / "db.sqlite3",
            "OPTIONS": {
                # WAL lets the replay read while a turn writes; FULL sync keeps every
                # acknowledged line across a power cut or kill -9.
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
            },
            "CONN_MAX_AGE": _SQLITE_CONN_MAX_AGE,
            "CONN_HEALTH_CHECKS": True,
        }
    }
if DATABASES["default"]["ENGINE"] == "base.database.sqlite":
    # Tests on SQLite run in memory, as Django's own backend's would (pytest-django
    # knows that backend by its name only).
    DATABASES["default"].setdefault("TEST", {}).setdefault("NAME", ":memory:")

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Room bus and cache (the cross-process truth) -------------------------------

REDIS_URL = _host.redis_url
REDIS_PREFIX = _table.redis_prefix

# Room broadcasts go over the channel layer (loreweaver/wire/bus.py): each process
# joins a room's group once and fans out to its own sessions, so the consumers listen
# to no channel of their own. Any Django code can `group_send` to `room.<id>`.
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "loreweaver.wire.layer.RoomPubSubLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": f"{REDIS_PREFIX}:"},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "loreweaver.wire.layer.RoomMemoryLayer"}}

if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": REDIS_PREFIX,
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "base.cache.ProcessMemoryCache",
            "LOCATION": "loreweaver",
            # Coordination keys (turn queue, presence, buckets) must never be culled.
            "OPTIONS": {"MAX_ENTRIES": 1_000_000},
        }
    }

# --- Files --------------------------------------------------------------------------

MEDIA_STORAGE = _host.media_storage
MEDIA_ROOT = DATA_DIR / "media"
STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
WHITENOISE_USE_FINDERS = True

if MEDIA_STORAGE == "s3":
    # The AWS_* variables are read only for S3, as a filesystem table never uses them.
    _s3 = read_env(S3Env)
    _bucket = _s3.storage_bucket_name
    if not _bucket:
        raise ImproperlyConfigured("MEDIA_STORAGE=s3 needs AWS_STORAGE_BUCKET_NAME.")
    _media_backend = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": _bucket,
            "endpoint_url": _s3.s3_endpoint_url or None,
            "region_name": _s3.s3_region_name,
            "access_key": _s3.access_key_id or None,
            "secret_key": _s3.secret_access_key or None,
            "addressing_style": _s3.s3_addressing_style,
            "file_overwrite": False,
            "default_acl": None,
        },
    }
else:
    _media_backend = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": MEDIA_ROOT},
    }

STORAGES = {
    "default": _media_backend,
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# A freshly minted key travels to the operator's browser in a flash message: keep it in
# the (signed) cookie, never in the session table.
MESSAGE_STORAGE = "django.contrib.messages.storage.cookie.CookieStorage"

# --- Auth, i18n ---------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
# The server's texts: English in the code, Chinese in the catalog (base/i18n.py).
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_TZ = True

# --- The table (loreweaver protocol knobs keep the reference names) ------------------

TRPG_LOCALE = _table.locale
TRPG_JOIN_TIMEOUT = _table.tui.join_timeout
# When a budget of the gate is full, a socket silent for longer than this gives its
# place to a newcomer (loreweaver/wire/admission.py).
TRPG_CROWDED_JOIN_TIMEOUT = _table.tui.crowded_join_timeout
TRPG_MAX_CONNECTIONS = _table.tui.max_connections
# Of the cap, how many sockets may be shaking hands (not joined yet), and how many of
# those from one address: the rest is kept for members (loreweaver/wire/admission.py).
TRPG_HANDSHAKE_CONNECTIONS = _table.tui.handshake_connections or max(
    1, TRPG_MAX_CONNECTIONS - TRPG_MAX_CONNECTIONS // 4
)
TRPG_HANDSHAKES_PER_ADDRESS = _table.tui.handshakes_per_address
TRPG_UPDATE_COMMAND = _table.tui.update_command
# Whether room keepers may run that command over the wire (`admin_update_server`):
# updating the server is the operator's, so it is off unless the operator turns it on.
TRPG_ALLOW_REMOTE_UPDATE = _table.allow_remote_update
TRPG_KEYS_FILE = _table.tui_keys
TRPG_INPUT_MAX_CHARS = 4000
# Token buckets for input: per member and per room.
TRPG_RATE_BURST = _table.rate.burst
TRPG_RATE_REFILL_SECONDS = _table.rate.refill_seconds
# Wrong keys a source (an IP address) may send before its answers start to wait.
TRPG_RATE_BAD_KEYS_FREE = _table.rate.bad_keys_free
# Frames a connection may have waiting to be written before it counts as stalled and
# is disconnected; the WebSocket carrier also caps the bytes the transport may hold.
TRPG_SEND_QUEUE_FRAMES = _table.tui.send_queue
TRPG_SEND_BUFFER_BYTES = _table.tui.send_buffer_bytes
TRPG_REPLAY_ENTRIES = _table.replay.entries
# On SIGTERM, how long the turns in flight may take to finish before the members are
# told to reconnect and the process exits (docker compose waits 30 s, see its file).
TRPG_SHUTDOWN_GRACE = _table.shutdown_grace
# Community rule packs (YAML) beside the built-in coc7 and dnd5e.
TRPG_PACKS_DIR = writable_dir("TRPG_PACKS_DIR", _table.packs_dir or DATA_DIR / "packs")
# Keeper skills (markdown with frontmatter) beside the shipped ones.
TRPG_SKILLS_DIR = writable_dir("TRPG_SKILLS_DIR", _table.skills_dir or DATA_DIR / "skills")
# The packs that ship with the server (packs/examples/) are installed at the first
# start (never again once removed); enabled in no room.
TRPG_PACKS_BUNDLED = _table.packs.bundled
TRPG_PACKS_ALLOWED_SOURCES = _table.packs.allowed_sources
TRPG_PACKS_GITHUB_API = _table.packs.github_api.rstrip("/")
TRPG_PACKS_MAX_DOWNLOAD_BYTES = _table.packs.max_download_bytes
# Event hooks (packs/hooks.py): each script's sandbox memory, and its time per step.
TRPG_HOOKS_MEMORY_MB = _table.hooks.memory_mb
TRPG_HOOKS_TIME_LIMIT = _table.hooks.time_limit
TRPG_IROH_RELAY = _table.iroh.relay
# host:port the Iroh endpoint binds; empty: every interface on UDP 4433, or a free port
# when that one is taken (loreweaver/wire/iroh_carrier.py, DEFAULT_BIND).
TRPG_IROH_BIND = _table.iroh.bind
# [host]:port of its IPv6 socket; empty: `[::]` or `[::1]` at TRPG_IROH_BIND's port when
# that is 0.0.0.0 or loopback, else a free port the ticket leaves out (ipv6_counterpart).
TRPG_IROH_BIND6 = _table.iroh.bind6
# host:port of the Iroh sidecar's health and metrics port (`iroh_serve`); empty: none.
TRPG_IROH_HEALTH_BIND = _table.iroh.health_bind
TRPG_HEALTH_PORT = "loreweaver.ops.health_port.serve_health"

# --- Media: per-file and per-room bytes, uploads per member and minute.
MIB = 1024 * 1024
TRPG_MEDIA_IMAGE_MAX = _table.media.image_max_bytes
TRPG_MEDIA_IMAGE_ROOM = _table.media.image_room_bytes
TRPG_MEDIA_AUDIO_MAX = _table.media.audio_max_bytes
TRPG_MEDIA_AUDIO_ROOM = _table.media.audio_room_bytes
TRPG_MEDIA_UPLOADS_PER_MINUTE = _table.media.uploads_per_minute

# --- The AI Keeper ------------------------------------------------------------------
# Any OpenAI-compatible provider of `keeper.llm.providers.CATALOG`. With no provider
# (or a hosted one without a key) the offline Keeper plays; a keeper's `.model`
# overrides these at run time, kept in the database.
TRPG_LLM_PROVIDER = _table.llm.provider
TRPG_LLM_API_KEY = _table.llm.api_key
TRPG_LLM_BASE_URL = _table.llm.base_url
TRPG_LLM_CHAT_MODEL = _table.llm.chat_model
# The endpoints a room's keeper may choose (URL prefixes, host[:port], networks,
# `*.domain`, `*` for any public address), beside the catalog's public ones and, on the
# embedded profile, loopback and private addresses (keeper/llm/endpoints.py).
TRPG_LLM_ALLOWED_ENDPOINTS = _table.llm.allowed_endpoints
TRPG_LLM_CONTEXT_WINDOW = _table.llm.context_window
# An embeddings model of the same provider: lore is then also chosen by meaning. Empty: off.
TRPG_LLM_EMBEDDING_MODEL = _table.llm.embedding_model
# Seconds one model call may take (the whole streamed reply), and retries of a call
# that failed before its first token (connection errors, 429, 5xx).
TRPG_LLM_TIMEOUT = _table.llm.timeout
TRPG_LLM_RETRIES = _table.llm.retries
# Tool rounds one Keeper turn may run before it must answer.
TRPG_LLM_MAX_ROUNDS = _table.llm.max_rounds
# A keeper's own subscription (docs/operations.md, "Signing in with a subscription"):
# whether rooms may use one (the console's model page can say otherwise), and the
# providers' sign-in and API addresses and public client ids.
TRPG_LLM_SUBSCRIPTIONS = _table.llm.subscriptions
TRPG_LLM_CHATGPT_AUTH_URL = _table.llm.chatgpt_auth_url
TRPG_LLM_CHATGPT_API_URL = _table.llm.chatgpt_api_url
TRPG_LLM_CHATGPT_CLIENT_ID = _table.llm.chatgpt_client_id
TRPG_LLM_XAI_AUTH_URL = _table.llm.xai_auth_url
TRPG_LLM_XAI_API_URL = _table.llm.xai_api_url
TRPG_LLM_XAI_CLIENT_ID = _table.llm.xai_client_id
# Which SideQuest web client generation `/api/genres` and `/ws` speak to (docs/sidequest.md,
# "The two client generations"): "contract" (the contract's, by default) or "current"
# (its lobby: `/api/games`, `/api/sessions`, connect by game slug). With players allowed
# to start games, the current client's "new game" opens a room of its own.
TRPG_SIDEQUEST_CLIENT = _table.sidequest.client
TRPG_SIDEQUEST_PLAYERS_START_GAMES = _table.sidequest.players_start_games
# What strangers may make (rooms/guests.py, docs/operations.md "Strangers"): games started
# from the lobby, per address an hour and in all; guest seats per room, new ones per
# address an hour, and the days an unused seat is kept.
TRPG_SIDEQUEST_GAMES_PER_ADDRESS = _table.sidequest.games_per_address
TRPG_SIDEQUEST_PLAYER_GAMES = _table.sidequest.player_games
TRPG_GUESTS_PER_ROOM = _table.guests.per_room
TRPG_GUESTS_NEW_PER_ADDRESS = _table.guests.new_per_address
TRPG_GUESTS_IDLE_DAYS = _table.guests.idle_days
# Seconds between the pieces the offline and sample Keepers stream (a model's pace).
TRPG_OFFLINE_STREAM_PAUSE = _table.offline.stream_pause
# The image endpoint (OpenAI-compatible images API) that draws portraits (`.avatar gen`)
# and the Keeper's scenes; `admin_set_imagegen` overrides it at run time.
TRPG_IMAGEGEN_PROVIDER = _table.imagegen.provider
TRPG_IMAGEGEN_BASE_URL = _table.imagegen.base_url
TRPG_IMAGEGEN_MODEL = _table.imagegen.model
TRPG_IMAGEGEN_API_KEY = _table.imagegen.api_key
TRPG_IMAGEGEN_SIZE = _table.imagegen.size
# A file of words (one per line) masked in everything the Keeper says.
TRPG_OUTPUT_WORDLIST = _table.output_wordlist

# `json`: one JSON object per line, with the connection's carrier, room and member.
TRPG_LOG_FORMAT = _table.log_format
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"connection": {"()": "base.logs.ConnectionFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {"()": "base.logs.JsonFormatter"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": TRPG_LOG_FORMAT, "filters": ["connection"]}
    },
    "root": {"handlers": ["console"], "level": _table.log_level},
    "loggers": {
        "daphne": {"level": "WARNING"},
        "django.channels.server": {"level": "WARNING"},
        # One line per model call is noise; failures are logged by the Keeper's turn.
        "httpx": {"level": "WARNING"},
        # The pool logs every connection it hands out; its warnings (a connection found
        # broken and replaced) stay.
        "psycopg.pool": {"level": "WARNING"},
        "httpx2": {"level": "WARNING"},
        "openai": {"level": "WARNING"},
        # django-axes announces itself ("AXES: BEGIN ...") each time Django starts, in
        # every manage.py command too: noise around a command's own output (a machine
        # reads `pack build --json`). Its lockouts and failed logins are warnings: kept.
        "axes.apps": {"level": "WARNING"},
    },
}
