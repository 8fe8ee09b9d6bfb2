"""The ChatGPT subscription's model: the Responses API, streamed, through the `openai`
SDK, with the room's grant as the bearer token and the subscription's headers.

The turn loop speaks chat completions (`keeper.llm.client`); this module translates
both ways: system messages become `instructions`, the conversation becomes input
items (an assistant's tool calls `function_call` items, a tool's answer a
`function_call_output`), the tools become flat function tools; back, text deltas are
`TextDelta`, finished `function_call` items are `ToolCalls`, and the completed
response's usage is `Usage`. Nothing is stored on the provider's side (`store`
false): every request carries the whole conversation, as with any provider.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

from django.conf import settings

from keeper.llm import grants
from keeper.llm.client import (
    ProviderError,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCalls,
    Usage,
    _count_tokens,
    _counted,
    _describe,
    _failed,
)
from keeper.llm.config import LlmConfig

# Who is asking, as the subscription backend wants it said (not the Codex CLI itself).
ORIGINATOR = "Codex Loreweaver"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", "")) for part in content if isinstance(part, dict) and part.get("text")
        )
    return ""


def to_request(messages: list[dict], tools: list[dict]) -> dict:
    """A chat-completions conversation as a Responses request's `instructions`,
    `input` and `tools`."""
    instructions, items = [], []
    for message in messages:
        role = message.get("role")
        text = _text_of(message.get("content"))
        if role in ("system", "developer"):
            if text:
                instructions.append(text)
        elif role == "assistant":
            if text:
                items.append({"role": "assistant", "content": [{"type": "output_text", "text": text}]})
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                items.append(
                    {
                        "type": "function_call",
                        "call_id": call.get("id", ""),
                        "name": function.get("name", ""),
                        "arguments": function.get("arguments") or "{}",
                    }
                )
        elif role == "tool":
            items.append(
                {"type": "function_call_output", "call_id": message.get("tool_call_id", ""), "output": text}
            )
        elif text:
            items.append({"role": "user", "content": [{"type": "input_text", "text": text}]})
    request: dict = {"input": items, "store": False}
    if instructions:
        request["instructions"] = "\n\n".join(instructions)
    flat = []
    for tool in tools or ():
        function = tool.get("function", tool)
        if function.get("name"):
            flat.append(
                {
                    "type": "function",
                    "name": function["name"],
                    "description": function.get("description", ""),
                    "parameters": function.get("parameters") or {"type": "object", "properties": {}},
                }
            )
    if flat:
        request["tools"] = flat
    return request


def _usage(usage: Any) -> Usage:
    details = getattr(usage, "input_tokens_details", None)
    cached = int(getattr(details, "cached_tokens", 0) or 0)
    prompt = int(getattr(usage, "input_tokens", 0) or 0)
    return Usage(prompt, int(getattr(usage, "output_tokens", 0) or 0), cached, prompt - cached)


class ResponsesChat:
    """One ChatGPT call's client, made with the grant it is to send."""

    def __init__(self, config: LlmConfig, grant: grants.Grant) -> None:
        self.config = config
        self._headers = {"originator": ORIGINATOR, "session_id": str(uuid.uuid4())}
        if grant.account_id:
            self._headers["ChatGPT-Account-Id"] = grant.account_id
        from keeper.llm.guarded_http import async_openai_client  # with the first model call

        self._client = async_openai_client(
            config.base_url,
            grant.access_token,
            operator=True,  # the operator's address for the subscription
            timeout=settings.TRPG_LLM_TIMEOUT,
            max_retries=settings.TRPG_LLM_RETRIES,
        )

    async def stream(self, messages: list[dict], tools: list[dict]) -> AsyncIterator[StreamEvent]:
        """Stream one response: text as it comes, then the tool calls, then usage."""
        with _counted(self.config.provider):
            async for event in self._stream(messages, tools):
                if isinstance(event, Usage):
                    _count_tokens(self.config.provider, event)
                yield event

    async def _stream(self, messages: list[dict], tools: list[dict]) -> AsyncIterator[StreamEvent]:
        import openai  # loaded with the first model call (it is slow to import)

        calls: list[ToolCall] = []
        usage: Usage | None = None
        try:
            events = await self._client.responses.create(
                model=self.config.chat_model,
                stream=True,
                extra_headers=self._headers,
                **to_request(messages, tools),
            )
            async for event in events:
                kind = getattr(event, "type", "")
                if kind == "response.output_text.delta" and event.delta:
                    yield TextDelta(event.delta)
                elif (
                    kind == "response.output_item.done" and getattr(event.item, "type", "") == "function_call"
                ):
                    item = event.item
                    calls.append(
                        ToolCall(item.call_id or f"call_{len(calls)}", item.name, item.arguments or "")
                    )
                elif kind == "response.completed" and getattr(event.response, "usage", None) is not None:
                    usage = _usage(event.response.usage)
                elif kind in ("response.failed", "error", "response.incomplete"):
                    raise ProviderError(self._why(event), status=None)
        except ProviderError:
            raise
        except openai.OpenAIError as exc:
            raise _failed(exc, _describe_with_body(exc)) from exc
        except Exception as exc:
            raise _failed(exc, exc.__class__.__name__) from exc
        if calls:
            yield ToolCalls(calls)
        if usage is not None:
            yield usage

    @staticmethod
    def _why(event: Any) -> str:
        response = getattr(event, "response", None)
        error = getattr(response, "error", None) or getattr(event, "error", None)
        code = getattr(error, "code", None) or getattr(event, "code", None) or getattr(event, "type", "")
        return f"the response failed ({code})"

    async def complete(self, messages: list[dict]) -> str:
        """One short answer (an NPC's line, a summary): streamed, as the backend asks,
        and joined."""
        parts = []
        async for event in self.stream(messages, []):
            if isinstance(event, TextDelta):
                parts.append(event.text)
        return "".join(parts).strip()


def _describe_with_body(exc: Exception) -> str:
    """The error's kind and status, and the provider's own code when it gave one (a
    usage limit reads as such); never the request."""
    described = _describe(exc)  # type: ignore[arg-type]
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        code = error.get("type") or error.get("code") if isinstance(error, dict) else None
        if code:
            described += f" {code}"
    return described
