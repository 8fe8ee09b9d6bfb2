"""One shared, streaming, OpenAI-compatible chat client (the `openai` SDK).

A model is anything with `stream(messages, tools)` yielding `TextDelta`, `ToolCalls`
and `Usage` events, and `complete(messages)` returning text: `OpenAIChat` for real
providers, and the offline sample Keeper (`keeper.kp.sample`) speaks the same shape,
so the turn loop cannot tell them apart. Only the offline Keeper yields a `Notice`: a
word about the service, not the story.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from django.conf import settings

from base import metrics
from keeper.llm.config import LlmConfig
from keeper.llm.endpoints import EndpointRefused, refusal_in

if TYPE_CHECKING:
    import openai


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str

    def parsed_arguments(self) -> dict:
        """The arguments as a dict; malformed JSON reads as no arguments."""
        try:
            value = json.loads(self.arguments or "{}")
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class ToolCalls:
    calls: list[ToolCall]


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_hit_tokens: int = 0
    cache_miss_tokens: int = 0


@dataclass(frozen=True)
class Notice:
    """A word to the table about the service (no model is connected), not the story: the
    table is told it as a notice; it is never narration, the transcript or the chronicle."""

    text: str


StreamEvent = TextDelta | ToolCalls | Usage | Notice


class ProviderError(Exception):
    """The model could not answer (unreachable, refused, or the stream broke).
    `refusal` is set when the server's endpoint policy refused the connection, `status`
    when the provider answered with an HTTP error."""

    def __init__(
        self,
        message: str,
        refusal: EndpointRefused | None = None,
        status: int | None = None,
        kind: str = "",
    ) -> None:
        super().__init__(message)
        self.refusal = refusal
        self.status = status
        # On a keeper's own subscription: "signed_out" (the sign-in ended: renewal
        # refused) or "quota" (the subscription's usage limit); "" otherwise.
        self.kind = kind


def _failed(exc: BaseException, message: str) -> ProviderError:
    refusal = refusal_in(exc)
    status = getattr(exc, "status_code", None)
    return ProviderError(
        str(refusal) if refusal else message, refusal, status if isinstance(status, int) else None
    )


class ChatModel(Protocol):
    async def stream(self, messages: list[dict], tools: list[dict]) -> AsyncIterator[StreamEvent]: ...

    async def complete(self, messages: list[dict]) -> str: ...


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


def _usage_of(usage: Any) -> Usage:
    details = getattr(usage, "prompt_tokens_details", None)
    hit = getattr(details, "cached_tokens", None) or 0
    extra = getattr(usage, "model_extra", None) or {}
    # DeepSeek reports its context cache in its own two fields.
    hit = extra.get("prompt_cache_hit_tokens", hit) or 0
    prompt = usage.prompt_tokens or 0
    miss = extra.get("prompt_cache_miss_tokens", prompt - hit) or 0
    return Usage(prompt, usage.completion_tokens or 0, int(hit), int(miss))


class OpenAIChat:
    """A real provider through the `openai` SDK. The SDK retries a call that failed
    before its first byte (connection errors, 408/429/5xx) with backoff."""

    def __init__(self, config: LlmConfig) -> None:
        self.config = config
        # Every connection goes through the endpoint policy (a room's endpoint is
        # checked again at each connect, whatever its name resolves to by then).
        from keeper.llm.guarded_http import async_openai_client  # with the first model call

        self._client = async_openai_client(
            config.base_url,
            config.api_key,
            operator=config.operator_endpoint,
            timeout=settings.TRPG_LLM_TIMEOUT,
            max_retries=settings.TRPG_LLM_RETRIES,
        )

    async def embed(self, texts: list[str]) -> list[list[float]]:
        """Vectors for `texts` from the provider's embeddings endpoint (the model named
        by `TRPG_LLM__EMBEDDING_MODEL`)."""
        import openai  # loaded with the first model call (it is slow to import)

        try:
            answer = await self._client.embeddings.create(
                model=settings.TRPG_LLM_EMBEDDING_MODEL, input=texts
            )
        except openai.OpenAIError as failed:
            raise _failed(failed, str(failed)) from failed
        vectors = [item.embedding for item in sorted(answer.data, key=lambda item: item.index)]
        if len(vectors) != len(texts):
            raise ProviderError(f"{len(texts)} texts, {len(vectors)} vectors")
        return vectors

    async def stream(self, messages: list[dict], tools: list[dict]) -> AsyncIterator[StreamEvent]:
        """Stream one completion: text as it comes, then the tool calls, then usage."""
        with _counted(self.config.provider):
            async for event in self._stream(messages, tools):
                if isinstance(event, Usage):
                    _count_tokens(self.config.provider, event)
                yield event

    async def _stream(self, messages: list[dict], tools: list[dict]) -> AsyncIterator[StreamEvent]:
        import openai  # loaded with the first model call (it is slow to import)

        try:
            response = await self._client.chat.completions.create(
                model=self.config.chat_model,
                messages=messages,
                tools=tools or openai.NOT_GIVEN,
                stream=True,
                stream_options={"include_usage": True},
            )
            pending: dict[int, _PendingCall] = {}
            async for chunk in response:
                if chunk.usage is not None:
                    yield _usage_of(chunk.usage)
                for choice in chunk.choices:
                    delta = choice.delta
                    if delta is None:
                        continue
                    if delta.content:
                        yield TextDelta(delta.content)
                    for part in delta.tool_calls or ():
                        call = pending.setdefault(part.index, _PendingCall())
                        call.id = part.id or call.id
                        if part.function is not None:
                            call.name = part.function.name or call.name
                            call.arguments.append(part.function.arguments or "")
            if pending:
                yield ToolCalls(
                    [
                        ToolCall(c.id or f"call_{i}", c.name, "".join(c.arguments))
                        for i, c in sorted(pending.items())
                    ]
                )
        except openai.OpenAIError as exc:
            raise _failed(exc, _describe(exc)) from exc
        except Exception as exc:
            # The transport broke mid-stream (the SDK does not wrap errors raised while
            # a response is being read).
            raise _failed(exc, exc.__class__.__name__) from exc

    async def complete(self, messages: list[dict]) -> str:
        """One short, unstreamed answer (an NPC's line, a summary)."""
        import openai  # loaded with the first model call (it is slow to import)

        try:
            with _counted(self.config.provider):
                response = await self._client.chat.completions.create(
                    model=self.config.chat_model, messages=messages
                )
        except openai.OpenAIError as exc:
            raise _failed(exc, _describe(exc)) from exc
        if response.usage is not None:
            _count_tokens(self.config.provider, _usage_of(response.usage))
        return (response.choices[0].message.content or "").strip() if response.choices else ""

    async def list_models(self) -> list[str]:
        """The endpoint's `GET /models`, or [] when it cannot be read."""
        import openai  # loaded with the first model call (it is slow to import)

        try:
            page = await self._client.models.list()
        except openai.OpenAIError:
            return []
        return sorted(model.id for model in page.data)


@contextlib.contextmanager
def _counted(provider: str) -> Iterator[None]:
    """Count one model call, its time and how it ended (`/metrics`)."""
    started = time.monotonic()
    outcome = "error"
    try:
        yield
        outcome = "ok"
    finally:
        metrics.MODEL_CALLS.labels(provider, outcome).inc()
        metrics.MODEL_SECONDS.labels(provider).observe(time.monotonic() - started)


def _count_tokens(provider: str, usage: Usage) -> None:
    metrics.MODEL_TOKENS.labels(provider, "in").inc(usage.input_tokens)
    metrics.MODEL_TOKENS.labels(provider, "out").inc(usage.output_tokens)


def _describe(exc: openai.OpenAIError) -> str:
    status = getattr(exc, "status_code", None)
    return f"{exc.__class__.__name__}{f' {status}' if status else ''}"


# Clients by configuration: rooms may each use their own, so a few are kept.
_shared: dict[tuple, OpenAIChat] = {}
_KEPT_CLIENTS = 16


def client_for(config: LlmConfig) -> OpenAIChat:
    """The shared client for this configuration; a new configuration gets a new one
    (hot swap), and the least recently made beyond a few are dropped."""
    fingerprint = (
        config.provider,
        config.base_url,
        config.api_key,
        config.chat_model,
        config.operator_endpoint,
    )
    client = _shared.get(fingerprint)
    if client is None:
        while len(_shared) >= _KEPT_CLIENTS:
            _shared.pop(next(iter(_shared)))
        client = _shared[fingerprint] = OpenAIChat(config)
    return client
