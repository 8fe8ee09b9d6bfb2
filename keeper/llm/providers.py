"""Every OpenAI-compatible provider the server knows, with its default endpoint.

The catalog is additive: a provider not listed can still be used as `openai` with an
explicit base URL.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Provider:
    """One provider: its id, default endpoint and model, and whether it needs a key."""

    id: str
    base_url: str
    default_model: str
    needs_key: bool = True


# The offline Keeper, offered beside the catalog as one more provider: it needs no
# endpoint and no key. Its models: the phrasebook Keeper that answers any line, and the
# same Keeper offering the sample adventure to the room's keepers until a module begins.
OFFLINE = "offline"
OFFLINE_KEEPER = "sample-keeper"
SAMPLE_ADVENTURE = "sample-adventure"
OFFLINE_MODELS = (OFFLINE_KEEPER, SAMPLE_ADVENTURE)


CATALOG: dict[str, Provider] = {
    p.id: p
    for p in (
        Provider("openai", "https://api.openai.com/v1", "gpt-4.1-mini"),
        Provider("deepseek", "https://api.deepseek.com/v1", "deepseek-chat"),
        Provider("openrouter", "https://openrouter.ai/api/v1", "openai/gpt-4.1-mini"),
        Provider("ollama", "http://127.0.0.1:11434/v1", "qwen3:8b", needs_key=False),
        Provider("lmstudio", "http://127.0.0.1:1234/v1", "local-model", needs_key=False),
        Provider("vllm", "http://127.0.0.1:8000/v1", "local-model", needs_key=False),
        Provider("groq", "https://api.groq.com/openai/v1", "llama-3.3-70b-versatile"),
        Provider("together", "https://api.together.xyz/v1", "meta-llama/Llama-3.3-70B-Instruct-Turbo"),
        Provider("mistral", "https://api.mistral.ai/v1", "mistral-large-latest"),
        Provider("moonshot", "https://api.moonshot.cn/v1", "moonshot-v1-32k"),
        Provider("zhipu", "https://open.bigmodel.cn/api/paas/v4", "glm-4-plus"),
        Provider("xai", "https://api.x.ai/v1", "grok-3-mini"),
        Provider(
            "fireworks",
            "https://api.fireworks.ai/inference/v1",
            "accounts/fireworks/models/llama-v3p3-70b-instruct",
        ),
        # A keeper's own subscription (keeper/llm/grants.py): signed in with `.model
        # login`, no key. `chatgpt` with an explicit endpoint is a plain
        # OpenAI-compatible provider with a key; `supergrok` always signs in.
        Provider("chatgpt", "https://chatgpt.com/backend-api/codex", "gpt-5.4"),
        Provider("gpt-subscription", "https://chatgpt.com/backend-api/codex", "gpt-5.4"),
        Provider("supergrok", "https://api.x.ai/v1", "grok-4.6"),
    )
}

# The subscription providers, by the name their sign-in is kept under.
SUBSCRIPTIONS = {"chatgpt": "chatgpt", "gpt-subscription": "chatgpt", "supergrok": "supergrok"}
