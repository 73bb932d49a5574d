"""Recorded answers of a strong model to the tool's exact LLM requests, replayed by a local
OpenAI-compatible server (the fake one), so that the LLM path is measured and tested without a
hosted model.

A request is known by the digest of its messages (role and content, as sent: redacted). The store
is JSONL files in one folder: `requests.jsonl` (`key`, `session`, `messages`, `schema`: what a
reader must answer, written when a request has no answer yet) and `answers*.jsonl` (`key`,
`answer`: the JSON object the model returned). A request without an answer is recorded and
answered with an HTTP 500, so the tool falls back as it would on a failure; a later run, once it
is answered, gets the answer. The figures this gives are an upper bound: a strong reader answered
each request from the request alone.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, Reply


def request_key(messages: list[dict[str, Any]]) -> str:
    canonical = json.dumps([[m.get("role"), m.get("content")] for m in messages], ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:24]


class ReplayOpenAI(FakeOpenAI):
    """Answers chat completions from a store of recorded answers; records what it cannot answer."""

    def __init__(self, store: Path, session: str = "") -> None:
        super().__init__()
        self.store = store
        self.session = session  # written beside a new request, for the reader's orientation
        self.answers = load_answers(store)
        self.missing: list[str] = []
        self.answered = 0
        self._known_requests = {row["key"] for row in _rows(store / "requests.jsonl")}
        self._write_lock = threading.Lock()

    def _next_reply(self) -> Reply:  # the store's answer, queued by `_answer` just before
        with self._lock:
            return self._replies.popleft() if self._replies else Reply(content="{}", status=500)

    def _answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, dict[str, str]]:
        if not path.endswith("/chat/completions"):
            return super()._answer(path, body)
        messages = body.get("messages") or []
        key = request_key(messages)
        answer = self.answers.get(key)
        if answer is None:
            self._record(key, messages, body.get("response_format"))
            error = {"error": {"message": f"no recorded answer for request {key}", "type": "replay"}}
            return 500, json.dumps(error), {}
        self.answered += 1
        with self._lock:
            self._replies.appendleft(Reply(content=json.dumps(answer)))
        return super()._answer(path, body)

    def _record(self, key: str, messages: list[dict[str, Any]], schema: Any) -> None:
        with self._write_lock:
            self.missing.append(key)
            if key in self._known_requests:
                return
            self._known_requests.add(key)
            self.store.mkdir(parents=True, exist_ok=True)
            row = {"key": key, "session": self.session, "messages": messages, "schema": schema}
            with (self.store / "requests.jsonl").open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def load_answers(store: Path) -> dict[str, Any]:
    """Every recorded answer (`answers*.jsonl`: several readers may answer in files of their own)."""
    return {row["key"]: row["answer"] for path in sorted(store.glob("answers*.jsonl")) for row in _rows(path)}


def _rows(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
