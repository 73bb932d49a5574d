"""A local fake OpenAI-compatible server: a real HTTP server on 127.0.0.1 with scripted replies.

LLM code is tested through the real openai client and Graphiti's LLMClient against this server.
It answers chat completions, responses and embeddings, records every request, and can be told to
fail (status codes, garbage, delays) to test retries and fallbacks.

    with FakeOpenAI() as fake:
        fake.reply_json({"objective": "..."})       # next chat/responses reply
        client = OpenAIGenericClient(LLMConfig(base_url=fake.base_url, api_key="test"))
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass
class Reply:
    """One scripted answer: text content, or an HTTP error, optionally after a delay."""

    content: str = ""
    status: int = 200
    delay_s: float = 0.0
    raw_body: str | None = None  # sent as is (for malformed answers)
    retry_after: str | None = None  # Retry-After header of an error reply


@dataclass
class RecordedRequest:
    path: str
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    received_at: float = field(default_factory=time.monotonic)


class FakeOpenAI:
    def __init__(self, embedding_dim: int = 16) -> None:
        self.embedding_dim = embedding_dim
        self.requests: list[RecordedRequest] = []
        self._replies: deque[Reply] = deque()
        self.default_reply = Reply(content="{}")
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # --- scripting -----------------------------------------------------------------------
    def reply_json(self, payload: Any) -> None:
        self.reply(json.dumps(payload))

    def reply(self, content: str, status: int = 200, delay_s: float = 0.0) -> None:
        with self._lock:
            self._replies.append(Reply(content=content, status=status, delay_s=delay_s))

    def reply_raw(self, body: str, status: int = 200) -> None:
        with self._lock:
            self._replies.append(Reply(raw_body=body, status=status))

    def fail(self, status: int, times: int = 1, retry_after: str | None = None) -> None:
        """`times` error answers; with `retry_after`, each carries that Retry-After header."""
        body = json.dumps({"error": {"message": f"scripted {status}", "type": "fake"}})
        with self._lock:
            for _ in range(times):
                self._replies.append(Reply(content=body, status=status, retry_after=retry_after))

    def calls(self, path_suffix: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith(path_suffix)]

    # --- lifecycle -----------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # --- answering -----------------------------------------------------------------------
    def _next_reply(self) -> Reply:
        with self._lock:
            return self._replies.popleft() if self._replies else self.default_reply

    def _embedding(self, text: str) -> list[float]:
        # Deterministic, so equal texts embed equally and tests can compare.
        digest = hashlib.sha256(text.encode("utf-8")).digest()
        return [(digest[i % len(digest)] - 128) / 128.0 for i in range(self.embedding_dim)]

    def _answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, dict[str, str]]:
        if path.endswith("/embeddings"):
            inputs = body.get("input")
            texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
            data = [
                {"object": "embedding", "index": i, "embedding": self._embedding(str(t))}
                for i, t in enumerate(texts)
            ]
            return (
                200,
                json.dumps(
                    {
                        "object": "list",
                        "data": data,
                        "model": body.get("model", "fake"),
                        "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
                    }
                ),
                {},
            )
        reply = self._next_reply()
        if reply.delay_s:
            time.sleep(reply.delay_s)
        headers = {"Retry-After": reply.retry_after} if reply.retry_after is not None else {}
        if reply.raw_body is not None:
            return reply.status, reply.raw_body, headers
        if reply.status != 200:
            return reply.status, reply.content, headers
        created = int(time.time())
        usage_in, usage_out = len(json.dumps(body)) // 4, max(1, len(reply.content) // 4)
        if path.endswith("/responses"):
            return (
                200,
                json.dumps(
                    {
                        "id": f"resp_{len(self.requests)}",
                        "object": "response",
                        "created_at": created,
                        "model": body.get("model", "fake"),
                        "status": "completed",
                        "output": [
                            {
                                "type": "message",
                                "id": f"msg_{len(self.requests)}",
                                "role": "assistant",
                                "status": "completed",
                                "content": [
                                    {"type": "output_text", "text": reply.content, "annotations": []}
                                ],
                            }
                        ],
                        "parallel_tool_calls": False,
                        "tool_choice": "auto",
                        "tools": [],
                        "usage": {
                            "input_tokens": usage_in,
                            "output_tokens": usage_out,
                            "total_tokens": usage_in + usage_out,
                            "input_tokens_details": {"cached_tokens": 0},
                            "output_tokens_details": {"reasoning_tokens": 0},
                        },
                    }
                ),
                {},
            )
        return (
            200,
            json.dumps(
                {
                    "id": f"chatcmpl_{len(self.requests)}",
                    "object": "chat.completion",
                    "created": created,
                    "model": body.get("model", "fake"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": reply.content},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {
                        "prompt_tokens": usage_in,
                        "completion_tokens": usage_out,
                        "total_tokens": usage_in + usage_out,
                    },
                }
            ),
            {},
        )

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_unparsed": raw.decode("utf-8", "replace")}
                with fake._lock:
                    fake.requests.append(
                        RecordedRequest(self.path, body, {k.lower(): v for k, v in self.headers.items()})
                    )
                status, payload, headers = fake._answer(self.path, body)
                data = payload.encode("utf-8")
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

        return Handler


def llm_config(base_url: str, cache: Path, *, model: str = "m", **llm: Any) -> dict[str, Any]:
    """A graphiti.config.json that summarizes with the LLM at `base_url` (a FakeOpenAI)."""
    return {
        "llm": {"default_model": model, "small_model": model, "openai": {"base_url": base_url}, **llm},
        "session_tracking": {
            "auto_summarize": True,
            "summarization": {"tool_classification_cache": str(cache)},
        },
    }
