"""The HTTP clients of `keeper.llm.endpoints`: connections made only to addresses its
policy allows, checked as each connection opens (the host resolved, every address
checked, the connection pinned to a checked one) and again for each request's URL.

A module of its own so that httpx and httpcore (a tenth of a second) are imported with
the first model call or fetch, not at every process's start: most processes never
make one.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import httpcore2
import httpx2

from keeper.llm.endpoints import (
    MODELS,
    EndpointRefused,
    Policy,
    Target,
    judge,
    literal_address,
    resolve_host,
    target_of,
)

if TYPE_CHECKING:
    import openai


def _checked(host: str, port: int, *, operator: bool, policy: Policy = MODELS) -> list[str]:
    """The addresses `host` resolves to, all of them checked, to connect to (a name
    that cannot be resolved is a failed connection)."""
    try:
        addresses = resolve_host(host, port)
    except OSError as failed:
        raise httpcore2.ConnectError(str(failed)) from None
    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    judge(Target(host.lower(), port, shown), addresses, operator=operator, policy=policy)
    return [str(address) for address in addresses]


class _GuardedBackend(httpcore2.NetworkBackend):
    """Resolves, checks every address, then connects to a checked address (pinned:
    nothing is resolved twice)."""

    def __init__(self, operator: bool, policy: Policy = MODELS) -> None:
        self._inner = httpcore2.SyncBackend()
        self._operator, self._policy = operator, policy

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        last: Exception | None = None
        for address in _checked(host, port, operator=self._operator, policy=self._policy):
            try:
                return self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except httpcore2.ConnectError as failed:
                last = failed
        raise last or httpcore2.ConnectError(host)

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore2.NetworkStream:
        raise httpcore2.ConnectError("unix sockets are not model endpoints")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _AsyncGuardedBackend(httpcore2.AsyncNetworkBackend):
    """`_GuardedBackend` for asyncio."""

    def __init__(self, operator: bool) -> None:
        self._inner = httpcore2.AnyIOBackend()
        self._operator = operator

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        last: Exception | None = None
        # The resolver blocks: it runs in a thread, as the event loop's own getaddrinfo does.
        for address in await asyncio.to_thread(_checked, host, port, operator=self._operator):
            try:
                return await self._inner.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except httpcore2.ConnectError as failed:
                last = failed
        raise last or httpcore2.ConnectError(host)

    async def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore2.AsyncNetworkStream:
        raise httpcore2.ConnectError("unix sockets are not model endpoints")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def _refuse_url(url: httpx2.URL, operator: bool, policy: Policy = MODELS) -> None:
    """The per-request part of the check: scheme, user info, a listed URL prefix
    (a redirect is a new request, so it is checked too)."""
    target = target_of(str(url))
    if operator:
        return
    literal = literal_address(target.host)
    if literal is not None:
        judge(target, [literal], operator=False, url=str(url), policy=policy)


@functools.cache
def _sdk_refusal() -> type[EndpointRefused]:
    """`EndpointRefused` that is also an `openai.OpenAIError`, which the SDK passes on
    as it is, without retrying or wrapping it. Made on first use: importing the SDK
    costs a third of a second of every process's start, and most never call a model."""
    import openai  # loaded on first use, as said above

    return type("EndpointRefused", (EndpointRefused, openai.OpenAIError), {})


@contextlib.contextmanager
def _refusals_the_sdk_passes_on() -> Iterator[None]:
    try:
        yield
    except EndpointRefused as refused:
        if isinstance(refused, _sdk_refusal()):
            raise
        raise _sdk_refusal()(refused.endpoint, refused.rule) from None


class _GuardedTransport(httpx2.HTTPTransport):
    def __init__(self, operator: bool, policy: Policy = MODELS) -> None:
        super().__init__(trust_env=False)
        self._operator, self._policy = operator, policy
        # The pool opens every connection through the guarded backend.
        self._pool._network_backend = _GuardedBackend(operator, policy)

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        if self._policy is not MODELS:  # the SDK's error type is for model calls only
            _refuse_url(request.url, self._operator, self._policy)
            return super().handle_request(request)
        with _refusals_the_sdk_passes_on():
            _refuse_url(request.url, self._operator)
            return super().handle_request(request)


class _AsyncGuardedTransport(httpx2.AsyncHTTPTransport):
    def __init__(self, operator: bool) -> None:
        super().__init__(trust_env=False)
        self._operator = operator
        self._pool._network_backend = _AsyncGuardedBackend(operator)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        with _refusals_the_sdk_passes_on():
            _refuse_url(request.url, self._operator)
            return await super().handle_async_request(request)


def http_client(
    *, operator: bool, timeout: float, policy: Policy = MODELS, follow_redirects: bool = True
) -> httpx2.Client:
    """A blocking HTTP client whose every connection is checked under `policy` (proxy
    variables are not used: a proxy would connect for us, unchecked)."""
    return httpx2.Client(
        transport=_GuardedTransport(operator, policy),
        timeout=timeout,
        follow_redirects=follow_redirects,
        trust_env=False,
    )


def openai_client(
    base_url: str, api_key: str, *, operator: bool, timeout: float, max_retries: int
) -> openai.OpenAI:
    """The blocking OpenAI SDK client for `base_url`, every connection checked."""
    import openai  # loaded with the first model call (it is slow to import)

    return openai.OpenAI(
        api_key=api_key or "not-needed",
        base_url=base_url,
        timeout=timeout,
        max_retries=max_retries,
        http_client=http_client(operator=operator, timeout=timeout),
    )


def async_openai_client(
    base_url: str, api_key: str, *, operator: bool, timeout: float, max_retries: int
) -> openai.AsyncOpenAI:
    """The asyncio OpenAI SDK client for `base_url`, every connection checked."""
    import openai  # loaded with the first model call (it is slow to import)

    client = httpx2.AsyncClient(
        transport=_AsyncGuardedTransport(operator), timeout=timeout, follow_redirects=True, trust_env=False
    )
    return openai.AsyncOpenAI(
        api_key=api_key or "not-needed",
        base_url=base_url,
        timeout=timeout,
        max_retries=max_retries,
        http_client=client,
    )
