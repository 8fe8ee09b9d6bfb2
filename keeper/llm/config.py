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


def saved_key(provider: str, base_url: str) -> str:
    """The key saved for exactly this provider and endpoint, or the environment's."""
    for credential in ProviderCredential.objects.filter(provider=provider):
        if _same_endpoint(credential.base_url, base_url):
            return credential.api_key
    return _environment_key(provider, base_url)


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
    setting.save()
    return resolve()


def save_key(api_key: str) -> LlmConfig:
    """Save a key for the provider and endpoint in force (and for nothing else)."""
    current = resolve()
    if current.provider not in CATALOG:
        raise ValueError("no provider selected")
    ProviderCredential.objects.update_or_create(
        provider=current.provider, base_url=current.base_url, defaults={"api_key": api_key}
    )
    return resolve()


def reset() -> LlmConfig:
    """Drop the override: the environment's configuration applies again."""
    ModelSetting.objects.filter(pk=1).delete()
    return resolve()
