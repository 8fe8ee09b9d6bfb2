"""The environment this server reads, described as pydantic-settings classes.

Every setting of this project comes from the environment; `loreweaver/settings.py`
reads these classes once at start. A bad value stops the process with a message that
names the variable and what it expected, so an operator never has to guess which of
twenty settings was wrong.

The names follow the reference server's: `TRPG_` and a group joined by `__`
(`TRPG_TUI__JOIN_TIMEOUT` is `TableEnv().tui.join_timeout`). The readers keep the
rules the hand-written ones had: spaces around a value are dropped, a blank number,
choice or directory means its default, a blank switch is off, a blank list is empty,
choices are compared lower-case.
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from django.core.exceptions import ImproperlyConfigured
from pydantic import AfterValidator, BaseModel, BeforeValidator, Field, ValidationError
from pydantic_core import PydanticUseDefault
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict, SettingsError


def _strip(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


def _blank_is_default(value: Any) -> Any:
    value = _strip(value)
    if value == "":
        raise PydanticUseDefault()
    return value


def _switch(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off", ""):
        return False
    raise ValueError("is not a switch; use 1/0, true/false, yes/no or on/off")


def _choice(value: Any) -> Any:
    return _blank_is_default(value).lower() if isinstance(value, str) else value


def _items(value: Any) -> Any:
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return value


def _url(*schemes: str) -> AfterValidator:
    def check(value: str) -> str:
        if value and ("://" not in value or value.split("://", 1)[0].lower() not in schemes):
            raise ValueError(f"must be a URL starting with {' or '.join(s + '://' for s in schemes)}")
        return value

    return AfterValidator(check)


def _networks(values: list[str]) -> list[str]:
    for value in values:
        try:
            ipaddress.ip_network(value, strict=False)
        except ValueError:
            raise ValueError(
                f"names {value!r}, which is not an address or a network (e.g. 10.0.0.5 or 10.0.0.0/8)"
            ) from None
    return values


# The kinds of value a variable holds; each says how a blank one reads.
Text = Annotated[str, BeforeValidator(_strip)]
Lower = Annotated[str, BeforeValidator(lambda value: _strip(value).lower())]
Flag = Annotated[bool, BeforeValidator(_switch)]
Whole = Annotated[int, BeforeValidator(_blank_is_default)]
Number = Annotated[float, BeforeValidator(_blank_is_default)]
Items = Annotated[list[str], NoDecode, BeforeValidator(_items)]
Directory = Annotated[Path | None, BeforeValidator(_blank_is_default)]
HttpUrl = Annotated[str, BeforeValidator(_strip), _url("http", "https")]

T = TypeVar("T", bound=BaseSettings)


class _Env(BaseSettings):
    """What every reader shares: the environment only (no .env file), names in any case."""

    model_config = SettingsConfigDict(env_nested_delimiter="__", extra="ignore", validate_default=False)


class HostEnv(_Env):
    """The hosted profile's services: the database, Redis and where files go."""

    database_url: Annotated[str, BeforeValidator(_strip), _url("postgres", "postgresql", "sqlite")] = ""
    redis_url: Annotated[str, BeforeValidator(_strip), _url("redis", "rediss", "unix")] = ""
    media_storage: Annotated[Literal["filesystem", "s3"], BeforeValidator(_choice)] = "filesystem"


class DjangoEnv(_Env):
    """Django's own: `DJANGO_SECRET_KEY`, `DJANGO_DEBUG` and the host names."""

    model_config = SettingsConfigDict(env_prefix="DJANGO_")

    secret_key: Text = ""
    debug: Flag = False
    allowed_hosts: Items = ["*"]
    csrf_trusted_origins: Items = []


class S3Env(_Env):
    """The S3 bucket files go to when `MEDIA_STORAGE=s3` (the usual `AWS_*` names)."""

    model_config = SettingsConfigDict(env_prefix="AWS_")

    storage_bucket_name: Text = ""
    s3_endpoint_url: HttpUrl = ""
    s3_region_name: Text = "us-east-1"
    access_key_id: Text = ""
    secret_access_key: Text = ""
    s3_addressing_style: Annotated[Literal["path", "virtual"], BeforeValidator(_choice)] = "path"


class AdminEnv(BaseModel):
    """`TRPG_ADMIN__*`: the admin login's lockout."""

    login_failures: Annotated[Whole, Field(ge=1)] = 5
    lockout_minutes: Annotated[Whole, Field(ge=1)] = 15


class TuiEnv(BaseModel):
    """`TRPG_TUI__*`: connections, joins and the self-update command."""

    join_timeout: Annotated[Number, Field(ge=0.05)] = 10.0
    crowded_join_timeout: Annotated[Number, Field(ge=0.0)] = 2.0
    max_connections: Annotated[Whole, Field(ge=1)] = 200
    # None: three quarters of max_connections (loreweaver/settings.py).
    handshake_connections: Annotated[Whole | None, Field(ge=1)] = None
    handshakes_per_address: Annotated[Whole, Field(ge=1)] = 64
    update_command: Text = ""
    send_queue: Annotated[Whole, Field(ge=16)] = 1000
    send_buffer_bytes: Annotated[Whole, Field(ge=65536)] = 4 * 1024 * 1024


class RateEnv(BaseModel):
    """`TRPG_RATE__*`: the input token buckets and wrong keys."""

    burst: Annotated[Whole, Field(ge=1)] = 5
    refill_seconds: Annotated[Number, Field(ge=0.0)] = 2.0
    bad_keys_free: Annotated[Whole, Field(ge=0)] = 5


class ReplayEnv(BaseModel):
    """`TRPG_REPLAY__*`: what a join replays."""

    entries: Annotated[Whole, Field(ge=1)] = 30


class PacksEnv(BaseModel):
    """`TRPG_PACKS__*`: the packs that ship with the server, and where keepers may fetch
    packs from (`.pack install gh:owner/repo` or an https URL)."""

    bundled: Flag = True
    allowed_sources: Items = []
    github_api: Annotated[str, BeforeValidator(_blank_is_default)] = "https://api.github.com"
    max_download_bytes: Annotated[Whole, Field(ge=1024)] = 128 * 1024 * 1024


class HooksEnv(BaseModel):
    """`TRPG_HOOKS__*`: each event hook's sandbox."""

    memory_mb: Annotated[Whole, Field(ge=4)] = 64
    time_limit: Annotated[Number, Field(ge=0.01)] = 0.5


class DbEnv(BaseModel):
    """`TRPG_DB__*`: database connections per process: the hosted pool's size (and half
    as many HTTP request threads, on both profiles), how long a request waits for a free
    one, how long an unused one beyond the first stays open; whether Postgres keeps the
    statements a connection sends again and again prepared."""

    pool_size: Annotated[Whole, Field(ge=1)] = 10
    pool_timeout: Annotated[Number, Field(ge=0.1)] = 10.0
    pool_idle: Annotated[Number, Field(ge=0.1)] = 60.0
    prepared: Annotated[Literal["on", "off"], BeforeValidator(_choice)] = "on"


class IrohEnv(BaseModel):
    """`TRPG_IROH__*`: the Iroh endpoint and its sidecar's health port."""

    relay: Annotated[Literal["on", "off"], BeforeValidator(_choice)] = "on"
    bind: Text = ""
    bind6: Text = ""
    health_bind: Text = ""


_MIB = 1024 * 1024


class MediaEnv(BaseModel):
    """`TRPG_MEDIA__*`: bytes per file and per room, uploads per member and minute."""

    image_max_bytes: Annotated[Whole, Field(ge=1)] = 8 * _MIB
    image_room_bytes: Annotated[Whole, Field(ge=1)] = 512 * _MIB
    audio_max_bytes: Annotated[Whole, Field(ge=1)] = 128 * _MIB
    audio_room_bytes: Annotated[Whole, Field(ge=1)] = 2048 * _MIB
    uploads_per_minute: Annotated[Whole, Field(ge=1)] = 10


class LlmEnv(BaseModel):
    """`TRPG_LLM__*`: the AI Keeper's model provider."""

    provider: Lower = ""
    api_key: Text = ""
    base_url: HttpUrl = ""
    chat_model: Text = ""
    allowed_endpoints: Items = []
    context_window: Annotated[Whole, Field(ge=1024)] = 128000
    embedding_model: Text = ""
    timeout: Annotated[Number, Field(ge=1.0)] = 120.0
    retries: Annotated[Whole, Field(ge=0)] = 2
    max_rounds: Annotated[Whole, Field(ge=1)] = 8
    # A keeper's own ChatGPT / SuperGrok subscription (`.model login`): whether room
    # keepers may use one at all, and where the sign-in and the models are reached
    # (the official addresses; a test points them at local servers).
    subscriptions: Flag = True
    chatgpt_auth_url: HttpUrl = "https://auth.openai.com"
    chatgpt_api_url: HttpUrl = "https://chatgpt.com/backend-api/codex"
    chatgpt_client_id: Text = "app_EMoamEEZ73f0CkXaXp7hrann"
    xai_auth_url: HttpUrl = "https://auth.x.ai"
    xai_api_url: HttpUrl = "https://api.x.ai/v1"
    xai_client_id: Text = "b1a00492-073a-47ea-816f-4c329264a828"


class SideQuestEnv(BaseModel):
    """`TRPG_SIDEQUEST__*`: which SideQuest client generation is served, and how many
    games its lobby lets strangers start."""

    client: Annotated[Literal["contract", "current"], BeforeValidator(_choice)] = "contract"
    players_start_games: Flag = False
    games_per_address: Annotated[Whole, Field(ge=1)] = 3  # new games an hour, per address
    player_games: Annotated[Whole, Field(ge=1)] = 50  # games started by players, in all


class GuestsEnv(BaseModel):
    """`TRPG_GUESTS__*`: the seats of guests in rooms open to any name."""

    idle_days: Annotated[Number, Field(gt=0.0)] = 14.0  # an unused seat is given up after
    per_room: Annotated[Whole, Field(ge=1)] = 40
    new_per_address: Annotated[Whole, Field(ge=1)] = 5  # new seats an hour, per address


class OfflineEnv(BaseModel):
    """`TRPG_OFFLINE__*`: the offline and sample Keepers' pace."""

    stream_pause: Annotated[Number, Field(ge=0.0)] = 0.01


class ImagegenEnv(BaseModel):
    """`TRPG_IMAGEGEN__*`: the image endpoint for portraits and scenes."""

    provider: Lower = ""
    base_url: HttpUrl = ""
    model: Text = ""
    api_key: Text = ""
    size: Annotated[str, BeforeValidator(_blank_is_default)] = "1024x1024"


class TableEnv(_Env):
    """Every `TRPG_*` variable: the table's own settings."""

    model_config = SettingsConfigDict(env_prefix="TRPG_")

    data_dir: Directory = None
    redis_prefix: Text = "lw"
    behind_tls_proxy: Flag = False
    # The address players reach the table at (`https://table.example`), for the links
    # the server writes into messages; empty: each connection's own scheme and host.
    public_url: HttpUrl = ""
    metrics_token: Text = ""
    # Addresses or networks that may read `/metrics` and the whole `/readyz` without
    # the token; empty: none (not even loopback, which every local user shares).
    metrics_allowed: Annotated[Items, AfterValidator(_networks)] = []
    trusted_proxies: Annotated[Items, AfterValidator(_networks)] = []
    locale: Annotated[Literal["en", "zh"], BeforeValidator(_choice)] = "en"
    allow_remote_update: Flag = False
    tui_keys: Text = ""
    shutdown_grace: Annotated[Number, Field(ge=0.0)] = 20.0
    packs_dir: Directory = None
    skills_dir: Directory = None
    output_wordlist: Text = ""
    log_format: Annotated[Literal["plain", "json"], BeforeValidator(_choice)] = "plain"
    log_level: Annotated[str, BeforeValidator(lambda value: _strip(value).upper())] = "INFO"
    admin: AdminEnv = AdminEnv()
    tui: TuiEnv = TuiEnv()
    rate: RateEnv = RateEnv()
    replay: ReplayEnv = ReplayEnv()
    packs: PacksEnv = PacksEnv()
    hooks: HooksEnv = HooksEnv()
    db: DbEnv = DbEnv()
    iroh: IrohEnv = IrohEnv()
    media: MediaEnv = MediaEnv()
    llm: LlmEnv = LlmEnv()
    sidequest: SideQuestEnv = SideQuestEnv()
    guests: GuestsEnv = GuestsEnv()
    offline: OfflineEnv = OfflineEnv()
    imagegen: ImagegenEnv = ImagegenEnv()


def _variable(kind: type[BaseSettings], location: tuple[int | str, ...]) -> str:
    """The variable a validation error's location stands for (`TRPG_` + `tui__join_timeout`)."""
    path = "__".join(str(part) for part in location if isinstance(part, str))
    return (kind.model_config.get("env_prefix", "") + path).upper()


def read_env(kind: type[T]) -> T:
    """Read one class of settings from the environment, or stop naming the bad variable.

    The message says what the variable holds and what it should be, as in
    `TRPG_LOCALE='fr' should be 'en' or 'zh'`.
    """
    try:
        return kind()
    except ValidationError as exc:
        problems = []
        for error in exc.errors(include_url=False):
            variable = _variable(kind, error["loc"])
            raw = os.environ.get(variable, error["input"])
            expected = error["msg"].removeprefix("Value error, ").removeprefix("Input ")
            problems.append(f"{variable}={raw!r} {expected}")
        raise ImproperlyConfigured("; ".join(problems) + ".") from None
    except SettingsError as exc:
        raise ImproperlyConfigured(str(exc)) from None


def writable_dir(variable: str, path: Path) -> Path:
    """The directory `path` (named by `variable`), created if missing; refuses one that cannot be made."""
    path = path.expanduser().resolve()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ImproperlyConfigured(f"{variable}={str(path)!r} cannot be created: {exc.strerror}.") from None
    if not os.access(path, os.W_OK):
        raise ImproperlyConfigured(f"{variable}={str(path)!r} is not writable.")
    return path
