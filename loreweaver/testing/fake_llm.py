"""A real local HTTP server that speaks the OpenAI chat-completions and images APIs,
scripted per test.

The server under test reaches it through the production client (the `openai` SDK over
a real socket): streamed replies are server-sent events with text and tool-call
deltas; a reply can stop half-way and drop the connection, or wait for the test
before going on. An image request is answered with a real PNG, inline (`b64_json`)
or as a link the server also serves. Every request body is kept, so a test can read
the prompts.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import queue
import re
import struct
import threading
import zlib
from dataclasses import dataclass, field

from loreweaver.testing.local_http import JsonHandler, LocalServer, QuietServer


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Tool:
    name: str
    arguments: dict


@dataclass(frozen=True)
class Usage:
    prompt: int
    completion: int
    cached: int = 0


@dataclass(frozen=True)
class Drop:
    """Cut the connection here, mid-reply."""


@dataclass(frozen=True)
class Wait:
    """Hold the reply here until the test sets the event."""

    event: threading.Event


@dataclass(frozen=True)
class Status:
    """Answer the request with this HTTP error instead of a reply (as a provider that
    refuses a key, or has no such model, does)."""

    code: int
    message: str = "refused"


Part = Text | Tool | Usage | Drop | Wait | Status


@dataclass
class FakeLlm(LocalServer):
    """The scripted provider. `replies` are streamed completions, in order; `lines`
    answer unstreamed completions (NPC voices)."""

    replies: queue.Queue = field(default_factory=queue.Queue)
    lines: queue.Queue = field(default_factory=queue.Queue)
    requests: list[dict] = field(default_factory=list)
    models: list[str] = field(default_factory=lambda: ["scripted-keeper"])
    # What an images request gets: a PNG inline, a link to it, or an error status.
    image_answer: str = "b64_json"  # b64_json | url | 500
    picture: bytes = field(default_factory=lambda: png(8, 8, (180, 40, 40)))
    server: QuietServer | None = None
    # Streamed when no scripted reply is queued (a long run answers every turn alike);
    # None: wait for one to be scripted.
    standing_reply: list[Part] | None = None
    # Answered at once to an unstreamed request when no line is queued (a summary, a
    # long run's NPC); None: wait for one to be queued.
    standing_line: str | None = None
    # What `/embeddings` treats as the same word (a test's stand-in for meaning).
    synonyms: dict[str, str] = field(default_factory=dict)
    # Keep every request body (tests read prompts); a long run turns it off.
    keep_requests: bool = True

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *parts: Part) -> None:
        """Queue one streamed reply."""
        self.replies.put(list(parts))

    def say(self, line: str) -> None:
        """Queue one unstreamed answer."""
        self.lines.put(line)

    def start(self) -> FakeLlm:
        fake = self

        class Handler(JsonHandler):
            def do_GET(self) -> None:
                if self.path == "/files/picture.png":
                    self.send_response(200)
                    self.send_header("Content-Type", "image/png")
                    self.send_header("Content-Length", str(len(fake.picture)))
                    self.end_headers()
                    self.wfile.write(fake.picture)
                elif self.path.rstrip("/").endswith("/models"):
                    fake.requests.append(
                        {"path": self.path, "authorization": self.headers.get("Authorization")}
                    )
                    body = {"object": "list", "data": [{"id": m, "object": "model"} for m in fake.models]}
                    self._json(200, body)
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                request = json.loads(self._body() or b"{}")
                request["authorization"] = self.headers.get("Authorization")
                if fake.keep_requests:
                    fake.requests.append(request)
                if self.path.endswith("/images/generations"):
                    self._image()
                    return
                if self.path.endswith("/embeddings"):
                    inputs = request["input"] if isinstance(request["input"], list) else [request["input"]]
                    data = [
                        {"object": "embedding", "index": i, "embedding": embedding(text, fake.synonyms)}
                        for i, text in enumerate(inputs)
                    ]
                    self._json(200, {"object": "list", "data": data, "model": request.get("model", "")})
                    return
                if not request.get("stream"):
                    try:
                        if fake.standing_line is not None:
                            line = fake.lines.get_nowait()
                        else:
                            line = fake.lines.get(timeout=30)
                    except queue.Empty:
                        line = fake.standing_line or "..."
                    self._json(200, _completion(line))
                    return
                try:
                    if fake.standing_reply is not None:
                        parts = fake.replies.get_nowait()
                    else:
                        parts = fake.replies.get(timeout=30)
                except queue.Empty:
                    parts = fake.standing_reply or [Text("(the script has no reply left)")]
                self._stream(parts)

            def _image(self) -> None:
                if fake.image_answer == "500":
                    self._json(500, {"error": {"message": "the painter is out"}})
                    return
                if fake.image_answer == "url":
                    item = {"url": f"http://127.0.0.1:{fake.port}/files/picture.png"}
                else:
                    item = {"b64_json": base64.b64encode(fake.picture).decode()}
                self._json(200, {"created": 0, "data": [item]})

            def _event(self, payload: dict | str) -> None:
                data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
                self._chunk(f"data: {data}\n\n")

            def _stream(self, parts: list[Part]) -> None:
                if parts and isinstance(parts[0], Status):
                    self._json(parts[0].code, {"error": {"message": parts[0].message, "type": "error"}})
                    return
                self._start_events()
                tool_index = 0
                finish = "stop"
                for part in parts:
                    if isinstance(part, Text):
                        self._event(_chunk({"content": part.text}))
                    elif isinstance(part, Tool):
                        call = {
                            "index": tool_index,
                            "id": f"call_{len(fake.requests)}_{tool_index}",
                            "type": "function",
                            "function": {"name": part.name, "arguments": ""},
                        }
                        self._event(_chunk({"tool_calls": [call]}))
                        # The arguments arrive in two pieces, as real providers send them.
                        arguments = json.dumps(part.arguments, ensure_ascii=False)
                        half = len(arguments) // 2
                        for piece in (arguments[:half], arguments[half:]):
                            self._event(
                                _chunk(
                                    {"tool_calls": [{"index": tool_index, "function": {"arguments": piece}}]}
                                )
                            )
                        tool_index += 1
                        finish = "tool_calls"
                    elif isinstance(part, Usage):
                        self._event(
                            {
                                "id": "chatcmpl-fake",
                                "object": "chat.completion.chunk",
                                "created": 0,
                                "model": "scripted-keeper",
                                "choices": [],
                                "usage": {
                                    "prompt_tokens": part.prompt,
                                    "completion_tokens": part.completion,
                                    "total_tokens": part.prompt + part.completion,
                                    "prompt_tokens_details": {"cached_tokens": part.cached},
                                },
                            }
                        )
                    elif isinstance(part, Wait):
                        part.event.wait(30)
                    elif isinstance(part, Drop):
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(2)
                        return
                self._event(_chunk({}, finish))
                self._event("[DONE]")
                self._end_events()

        self.serve(Handler)
        return self

    def chat_requests(self) -> list[dict]:
        """The chat-completion requests received so far."""
        return [r for r in self.requests if "messages" in r]

    def image_requests(self) -> list[dict]:
        """The image requests received so far."""
        return [r for r in self.requests if "prompt" in r]


_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "the",
        "of",
        "to",
        "in",
        "on",
        "at",
        "is",
        "it",
        "i",
        "my",
        "me",
        "we",
        "you",
        "he",
        "she",
        "they",
        "for",
        "with",
    ]
)


def embedding(text: str, synonyms: dict[str, str], size: int = 256) -> list[float]:
    """A deterministic stand-in for an embedding: the text's words (a synonym counts as
    the word it stands for) hashed into `size` buckets, normalized."""
    vector = [0.0] * size
    for word in re.findall(r"\w+", text.lower()):
        if word not in _STOP_WORDS:
            word = synonyms.get(word, word)
            vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % size] += 1.0
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A real PNG file of one colour (what an image endpoint would draw)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


def _chunk(delta: dict, finish: str | None = None) -> dict:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "scripted-keeper",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _completion(text: str) -> dict:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted-keeper",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }
