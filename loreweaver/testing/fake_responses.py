"""A real local HTTP server that speaks the Responses API, streamed, as the ChatGPT
subscription backend does (`POST …/responses`, server-sent events), scripted per
test with `fake_llm`'s parts: `Text` streams `response.output_text.delta` events,
`Tool` a `function_call` output item, `Status` answers an HTTP error instead.

The server under test reaches it through the production client (the `openai` SDK)
when `TRPG_LLM__CHATGPT_API_URL` is `url`. Every request body is kept with the
headers the subscription needs, so a test can read them.
"""

from __future__ import annotations

import json
import queue
from dataclasses import dataclass, field

from loreweaver.testing.fake_llm import Part, Status, Text, Tool
from loreweaver.testing.local_http import JsonHandler, LocalServer, QuietServer


@dataclass
class FakeResponses(LocalServer):
    """The scripted Responses backend."""

    replies: queue.Queue = field(default_factory=queue.Queue)
    requests: list[dict] = field(default_factory=list)
    server: QuietServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.port}/backend-api/codex"

    def script(self, *parts: Part) -> None:
        """Queue one streamed response."""
        self.replies.put(list(parts))

    def start(self) -> FakeResponses:
        fake = self

        class Handler(JsonHandler):
            def do_POST(self) -> None:
                request = json.loads(self._body() or b"{}")
                request["authorization"] = self.headers.get("Authorization")
                request["account"] = self.headers.get("ChatGPT-Account-Id")
                request["originator"] = self.headers.get("originator")
                request["path"] = self.path
                fake.requests.append(request)
                if not self.path.endswith("/responses"):
                    self._json(404, {"error": {"message": "not found"}})
                    return
                try:
                    parts = fake.replies.get(timeout=30)
                except queue.Empty:
                    parts = [Text("(the script has no reply left)")]
                if parts and isinstance(parts[0], Status):
                    code = "usage_limit_reached" if parts[0].code == 429 else "error"
                    self._json(parts[0].code, {"error": {"message": parts[0].message, "type": code}})
                    return
                self._stream(parts)

            def _event(self, payload: dict) -> None:
                data = json.dumps(payload, ensure_ascii=False)
                self._chunk(f"event: {payload['type']}\ndata: {data}\n\n")

            def _stream(self, parts: list[Part]) -> None:
                self._start_events()
                response = {"id": "resp_fake", "object": "response", "status": "in_progress", "output": []}
                self._event({"type": "response.created", "sequence_number": 0, "response": response})
                for index, part in enumerate(parts):
                    if isinstance(part, Text):
                        self._event(
                            {
                                "type": "response.output_text.delta",
                                "sequence_number": index + 1,
                                "item_id": "msg_fake",
                                "output_index": 0,
                                "content_index": 0,
                                "delta": part.text,
                                "logprobs": [],
                            }
                        )
                    elif isinstance(part, Tool):
                        item = {
                            "type": "function_call",
                            "id": f"fc_{index}",
                            "call_id": f"call_{len(fake.requests)}_{index}",
                            "name": part.name,
                            "arguments": json.dumps(part.arguments, ensure_ascii=False),
                            "status": "completed",
                        }
                        self._event(
                            {
                                "type": "response.output_item.done",
                                "sequence_number": index + 1,
                                "output_index": index,
                                "item": item,
                            }
                        )
                usage = {
                    "input_tokens": 12,
                    "input_tokens_details": {"cached_tokens": 2},
                    "output_tokens": 7,
                    "output_tokens_details": {"reasoning_tokens": 0},
                    "total_tokens": 19,
                }
                done = {**response, "status": "completed", "usage": usage}
                self._event(
                    {"type": "response.completed", "sequence_number": len(parts) + 1, "response": done}
                )
                self._end_events()

        self.serve(Handler)
        return self
