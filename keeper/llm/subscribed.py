"""The Keeper's model on a keeper's own subscription: the room's grant in every request.

`SubscribedChat` speaks the same `stream` / `complete` shape as `OpenAIChat`, so the
turn loop cannot tell it apart. Before each call it takes the room's grant, renewed
when it is a minute from expiring (`keeper.llm.grants.fresh`); a 401 before the
first event renews it once more and tries again. A renewal the provider refuses
ends the sign-in: the room reads `logged_out`, and the turn fails as a failing model
does, its keepers told why (`ProviderError.kind`). SuperGrok is xAI's
chat-completions API with the grant as its bearer token; ChatGPT is the Responses
API (`keeper.llm.responses`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import replace

from channels.db import database_sync_to_async

from keeper.llm import grants
from keeper.llm.client import ChatModel, OpenAIChat, ProviderError, StreamEvent
from keeper.llm.config import LlmConfig

log = logging.getLogger(__name__)

# What a provider says when the subscription's allowance is spent.
QUOTA_WORDS = ("usage_limit", "insufficient_quota", "quota_exceeded", "billing_hard_limit", "rate_limit")


def quota_error(failure: ProviderError) -> bool:
    """Whether a failure is the subscription's usage limit (a 429, or a body that says so)."""
    text = str(failure).lower()
    return failure.status == 429 or any(word in text for word in QUOTA_WORDS)


class SubscribedChat:
    """The room's subscription as a chat model."""

    def __init__(self, room_id: int, config: LlmConfig) -> None:
        self.room_id = room_id
        self.config = config

    async def _grant(self, *, force: bool = False) -> grants.Grant:
        """The room's grant, renewed when due (or `force`d): the renewal goes to a
        worker thread, not the database's; a refused one ends the sign-in."""
        room, name = self.room_id, self.config.subscription
        grant = await database_sync_to_async(grants.load)(room, name)
        if grant is not None and (force or grant.due()):
            try:
                renewed = await asyncio.to_thread(grants.renew, name, grant)
            except grants.SignedOut as failed:
                log.warning("room=%s the %s sign-in could not be renewed: %s", room, name, failed)
                await database_sync_to_async(grants.forget)(room, name)
                grant = None
            else:
                await database_sync_to_async(grants.store)(room, name, renewed)
                grant = renewed
        if grant is None:
            raise ProviderError(f"{name}: not signed in", status=401, kind="signed_out")
        return grant

    def _model(self, grant: grants.Grant) -> ChatModel:
        if self.config.subscription == "chatgpt":
            from keeper.llm.responses import ResponsesChat

            return ResponsesChat(self.config, grant)
        return OpenAIChat(replace(self.config, api_key=grant.access_token, operator_endpoint=True))

    async def stream(self, messages: list[dict], tools: list[dict]) -> AsyncIterator[StreamEvent]:
        """One streamed completion; a 401 before the first event renews and retries once."""
        grant = await self._grant()
        started = False
        try:
            async for event in self._model(grant).stream(messages, tools):
                started = True
                yield event
            return
        except ProviderError as failure:
            if failure.status != 401 or started:
                raise self._classified(failure) from failure
        grant = await self._grant(force=True)
        try:
            async for event in self._model(grant).stream(messages, tools):
                yield event
        except ProviderError as failure:
            raise self._classified(failure) from failure

    async def complete(self, messages: list[dict]) -> str:
        """One short, unstreamed answer (an NPC's line, a summary)."""
        grant = await self._grant()
        try:
            return await self._model(grant).complete(messages)
        except ProviderError as failure:
            if failure.status != 401:
                raise self._classified(failure) from failure
        grant = await self._grant(force=True)
        try:
            return await self._model(grant).complete(messages)
        except ProviderError as failure:
            raise self._classified(failure) from failure

    async def embed(self, texts: list[str]) -> list[list[float]]:
        """Lore by meaning is not offered on a subscription."""
        raise ProviderError(f"{self.config.subscription}: no embeddings")

    def _classified(self, failure: ProviderError) -> ProviderError:
        if failure.kind or failure.refusal is not None:
            return failure
        if quota_error(failure):
            return ProviderError(str(failure), status=failure.status, kind="quota")
        return failure


def draft_text(config: LlmConfig, messages: list[dict]) -> str:
    """One unstreamed-looking answer on the room's subscription, blocking (a worker
    thread's: `.module import` and `admin_generate` drafts). Raises SignedOut, or the
    SDK's error."""
    from django.conf import settings
    from django.db import connection

    from keeper.llm.guarded_http import openai_client
    from keeper.llm.responses import ORIGINATOR, to_request

    assert config.room_id is not None
    try:
        grant = grants.fresh(config.room_id, config.subscription)
    finally:
        connection.close()  # this worker thread's own connection: not kept open
    client = openai_client(
        config.base_url,
        grant.access_token,
        operator=True,
        timeout=settings.TRPG_LLM_TIMEOUT,
        max_retries=settings.TRPG_LLM_RETRIES,
    )
    if config.subscription != "chatgpt":
        response = client.chat.completions.create(model=config.chat_model, messages=messages)
        return (response.choices[0].message.content or "") if response.choices else ""
    headers = {"originator": ORIGINATOR}
    if grant.account_id:
        headers["ChatGPT-Account-Id"] = grant.account_id
    events = client.responses.create(
        model=config.chat_model, stream=True, extra_headers=headers, **to_request(messages, [])
    )
    return "".join(
        event.delta for event in events if getattr(event, "type", "") == "response.output_text.delta"
    )
