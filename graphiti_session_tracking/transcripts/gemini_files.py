"""The two containers of a Gemini CLI chat, folded as the CLI loads them into its message records
and metadata: until v0.38 one JSON document rewritten whole on every change; from v0.39 an
append-only JSONL (a metadata line, message records, `{"$set": …}` updates or checkpoints,
`{"$rewindTo": id}`) where a message is appended again each time it changes. The last record of an
id wins, in the place of the first; a rewind drops that message and the ones after; a checkpoint
replaces the list; so nothing counts twice. Reading the records is gemini.py's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .fields import text_field as _str
from .model import Problem, Session
from .reader import _decode, _lines
from .spill import loads_json

__all__ = ["Records", "fold_chat", "is_gemini_chat"]

_SNIFF_BYTES = 64 * 1024
# The CLI writes a document with `sessionId` first and `projectHash` or `messages` soon after.
_DOCUMENT_HEAD = re.compile(
    r'\A\{\s*"sessionId"\s*:\s*"[^"]*"\s*,\s*"(?:projectHash|startTime|messages)"\s*:'
)

Records = list[tuple[int, dict[str, Any]]]  # (line, message record), in conversation order


def is_gemini_chat(path: Path) -> bool:
    """Whether `path` is a Gemini CLI chat: a JSONL whose first line is the session's metadata
    (`sessionId` with `projectHash`/`startTime`, no message `type`), or a JSON document starting
    so. Claude Code and Codex lines carry a `type`; this project's summaries spell `session_id`."""
    try:
        with path.open("rb") as handle:
            head = handle.read(_SNIFF_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
        try:
            found = json.loads(head.split("\n", 1)[0])
        except ValueError:  # a pretty-printed document (or a first line longer than the sniff)
            return _DOCUMENT_HEAD.match(head) is not None
        return (
            isinstance(found, dict)
            and isinstance(found.get("sessionId"), str)
            and any(key in found for key in ("projectHash", "startTime", "messages"))
            and "type" not in found
        )
    except (OSError, RecursionError):
        return False


def _is_document(path: Path) -> bool:
    """An old single JSON document: a `.json` file whose first line is not a whole JSON object (one
    written on a single line is read as JSONL, its metadata line carrying the messages)."""
    if path.suffix == ".jsonl":
        return False
    with path.open("rb") as handle:
        for raw in handle:
            if raw.strip():
                try:
                    return not isinstance(loads_json(raw.decode("utf-8", errors="replace")), dict)
                except ValueError:
                    return True
    return False


def _fold_jsonl(path: Path, session: Session) -> tuple[Records, dict[str, Any]]:
    """The messages left once every line is applied as the CLI's loader applies it."""
    meta: dict[str, Any] = {}
    messages: dict[str, tuple[int, dict[str, Any]]] = {}  # id -> its last record, in first place
    counts = session.record_counts
    for line_no, offset_after, raw in _lines(path, 0, session):
        session.end_offset, session.lines_read = offset_after, session.lines_read + 1
        record = _decode(raw, session.source_file, line_no, session)
        if record is None:
            continue
        if isinstance(record.get("$rewindTo"), str):
            name, ids, target = "$rewindTo", list(messages), record["$rewindTo"]
            for dropped in ids[ids.index(target) :] if target in messages else ids:  # as the CLI: all
                del messages[dropped]
        elif isinstance(record.get("id"), str):
            name = f"message:{_str(record, 'type') or '<missing>'}"
            messages[record["id"]] = (line_no, record)
        elif isinstance(record.get("$set"), dict):
            update = record["$set"]
            name = "$set:messages" if isinstance(update.get("messages"), list) else "$set"
            if name == "$set:messages":
                messages.clear()
            _add_messages(update.get("messages"), line_no, messages)
            meta.update({k: v for k, v in update.items() if k != "messages"})
        elif isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str):
            name = "metadata"
            meta.update({k: v for k, v in record.items() if k != "messages"})
            _add_messages(record.get("messages"), line_no, messages)  # a whole record on one line
        else:
            name = "<unknown>"
        counts[name] = counts.get(name, 0) + 1
    return list(messages.values()), meta


def _add_messages(items: Any, line_no: int, messages: dict[str, tuple[int, dict[str, Any]]]) -> None:
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            messages[item["id"]] = (line_no, item)


def _fold_document(path: Path, session: Session) -> tuple[Records, dict[str, Any]]:
    """The messages of an old JSON document, each with the line its object starts on (found by its
    id, which the CLI writes first). A document that does not parse (a rewrite in progress, a cut
    copy) is one Problem and no messages: the next read sees it whole."""
    data = path.read_bytes()
    source, text = session.source_file, data.decode("utf-8", errors="replace").lstrip("\ufeff")
    try:
        document = loads_json(text)
        if not isinstance(document, dict):
            raise ValueError("expected a JSON object")
    except ValueError as exc:
        bad = exc if isinstance(exc, json.JSONDecodeError) else None
        detail = f"invalid JSON: {bad.msg} (line {bad.lineno}, column {bad.colno})" if bad else str(exc)
        session.problems.append(
            Problem(source, bad.lineno if bad else 1, f"{detail}; the session is not read")
        )
        return [], {}
    session.record_counts["metadata"] = 1
    session.end_offset = len(data)
    session.lines_read = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    items = document.get("messages")
    if not isinstance(items, list):
        session.problems.append(Problem(source, 1, "messages: expected a list"))
        items = []
    records: Records = []
    line, position = 1, 0
    for index, item in enumerate(items):
        ident = item.get("id") if isinstance(item, dict) else None
        found = text.find(json.dumps(ident, ensure_ascii=False), position) if isinstance(ident, str) else -1
        if found >= 0:
            start = max(text.rfind("{", position, found), position)
            line, position = line + text.count("\n", position, start), start
        if not isinstance(item, dict):
            session.problems.append(Problem(source, line, f"messages[{index}]: expected an object"))
            continue
        name = f"message:{_str(item, 'type') or '<missing>'}"
        session.record_counts[name] = session.record_counts.get(name, 0) + 1
        records.append((line, item))
    return records, {key: value for key, value in document.items() if key != "messages"}


def fold_chat(path: Path, session: Session) -> tuple[Records, dict[str, Any]]:
    """(message records with their lines, the metadata) of the chat at `path`; bad content becomes
    Problems on `session` naming file and line."""
    return _fold_document(path, session) if _is_document(path) else _fold_jsonl(path, session)
