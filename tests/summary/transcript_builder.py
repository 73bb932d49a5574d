"""Build small Claude Code transcripts (JSONL) for extractor tests, in the shape Claude Code writes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from graphiti_session_tracking.transcripts import Session, read_transcript


class TranscriptBuilder:
    """Append user turns, assistant turns with tool calls, and tool results; then `read(tmp_path)`.

    Tool call ids are returned by `tool` so a test can answer them with `result`.
    """

    def __init__(self, cwd: str = "/p", session_id: str = "s") -> None:
        self.cwd = cwd
        self.session_id = session_id
        self.records: list[dict[str, Any]] = []
        self._clock = datetime(2026, 1, 1, 10, 0, tzinfo=UTC)
        self._ids = 0

    def _next(self, prefix: str) -> str:
        self._ids += 1
        return f"{prefix}{self._ids}"

    def _record(self, kind: str, message: dict[str, Any], **extra: Any) -> None:
        self._clock += timedelta(seconds=10)
        self.records.append(
            {
                "type": kind,
                "uuid": self._next("u"),
                "sessionId": self.session_id,
                "cwd": self.cwd,
                "timestamp": self._clock.isoformat().replace("+00:00", "Z"),
                "message": message,
                **extra,
            }
        )

    def user(self, text: str) -> TranscriptBuilder:
        self._record("user", {"role": "user", "content": text})
        return self

    def say(self, text: str) -> TranscriptBuilder:
        """An assistant turn with text only."""
        self._record(
            "assistant",
            {"id": self._next("m"), "role": "assistant", "content": [{"type": "text", "text": text}]},
        )
        return self

    def think(self, thought: str, text: str = "") -> TranscriptBuilder:
        """An assistant message with an extended-thinking block (and text, when given)."""
        content: list[dict[str, Any]] = [{"type": "thinking", "thinking": thought, "signature": "x"}]
        if text:
            content.append({"type": "text", "text": text})
        self._record("assistant", {"id": self._next("m"), "role": "assistant", "content": content})
        return self

    def tool(self, name: str, tool_input: dict[str, Any], text: str = "") -> str:
        """An assistant turn calling one tool (after optional text); returns the call's id."""
        call_id = self._next("t")
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        content.append({"type": "tool_use", "id": call_id, "name": name, "input": tool_input})
        self._record("assistant", {"id": self._next("m"), "role": "assistant", "content": content})
        return call_id

    def result(
        self, call_id: str, content: str, is_error: bool = False, structured: dict[str, Any] | None = None
    ) -> TranscriptBuilder:
        block = {"type": "tool_result", "tool_use_id": call_id, "is_error": is_error, "content": content}
        extra = {"toolUseResult": structured} if structured is not None else {}
        self._record("user", {"role": "user", "content": [block]}, **extra)
        return self

    def call(
        self,
        name: str,
        tool_input: dict[str, Any],
        output: str = "",
        *,
        is_error: bool = False,
        text: str = "",
        structured: dict[str, Any] | None = None,
    ) -> str:
        """A tool call and its result in one step; returns the call's id."""
        call_id = self.tool(name, tool_input, text)
        self.result(call_id, output, is_error, structured)
        return call_id

    def bash(self, command: str, output: str = "", *, is_error: bool = False, text: str = "") -> str:
        return self.call("Bash", {"command": command}, output, is_error=is_error, text=text)

    def edit(self, path: str, old: str, new: str, *, original: str | None = None, text: str = "") -> str:
        """A successful Edit; `original` is the whole file before it (Claude Code's originalFile)."""
        full = path if path.startswith("/") else f"{self.cwd}/{path}"
        structured = None
        if original is not None:
            structured = {"filePath": full, "oldString": old, "newString": new, "originalFile": original}
        return self.call(
            "Edit",
            {"file_path": full, "old_string": old, "new_string": new},
            f"The file {full} has been updated.",
            text=text,
            structured=structured,
        )

    def write(self, path: str, content: str, *, original: str | None = None, text: str = "") -> str:
        """A successful Write: a new file unless `original` (the old content) is given."""
        full = path if path.startswith("/") else f"{self.cwd}/{path}"
        structured = {
            "type": "update" if original is not None else "create",
            "filePath": full,
            "content": content,
            "originalFile": original,
        }
        output = (
            f"File created successfully at: {full}"
            if original is None
            else f"The file {full} has been updated."
        )
        return self.call(
            "Write", {"file_path": full, "content": content}, output, text=text, structured=structured
        )

    def read(self, folder: Path, name: str = "session.jsonl") -> Session:
        """Write the JSONL to `folder/name` and parse it with the real reader."""
        path = folder / name
        path.write_text("\n".join(json.dumps(r) for r in self.records) + "\n", encoding="utf-8")
        return read_transcript(path)
