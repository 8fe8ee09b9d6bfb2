"""Which model a room's Keeper uses right now.

Three layers, each falling back to the one below: a room's own choice (its keeper's
`.model` and model screen), the operator's server-wide choice (the console's model
page) and the environment (`TRPG_LLM__*`). A room's choice names a provider and,
optionally, a model and an endpoint; what it leaves empty comes from the server-wide
configuration when that is the same provider, else from the catalog. A key is bound
to the provider AND endpoint it was given for, and to the room that saved it: it is
never sent anywhere else, nor used for another room. The operator's keys (console,
environment) serve every room that uses their endpoint.

An endpoint a room chose is held to the operator's policy (`keeper.llm.endpoints`),
when it is saved and again at every connection; the operator's own are trusted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.conf import settings

from keeper.llm import endpoints, grants
from keeper.llm.providers import CATALOG, OFFLINE, OFFLINE_KEEPER, OFFLINE_MODELS
from keeper.models import ModelSetting, ProviderCredential

# Whose configuration: a room's id, or None for the operator's server-wide one.
Scope = int | None


@dataclass(frozen=True)
class LlmConfig:
    """A resolved configuration. `usable` is False when the offline Keeper must play.
    `operator_endpoint` says the endpoint is the operator's (not held to the rooms'
    policy)."""

    provider: str
    base_url: str
    api_key: str
    chat_model: str
    context_window: int
    operator_endpoint: bool = True
    # A keeper's own subscription (keeper/llm/grants.py): its canonical name, and
    # whether the room is signed in to it and the operator lets rooms use it.
    subscription: str = ""
    signed_in: bool = False
    room_id: int | None = None  # whose grant (a subscription's)

    @property
    def usable(self) -> bool:
        if self.subscription:
            return self.signed_in and bool(self.chat_model)
        entry = CATALOG.get(self.provider)
        if entry is None or not self.base_url or not self.chat_model:
            return False
        return bool(self.api_key) or not entry.needs_key

    @property
    def key_masked(self) -> str:
        return mask(self.api_key)


def key_shown(current: LlmConfig) -> str:
    """What a model screen shows for the room's key: the masked key, or, for a
    subscription the room is signed in to, `sub:` and when the sign-in's access runs
    out (UTC, to the minute: `sub:2026-12-04T19:40Z`), which the reference terminal
    client prints beside "subscription logged in"."""
    if not current.subscription:
        return current.key_masked
    grant = None
    if current.signed_in and current.room_id is not None:
        grant = grants.load(current.room_id, current.subscription)
    if grant is None:
        return ""
    return time.strftime("sub:%Y-%m-%dT%H:%MZ", time.gmtime(grant.expires_at))


def mask(key: str) -> str:
    """A key as replies show it: enough to recognise, never enough to use."""
    if not key:
        return ""
    return key[:3] + "…" + key[-4:] if len(key) > 12 else "****"


def _environment_key(provider: str, base_url: str) -> str:
    """The environment's key, only for the environment's own provider and endpoint."""
    env_provider = settings.TRPG_LLM_PROVIDER
    if not settings.TRPG_LLM_API_KEY or provider != env_provider:
        return ""
    env_url = settings.TRPG_LLM_BASE_URL or CATALOG[env_provider].base_url
    return settings.TRPG_LLM_API_KEY if same_endpoint(env_url, base_url) else ""


def same_endpoint(a: str, b: str) -> bool:
    """Whether two endpoint URLs are the same (case and a trailing slash aside)."""
    return bool(a) and a.rstrip("/").lower() == b.rstrip("/").lower()


def _stored_key(scope: Scope, provider: str, base_url: str) -> str:
    """The key saved in exactly this scope for exactly this provider and endpoint."""
    for credential in ProviderCredential.objects.filter(room_id=scope, provider=provider):
        if same_endpoint(credential.base_url, base_url):
            return credential.api_key
    return ""


def saved_key(provider: str, base_url: str, scope: Scope = None) -> str:
    """The key for exactly this provider and endpoint: the room's own (with a room
    `scope`), else the operator's (console-saved, else the environment's)."""
    own = _stored_key(scope, provider, base_url) if scope is not None else ""
    return own or _stored_key(None, provider, base_url) or _environment_key(provider, base_url)


def _row(scope: Scope) -> ModelSetting | None:
    if scope is None:
        return ModelSetting.objects.filter(room__isnull=True).order_by("pk").first()
    return ModelSetting.objects.filter(room_id=scope).first()


def _server() -> LlmConfig:
    """The operator's configuration: the server-wide row over the environment."""
    override = _row(None)
    provider = (override.provider if override and override.provider else settings.TRPG_LLM_PROVIDER) or ""
    entry = CATALOG.get(provider)
    if entry is None:
        return _offline(override.chat_model if override and override.provider == OFFLINE else "")
    same_as_environment = provider == settings.TRPG_LLM_PROVIDER
    base_url = (
        (override.base_url if override and override.provider else "")
        or (settings.TRPG_LLM_BASE_URL if same_as_environment else "")
        or entry.base_url
    )
    chat_model = (
        (override.chat_model if override and override.provider else "")
        or (settings.TRPG_LLM_CHAT_MODEL if same_as_environment else "")
        or entry.default_model
    )
    return LlmConfig(
        provider=provider,
        base_url=base_url,
        api_key=saved_key(provider, base_url),
        chat_model=chat_model,
        context_window=settings.TRPG_LLM_CONTEXT_WINDOW,
    )


def _offline(chat_model: str) -> LlmConfig:
    """The offline Keeper as a configuration (never `usable`: no model answers)."""
    chosen = chat_model if chat_model in OFFLINE_MODELS else OFFLINE_KEEPER
    return LlmConfig(OFFLINE, "", "", chosen, settings.TRPG_LLM_CONTEXT_WINDOW)


def resolve(scope: Scope) -> LlmConfig:
    """The configuration in force for a room (its own choice over the server-wide one),
    or, with None, the operator's server-wide configuration."""
    server = _server()
    own = _row(scope) if scope is not None else None
    if own is not None and own.provider == OFFLINE:
        return _offline(own.chat_model)
    if own is None or own.provider not in CATALOG:
        return server
    entry = CATALOG[own.provider]
    same = own.provider == server.provider
    base_url = own.base_url or (server.base_url if same else "") or entry.base_url
    chat_model = own.chat_model or (server.chat_model if same else "") or entry.default_model
    subscription = grants.subscription_of(own.provider, base_url)
    if subscription:  # the room's own sign-in, at the operator's address for it
        return LlmConfig(
            provider=own.provider,
            base_url=grants.api_url(subscription),
            api_key="",
            chat_model=chat_model,
            context_window=settings.TRPG_LLM_CONTEXT_WINDOW,
            subscription=subscription,
            signed_in=grants.allowed() and grants.signed_in(scope, subscription),
            room_id=scope,
        )
    return LlmConfig(
        provider=own.provider,
        base_url=base_url,
        api_key=saved_key(own.provider, base_url, scope),
        chat_model=chat_model,
        context_window=settings.TRPG_LLM_CONTEXT_WINDOW,
        operator_endpoint=server.provider in CATALOG and same_endpoint(server.base_url, base_url),
    )


def operator_endpoint(scope: Scope, url: str) -> bool:
    """Whether `url` is trusted for `scope`: the operator's own choices always are; a
    room's only when it is an endpoint the operator configured (chat or images)."""
    if scope is None or grants.official_api(url):
        return True
    server, pictures = _server(), _server_imagegen()
    return (server.provider in CATALOG and same_endpoint(server.base_url, url)) or (
        pictures.provider in CATALOG and same_endpoint(pictures.base_url, url)
    )


def check_endpoint(scope: Scope, url: str) -> None:
    """Refuse (`endpoints.EndpointRefused`) an endpoint `scope` may not use (blocking:
    it may resolve a name)."""
    endpoints.vet(url, operator=operator_endpoint(scope, url))


def select(scope: Scope, provider: str, chat_model: str = "", base_url: str = "") -> LlmConfig:
    """Switch a room (or, with None, the server) to `provider`, and optionally a model
    and an endpoint. Raises `EndpointRefused` for an endpoint the policy refuses."""
    if provider == OFFLINE:
        return _choose_offline(scope, chat_model)
    if provider not in CATALOG:
        raise ValueError(provider)
    if scope is not None and base_url:
        check_endpoint(scope, base_url)
    elif base_url:
        endpoints.vet(base_url, operator=True)
    setting = ModelSetting.current() if scope is None else ModelSetting.of_room(scope)
    setting.provider, setting.chat_model, setting.base_url = provider, chat_model, base_url
    setting.save(update_fields=["provider", "chat_model", "base_url", "updated_at"])
    chosen = resolve(scope)
    if scope is not None and not base_url and not chosen.operator_endpoint:
        # The provider's own endpoint (a catalog default) is held to the policy too.
        try:
            check_endpoint(scope, chosen.base_url)
        except endpoints.EndpointRefused:
            setting.provider = setting.chat_model = ""
            setting.save(update_fields=["provider", "chat_model", "updated_at"])
            raise
    return chosen


def _choose_offline(scope: Scope, chat_model: str) -> LlmConfig:
    """The offline Keeper chosen on purpose (over the server's model, for a room)."""
    setting = ModelSetting.current() if scope is None else ModelSetting.of_room(scope)
    setting.provider, setting.base_url = OFFLINE, ""
    setting.chat_model = chat_model if chat_model in OFFLINE_MODELS else OFFLINE_KEEPER
    setting.save(update_fields=["provider", "chat_model", "base_url", "updated_at"])
    return resolve(scope)


def save_key(scope: Scope, api_key: str) -> LlmConfig:
    """Save a key for the provider and endpoint in force in `scope`, for that scope
    only (and for nothing else)."""
    current = resolve(scope)
    if current.provider not in CATALOG:
        raise ValueError("no provider selected")
    if current.subscription:
        raise grants.SignedOut(current.subscription)  # it signs in: no key to save
    _store_key(scope, current.provider, current.base_url, api_key)
    return resolve(scope)


def reset(scope: Scope) -> LlmConfig:
    """Drop the choice: a room follows the server-wide configuration again; the
    server follows the environment."""
    setting = _row(scope)
    if setting is not None:
        setting.provider = setting.chat_model = setting.base_url = ""
        setting.save()
    return resolve(scope)


def _store_key(scope: Scope, provider: str, base_url: str, api_key: str) -> None:
    """Save (or, with an empty key, forget) the key of one provider endpoint in `scope`."""
    for credential in ProviderCredential.objects.filter(room_id=scope, provider=provider):
        if same_endpoint(credential.base_url, base_url):
            credential.delete()
    if api_key:
        ProviderCredential.objects.create(
            room_id=scope, provider=provider, base_url=base_url, api_key=api_key
        )


def _last_endpoint(scope: Scope, provider: str) -> str:
    """The endpoint a provider's key was last saved for in `scope`, else its default."""
    credential = (
        ProviderCredential.objects.filter(room_id=scope, provider=provider)
        .order_by("-updated_at", "-id")
        .first()
    )
    return credential.base_url if credential else CATALOG[provider].base_url


def configure(
    scope: Scope,
    provider: str,
    chat_model: str | None = None,
    api_key: str | None = None,
    base_url: str | None = None,
) -> LlmConfig:
    """Switch a room (or the server) to `provider` the way `admin_set_model` asks.

    An omitted field keeps what the provider had (its endpoint, its model while it is
    the current provider, the key saved for that endpoint); an empty one clears it. A
    key is saved for the endpoint it arrived with, and a new endpoint never inherits
    an old key. Raises `EndpointRefused` (nothing saved) for an endpoint the policy
    refuses.
    """
    if provider == OFFLINE:
        return _choose_offline(scope, chat_model or "")
    if provider not in CATALOG:
        raise ValueError(provider)
    current = resolve(scope)
    same_provider = current.provider == provider
    if base_url is None:
        base_url = current.base_url if same_provider else _last_endpoint(scope, provider)
    base_url = base_url.strip() or CATALOG[provider].base_url
    if scope is None:
        endpoints.vet(base_url, operator=True)
    else:
        check_endpoint(scope, base_url)
    if chat_model is None:
        chat_model = current.chat_model if same_provider else ""
    if api_key is not None and not grants.subscription_of(provider, base_url):
        # A subscription signs in (`.model login`): a key never replaces its grant.
        _store_key(scope, provider, base_url, api_key.strip())
    return select(scope, provider, chat_model.strip(), base_url)


def preview_target(
    scope: Scope, provider: str | None, api_key: str | None, base_url: str | None
) -> tuple[str, str, str]:
    """(provider, endpoint, key) that `admin_list_models` may ask:
    a saved key is used only when no key is given and the endpoint is the one it was
    saved for. The key is empty when there is none to use."""
    current = resolve(scope)
    provider = provider or (current.provider if current.provider in CATALOG else OFFLINE)
    if provider not in CATALOG:
        return provider, "", ""
    if base_url:
        endpoint = base_url.strip()
    else:
        endpoint = current.base_url if provider == current.provider else _last_endpoint(scope, provider)
    return provider, endpoint, api_key if api_key else saved_key(provider, endpoint, scope)


def fetch_models(provider: str, endpoint: str, key: str, *, operator: bool) -> list[str]:
    """The endpoint's `GET /models`; [] when there is no key to send or it cannot be
    read. Blocking, with a short timeout: call it from a worker thread. Raises
    `EndpointRefused` when the policy refuses the connection (`operator`: the
    operator's endpoint, held only to what is never allowed)."""
    import openai  # loaded with the first model list (it is slow to import)

    if provider == OFFLINE:
        return list(OFFLINE_MODELS)
    if provider not in CATALOG or not endpoint or (not key and CATALOG[provider].needs_key):
        return []
    from keeper.llm import guarded_http  # httpx is loaded with the first request

    try:
        client = guarded_http.openai_client(endpoint, key, operator=operator, timeout=10.0, max_retries=0)
        return sorted(model.id for model in client.models.list().data)
    except endpoints.EndpointRefused:
        raise
    except (openai.OpenAIError, ValueError):
        return []


def saved_providers(scope: Scope = None) -> list[str]:
    """Providers with at least one key `scope` may use (the operator's and the
    environment's included), and a room's subscriptions it is signed in to (under
    their canonical names)."""
    keys = ProviderCredential.objects.exclude(api_key="", grant="")
    mine = (
        keys.filter(room__isnull=True)
        if scope is None
        else keys.filter(room_id=scope) | keys.filter(room__isnull=True)
    )
    names = set(mine.values_list("provider", flat=True))
    if settings.TRPG_LLM_API_KEY and settings.TRPG_LLM_PROVIDER in CATALOG:
        names.add(settings.TRPG_LLM_PROVIDER)
    return sorted(names)


def override_active(scope: Scope = None) -> bool:
    """Whether a choice overrides what lies below: the room's own (with a room), or
    the operator's over the environment (None)."""
    row = _row(scope)
    return row is not None and row.provider != ""


@dataclass(frozen=True)
class RoomOverride:
    """A room that chose its own model or pictures (for the console's model page)."""

    room: str
    provider: str
    chat_model: str
    base_url: str
    imagegen: str


def room_overrides() -> list[RoomOverride]:
    """Every room whose keeper chose its own model or image endpoint."""
    rows = (
        ModelSetting.objects.filter(room__isnull=False)
        .exclude(provider="", imagegen_provider="")
        .select_related("room")
        .order_by("room__name")
    )
    chosen = []
    for row in rows:
        current = resolve(row.room_id)
        pictures = f"{row.imagegen_provider} {row.imagegen_model}".strip() if row.imagegen_provider else ""
        chosen.append(
            RoomOverride(
                row.room.name,
                row.provider,
                current.chat_model if row.provider else "",
                current.base_url if row.provider else "",
                pictures,
            )
        )
    return chosen


@dataclass(frozen=True)
class ImageGenConfig:
    """The image endpoint: where portraits and the Keeper's scenes are drawn."""

    provider: str
    base_url: str
    model: str
    size: str
    api_key: str
    operator_endpoint: bool = True
    # Drawn on the room's SuperGrok sign-in (`api_key` is then its access token, which
    # no reply or frame shows, not even masked).
    subscription: str = ""

    @property
    def key_masked(self) -> str:
        """The key as replies show it ("" for a subscription's token)."""
        return "" if self.subscription else mask(self.api_key)

    @property
    def configured(self) -> bool:
        """Whether images can be drawn (the `imagegen` feature)."""
        entry = CATALOG.get(self.provider)
        if entry is None or not self.base_url or not self.model:
            return False
        return bool(self.api_key) or not entry.needs_key


def _server_imagegen() -> ImageGenConfig:
    """The operator's image endpoint: the server-wide row's, else the environment's."""
    setting = _row(None)
    if setting is not None and setting.imagegen_provider in CATALOG:
        provider, base_url = setting.imagegen_provider, setting.imagegen_base_url
        model, size = setting.imagegen_model, setting.imagegen_size or settings.TRPG_IMAGEGEN_SIZE
    elif settings.TRPG_IMAGEGEN_PROVIDER in CATALOG:
        provider = settings.TRPG_IMAGEGEN_PROVIDER
        base_url = settings.TRPG_IMAGEGEN_BASE_URL or CATALOG[provider].base_url
        model, size = settings.TRPG_IMAGEGEN_MODEL, settings.TRPG_IMAGEGEN_SIZE
    else:
        return ImageGenConfig("", "", "", "", "")
    return ImageGenConfig(provider, base_url, model, size, _image_key(None, provider, base_url))


def imagegen(scope: Scope) -> ImageGenConfig:
    """The image endpoint in force for a room: the one its keeper set
    (`admin_set_imagegen`), else the operator's (console, then `TRPG_IMAGEGEN__*`).
    With None, the operator's."""
    server = _server_imagegen()
    own = _row(scope) if scope is not None else None
    if own is None or own.imagegen_provider not in CATALOG:
        return server
    provider, base_url = own.imagegen_provider, own.imagegen_base_url
    size = own.imagegen_size or settings.TRPG_IMAGEGEN_SIZE
    if grants.canonical(provider) == "supergrok":
        return _subscription_imagegen(scope, provider, own.imagegen_model, size)
    return ImageGenConfig(
        provider,
        base_url,
        own.imagegen_model,
        size,
        _image_key(scope, provider, base_url),
        operator_endpoint=operator_endpoint(scope, base_url),
    )


def _subscription_imagegen(scope: int, provider: str, model: str, size: str) -> ImageGenConfig:
    """A room's pictures on its SuperGrok sign-in: the grant's token (renewed when
    due; none when the room is not signed in or the operator does not allow it)."""
    token = ""
    if grants.allowed():
        try:
            token = grants.fresh(scope, provider).access_token
        except grants.SignedOut:
            token = ""
    base_url = grants.api_url(provider)
    return ImageGenConfig(provider, base_url, model, size, token, subscription=grants.canonical(provider))


def _image_key(scope: Scope, provider: str, base_url: str) -> str:
    """The key for this image endpoint: one saved for it (the room's, then the
    operator's), else the environment's image key or chat key when the endpoint is
    the environment's."""
    env_provider = settings.TRPG_IMAGEGEN_PROVIDER
    env_image_key = ""
    if settings.TRPG_IMAGEGEN_API_KEY and provider == env_provider:
        env_url = settings.TRPG_IMAGEGEN_BASE_URL or CATALOG[env_provider].base_url
        env_image_key = settings.TRPG_IMAGEGEN_API_KEY if same_endpoint(env_url, base_url) else ""
    own = _stored_key(scope, provider, base_url) if scope is not None else ""
    return (
        own or _stored_key(None, provider, base_url) or env_image_key or _environment_key(provider, base_url)
    )


def configure_imagegen(
    scope: Scope,
    provider: str,
    model: str,
    base_url: str | None = None,
    api_key: str | None = None,
    size: str | None = None,
) -> ImageGenConfig:
    """Set a room's (or, with None, the server's) image endpoint under the same
    endpoint/key rule as `configure`. Raises `EndpointRefused` (nothing saved)."""
    if provider not in CATALOG:
        raise ValueError(provider)
    setting = ModelSetting.current() if scope is None else ModelSetting.of_room(scope)
    if base_url is None:
        same = setting.imagegen_provider == provider and setting.imagegen_base_url
        base_url = setting.imagegen_base_url if same else _last_endpoint(scope, provider)
    base_url = base_url.strip() or CATALOG[provider].base_url
    if scope is None:
        endpoints.vet(base_url, operator=True)
    else:
        check_endpoint(scope, base_url)
    if api_key is not None and grants.canonical(provider) != "supergrok":
        _store_key(scope, provider, base_url, api_key.strip())
    setting.imagegen_provider, setting.imagegen_base_url = provider, base_url
    setting.imagegen_model = model.strip()[:200]
    if size is not None:
        setting.imagegen_size = size.strip()[:20]
    setting.save()
    return imagegen(scope)


def clear_imagegen(scope: Scope) -> ImageGenConfig:
    """Drop the image endpoint chosen in `scope`: it falls back again."""
    setting = _row(scope)
    if setting is not None:
        setting.imagegen_provider = setting.imagegen_base_url = setting.imagegen_model = ""
        setting.save()
    return imagegen(scope)
