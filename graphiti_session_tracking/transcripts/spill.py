"""Long tool texts stay in the transcript: a session holds where they are, and reads them on demand.

A long session's memory would otherwise grow with everything its tools printed and touched (whole
files in `toolUseResult.originalFile`, test logs, Write contents). Claude Code transcripts are
append-only, so the file itself is the store: a `Spill` names the line (byte offset, length, CRC)
and the content block, and the text is decoded again when an extractor asks for it. Only a few
extractors do (the last test run, a failure's output, a config file's edit), so a session of
50,000 calls keeps a few hundred bytes per call.

If the line is no longer what was read (the file was rewritten since), `TranscriptChangedError`
says so, naming the file and line, rather than handing back other text.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

# Tool results keep their head and tail (a test run's totals are at the end).
TEXT_LIMIT = 8_000
# Bash commands are read whole by the classifier and the extractors on every call: kept up to here.
INPUT_TEXT_LIMIT = 4_000
# Any other string of a tool input is held in memory up to here; the rest is read on demand.
INPUT_PREVIEW_LIMIT = 500
# Results whose kept text is longer than this are read on demand too.
RESULT_INLINE_LIMIT = 500
# The file a tool works on (a File node's key) is never cut; a real path is far shorter than this
# (PATH_MAX is 4096), and one longer than it is read whole from the transcript (`written_file`).
PATH_KEYS = frozenset({"file_path", "notebook_path", "path"})
PATH_LIMIT = 8_192
_MAX_ITEMS = 200  # list items kept in a preview
_MAX_DEPTH = 20  # nesting kept in a preview (deeper input is read on demand)
_SHARED_LENGTH = 200  # strings up to this long are shared between calls (paths, statuses)


class TranscriptChangedError(ValueError):
    """A spilled text's line is no longer in the transcript as it was read."""


@dataclass(frozen=True, slots=True)
class Spill:
    """Where a tool call's or result's full content is: one line of a transcript, one block of it."""

    path: str  # absolute, so a session kept in the ledger still finds it from another directory
    offset: int
    length: int
    crc: int
    line: int
    block: int


def head_and_tail(text: str) -> str:
    """The first quarter and the last three quarters of TEXT_LIMIT, with what was cut in between;
    of that, the lines that read as a failure are kept (up to MIDDLE_LIMIT): a CI log's `not ok
    100 …` or a verbose run's `--- FAIL: TestX` is often in neither the head nor the tail."""
    if len(text) <= TEXT_LIMIT:
        return text
    head, tail = TEXT_LIMIT // 4, TEXT_LIMIT - TEXT_LIMIT // 4
    cut = len(text) - TEXT_LIMIT
    middle_end = len(text) - tail
    windows = [(head, middle_end)]
    if middle_end - head > 2 * _SCANNED:  # a huge output: what lies nearest the head and the tail
        windows = [(head, head + _SCANNED), (middle_end - _SCANNED, middle_end)]
    kept = "\n".join(filter(None, (_failing_lines(text, start, end) for start, end in windows)))[
        :MIDDLE_LIMIT
    ]
    if not kept:
        return f"{text[:head]}\n…[{cut} characters cut]…\n{text[-tail:]}"
    return f"{text[:head]}\n…[{cut} characters cut; the lines among them that read as failures:]…\n{kept}\n…\n{text[-tail:]}"


# Kept of a cut middle: each line that reads as a failure and the lines after it (what it logged).
MIDDLE_LIMIT = 2_000
_FAILING = re.compile(r"not ok |FAIL|[Ee]rror|ERROR|Traceback|panicked|[Ff]ailed|✗|✘|×")
_LINES_AFTER = 2
_SCANNED = 256_000  # of a huge middle, read after the head and before the tail (a scan reads ~30 MB/s)
_LINE_LIMIT = 300


def _failing_lines(text: str, start: int, end: int) -> str:
    """The failing lines between `start` and `end` (whole lines inside them), about MIDDLE_LIMIT
    of them (the caller cuts)."""
    kept: list[str] = []
    size, at = 0, start
    while size < MIDDLE_LIMIT:
        found = _FAILING.search(text, at, end)
        if found is None:
            break
        line_start = text.rfind("\n", start, found.start()) + 1 or start
        line_end = text.find("\n", found.end(), end) + 1
        if line_start <= start or not line_end:
            at = line_end or end  # a line the head or the tail holds part of: not twice
            continue
        for _ in range(_LINES_AFTER):  # what it logged, as far as the middle goes
            next_end = text.find("\n", line_end, end)
            if next_end < 0:
                break
            line_end = next_end + 1
        lines = [
            line if len(line) <= _LINE_LIMIT else line[:_LINE_LIMIT] + "…"
            for line in text[line_start:line_end].splitlines()
        ]
        block = "\n".join(lines)
        kept.append(block)
        size += len(block) + 1
        at = line_end
    return "\n".join(kept)


def block_text(content: Any) -> str:
    """Text of a tool_result's content: a string, or a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text", "") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        return "\n".join(parts)
    return ""


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"…[{len(text) - limit} more]"


def _same(text: str) -> str:
    return text


def preview_input(value: dict[str, Any], share: Callable[[str], str] = _same) -> tuple[dict[str, Any], bool]:
    """(the input with long strings, long lists and deep nesting cut, whether anything was cut).

    The `command` of a call keeps INPUT_TEXT_LIMIT characters, a path (PATH_KEYS) PATH_LIMIT, every
    other string INPUT_PREVIEW_LIMIT, each cut string ending in `…[N more]`. `share` maps keys and short
    strings to one copy each (the same path or status in every call).
    """
    cut = False

    def walk(item: Any, depth: int, limit: int) -> Any:
        nonlocal cut
        if isinstance(item, str):
            if len(item) > limit:
                cut = True
                return _cut(item, limit)
            return share(item) if len(item) <= _SHARED_LENGTH else item
        if isinstance(item, dict | list) and depth >= _MAX_DEPTH:
            cut = True
            return "…[nested too deep]"
        if isinstance(item, dict):
            return {share(k): walk(v, depth + 1, INPUT_PREVIEW_LIMIT) for k, v in item.items()}
        if isinstance(item, list):
            if len(item) > _MAX_ITEMS:
                cut = True
                return [walk(v, depth + 1, INPUT_PREVIEW_LIMIT) for v in item[:_MAX_ITEMS]] + [
                    f"…[{len(item) - _MAX_ITEMS} more items]"
                ]
            return [walk(v, depth + 1, INPUT_PREVIEW_LIMIT) for v in item]
        return item

    def limit(key: str) -> int:
        return (
            INPUT_TEXT_LIMIT if key == "command" else PATH_LIMIT if key in PATH_KEYS else INPUT_PREVIEW_LIMIT
        )

    preview = {share(k): walk(v, 1, limit(k)) for k, v in value.items()}
    return preview, cut


def decode_record(raw: bytes) -> Any:
    """A line as the reader decodes it: invalid UTF-8 replaced, then JSON (ValueError if not JSON)."""
    return loads_json(raw.strip().decode("utf-8", errors="replace"))


def loads_json(text: str) -> Any:
    """json.loads, with nesting too deep for the stack reported as a ValueError like any bad JSON."""
    try:
        return json.loads(text)
    except RecursionError as exc:  # nesting deeper than Python's stack: not a usable record
        raise ValueError("JSON nested too deeply") from exc


def _record(spill: Spill) -> dict[str, Any]:
    problem = "the transcript changed after it was read; read it again from the start"
    try:
        with open(spill.path, "rb") as handle:
            handle.seek(spill.offset)
            raw = handle.read(spill.length)
    except OSError as exc:
        raise TranscriptChangedError(f"{spill.path}:{spill.line}: {problem} ({exc})") from exc
    if len(raw) != spill.length or zlib.crc32(raw) != spill.crc:
        raise TranscriptChangedError(f"{spill.path}:{spill.line}: {problem}")
    record = decode_record(raw)  # the same bytes decoded before: a dict
    assert isinstance(record, dict)
    return record


def _block(spill: Spill, record: dict[str, Any]) -> dict[str, Any]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    block = content[spill.block] if isinstance(content, list) and spill.block < len(content) else None
    if not isinstance(block, dict):
        raise TranscriptChangedError(f"{spill.path}:{spill.line}: no content block {spill.block}")
    return block


# Small caches: the errors and activity extractors read the same result a few times in a row.
@lru_cache(maxsize=256)
def result_text(spill: Spill) -> str:
    """The result text as the reader keeps it: head and tail of the tool_result block's text."""
    return head_and_tail(block_text(_block(spill, _record(spill)).get("content")))


@lru_cache(maxsize=4)
def result_structured(spill: Spill) -> dict[str, Any] | None:
    """The record's `toolUseResult` (whole file contents, stdout, ...), when it is an object."""
    structured = _record(spill).get("toolUseResult")
    return structured if isinstance(structured, dict) else None


@lru_cache(maxsize=16)
def call_input(spill: Spill) -> dict[str, Any]:
    """The tool_use block's whole `input`."""
    value = _block(spill, _record(spill)).get("input")
    return value if isinstance(value, dict) else {}
