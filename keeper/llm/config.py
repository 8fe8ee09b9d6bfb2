"""Which model the Keeper uses right now.

The environment (`TRPG_LLM__*`) sets the default; a keeper's `.model` (or the operator)
overrides it in the database, so a switch needs no restart and survives one. A key is
bound to the provider AND endpoint it was given for: it is never sent anywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from keeper.llm.providers import CATALOG
from keeper.models import ModelSetting, ProviderCredential


@dataclass(frozen=True)
class LlmConfig:
    """A resolved configuration. `usable` is False when the offline Keeper must play."""

    provider: str
    base_url: str
    api_key: str
    chat_model: str
    context_window: int

    @property
    def usable(self) -> bool:
        entry = CATALOG.get(self.provider)
        if entry is None or not self.base_url or not self.chat_model:
            return False
        return bool(self.api_key) or not entry.needs_key

    @property
    def key_masked(self) -> str:
        return mask(self.api_key)


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
    return settings.TRPG_LLM_API_KEY if _same_endpoint(env_url, base_url) else ""


def _same_endpoint(a: str, b: str) -> bool:
    return a.rstrip("/").lower() == b.rstrip("/").lower()


def _stored_key(provider: str, base_url: str) -> str:
    """The key saved in the database for exactly this provider and endpoint."""
    for credential in ProviderCredential.objects.filter(provider=provider):
        if _same_endpoint(credential.base_url, base_url):
            return credential.api_key
    return ""


def saved_key(provider: str, base_url: str) -> str:
    """The key saved for exactly this provider and endpoint, or the environment's."""
    return _stored_key(provider, base_url) or _environment_key(provider, base_url)


def resolve() -> LlmConfig:
    """The configuration in force: the database override over the environment."""
    override = ModelSetting.objects.filter(pk=1).first()
    provider = (override.provider if override and override.provider else settings.TRPG_LLM_PROVIDER) or ""
    entry = CATALOG.get(provider)
    if entry is None:
        return LlmConfig(provider, "", "", "", settings.TRPG_LLM_CONTEXT_WINDOW)
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


def select(provider: str, chat_model: str = "", base_url: str = "") -> LlmConfig:
    """Switch the server to `provider` (and optionally a model and endpoint)."""
    if provider not in CATALOG:
        raise ValueError(provider)
    setting = ModelSetting.current()
    setting.provider, setting.chat_model, setting.base_url = provider, chat_model, base_url
    setting.save(update_fields=["provider", "chat_model", "base_url", "updated_at"])
    return resolve()


def save_key(api_key: str) -> LlmConfig:
    """Save a key for the provider and endpoint in force (and for nothing else)."""
    current = resolve()
    if current.provider not in CATALOG:
        raise ValueError("no provider selected")
    _store_key(current.provider, current.base_url, api_key)
    return resolve()


def reset() -> LlmConfig:
    """Drop the override: the environment's configuration applies again."""
    setting = ModelSetting.objects.filter(pk=1).first()
    if setting is not None:
        setting.provider = setting.chat_model = setting.base_url = ""
        setting.save()
    return resolve()


def _store_key(provider: str, base_url: str, api_key: str) -> None:
    """Save (or, with an empty key, forget) the key of one provider endpoint."""
    book = ProviderCredential.objects.filter(provider=provider)
    for credential in book:
        if _same_endpoint(credential.base_url, base_url):
            credential.delete()
    if api_key:
        ProviderCredential.objects.create(provider=provider, base_url=base_url, api_key=api_key)


def _last_endpoint(provider: str) -> str:
    """The endpoint a provider's key was last saved for, else its default."""
    credential = ProviderCredential.objects.filter(provider=provider).order_by("-updated_at", "-id").first()
    return credential.base_url if credential else CATALOG[provider].base_url


def configure(
    provider: str, chat_model: str | None = None, api_key: str | None = None, base_url: str | None = None
) -> LlmConfig:
    """Switch to `provider` the way `admin_set_model` asks.

    An omitted field keeps what the provider had (its endpoint, its model while it is
    the current provider, the key saved for that endpoint); an empty one clears it. A
    key is saved for the endpoint it arrived with, and a new endpoint never inherits
    an old key.
    """
    if provider not in CATALOG:
        raise ValueError(provider)
    current = resolve()
    same_provider = current.provider == provider
    if base_url is None:
        base_url = current.base_url if same_provider else _last_endpoint(provider)
    base_url = base_url.strip() or CATALOG[provider].base_url
    if chat_model is None:
        chat_model = current.chat_model if same_provider else ""
    if api_key is not None:
        _store_key(provider, base_url, api_key.strip())
    return select(provider, chat_model.strip(), base_url)


def preview_target(provider: str | None, api_key: str | None, base_url: str | None) -> tuple[str, str, str]:
    """(provider, endpoint, key) that `admin_list_models` may ask:
    a saved key is used only when no key is given and the endpoint is the one it was
    saved for. The key is empty when there is none to use."""
    current = resolve()
    provider = provider or current.provider
    if provider not in CATALOG:
        return provider or "", "", ""
    if base_url:
        endpoint = base_url.strip()
    else:
        endpoint = current.base_url if provider == current.provider else _last_endpoint(provider)
    return provider, endpoint, api_key if api_key else saved_key(provider, endpoint)


def fetch_models(provider: str, endpoint: str, key: str) -> list[str]:
    """The endpoint's `GET /models`; [] when there is no key to send or it cannot be
    read. Blocking, with a short timeout: call it from a worker thread."""
    import openai

    if provider not in CATALOG or not endpoint or (not key and CATALOG[provider].needs_key):
        return []
    try:
        client = openai.OpenAI(api_key=key or "not-needed", base_url=endpoint, timeout=10.0, max_retries=0)
        return sorted(model.id for model in client.models.list().data)
    except (openai.OpenAIError, ValueError):
        return []


def saved_providers() -> list[str]:
    """Providers with at least one saved key (the environment's included)."""
    names = set(ProviderCredential.objects.exclude(api_key="").values_list("provider", flat=True))
    if settings.TRPG_LLM_API_KEY and settings.TRPG_LLM_PROVIDER in CATALOG:
        names.add(settings.TRPG_LLM_PROVIDER)
    return sorted(names)


def override_active() -> bool:
    """Whether a keeper's or the operator's choice overrides the environment."""
    return ModelSetting.objects.filter(pk=1).exclude(provider="").exists()


@dataclass(frozen=True)
class ImageGenConfig:
    """The image endpoint: where portraits and the Keeper's scenes are drawn."""

    provider: str
    base_url: str
    model: str
    size: str
    api_key: str

    @property
    def configured(self) -> bool:
        """Whether images can be drawn (the `imagegen` feature)."""
        entry = CATALOG.get(self.provider)
        if entry is None or not self.base_url or not self.model:
            return False
        return bool(self.api_key) or not entry.needs_key


def imagegen() -> ImageGenConfig:
    """The image endpoint in force: the one set at run time (`admin_set_imagegen`), else
    the environment's (`TRPG_IMAGEGEN__*`)."""
    setting = ModelSetting.objects.filter(pk=1).first()
    if setting is not None and setting.imagegen_provider:
        provider, base_url = setting.imagegen_provider, setting.imagegen_base_url
        model, size = setting.imagegen_model, setting.imagegen_size or settings.TRPG_IMAGEGEN_SIZE
    elif settings.TRPG_IMAGEGEN_PROVIDER in CATALOG:
        provider = settings.TRPG_IMAGEGEN_PROVIDER
        base_url = settings.TRPG_IMAGEGEN_BASE_URL or CATALOG[provider].base_url
        model, size = settings.TRPG_IMAGEGEN_MODEL, settings.TRPG_IMAGEGEN_SIZE
    else:
        return ImageGenConfig("", "", "", "", "")
    return ImageGenConfig(provider, base_url, model, size, _image_key(provider, base_url))


def _image_key(provider: str, base_url: str) -> str:
    """The key for this image endpoint: one saved for it, else the environment's image
    key or chat key when the endpoint is the environment's."""
    env_provider = settings.TRPG_IMAGEGEN_PROVIDER
    env_image_key = ""
    if settings.TRPG_IMAGEGEN_API_KEY and provider == env_provider:
        env_url = settings.TRPG_IMAGEGEN_BASE_URL or CATALOG[env_provider].base_url
        env_image_key = settings.TRPG_IMAGEGEN_API_KEY if _same_endpoint(env_url, base_url) else ""
    return _stored_key(provider, base_url) or env_image_key or _environment_key(provider, base_url)


def configure_imagegen(
    provider: str,
    model: str,
    base_url: str | None = None,
    api_key: str | None = None,
    size: str | None = None,
) -> ImageGenConfig:
    """Set the image endpoint under the same endpoint/key rule as `configure`."""
    if provider not in CATALOG:
        raise ValueError(provider)
    setting = ModelSetting.current()
    if base_url is None:
        same = setting.imagegen_provider == provider and setting.imagegen_base_url
        base_url = setting.imagegen_base_url if same else _last_endpoint(provider)
    base_url = base_url.strip() or CATALOG[provider].base_url
    if api_key is not None:
        _store_key(provider, base_url, api_key.strip())
    setting.imagegen_provider, setting.imagegen_base_url = provider, base_url
    setting.imagegen_model = model.strip()[:200]
    if size is not None:
        setting.imagegen_size = size.strip()[:20]
    setting.save()
    return imagegen()
