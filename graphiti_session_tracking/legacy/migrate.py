"""Migrate legacy session summaries, from the graph or from files, into the session graph.

Reading never changes the old data: old episodes are found by a read-only query, and new records
get their own deterministic uuids (the writer only touches nodes and edges keyed by them), so the
old `(:Episodic)` nodes, their `(:Entity)` nodes and `MENTIONS` edges stay exactly as they were.
Every summary is redacted, then written through `SessionGraphWriter`: re-running changes nothing
(equal content hashes), and a record that cannot be read is reported with its episode uuid or
`file:line` and skipped while the rest still goes in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphiti_core.embedder.client import EmbedderClient
from pydantic import ValidationError

from graphiti_session_tracking.graph.backends import Backend
from graphiti_session_tracking.graph.mapping import LEGACY_PROVENANCE as _PROVENANCE
from graphiti_session_tracking.graph.schema import iso_time
from graphiti_session_tracking.graph.writer import SessionGraphWriter
from graphiti_session_tracking.group_id import GroupId
from graphiti_session_tracking.pipeline.reports import WriteReport
from graphiti_session_tracking.pipeline.sources import DEFAULT_TRANSCRIPTS_DIR
from graphiti_session_tracking.redact import Redactor
from graphiti_session_tracking.summary import EnhancedSessionSummary

from .convert import FILE_GROUP_ID, content_key, convert_record, sanitize_group_id
from .markdown import parse_markdown
from .schema import LegacyFormatError, LegacyRecord, SessionSummarySchema

__all__ = [
    "LEGACY_EPISODES_QUERY",
    "MigrationReport",
    "load_legacy_file",
    "migrate_legacy",
    "parse_json_records",
    "read_graph_records",
]

# The old episodes: source text, named `Session NNN: ...` or described as a handoff summary.
LEGACY_EPISODES_QUERY = (
    "MATCH (e:Episodic) WHERE e.source = $source "
    "AND (e.name STARTS WITH $name_prefix OR e.source_description STARTS WITH $description_prefix) "
    "RETURN e.uuid AS uuid, e.name AS name, e.group_id AS group_id, e.content AS content, "
    "e.source_description AS source_description, e.valid_at AS valid_at ORDER BY e.uuid"
)
_LEGACY_NAME = re.compile(r"^Session \d+:")
_DESCRIPTION_PREFIX = "Session handoff summary"
_FILE_SUFFIXES = (".json", ".jsonl", ".md", ".markdown")


@dataclass
class MigrationReport(WriteReport):
    """What a migration did, with `ingest`'s keys: `sources_seen` counts legacy records
    (episodes, JSON objects, markdown files); `skipped` also counts records superseded by a
    newer one of the same session."""

    dry_run: bool = False
    # Episodes the old MCP server's indexer wrote (filtered transcripts, not summaries): not
    # migrated, not failures; each names its session and whether its transcript is on disk.
    indexer_episodes: list[dict[str, Any]] = field(default_factory=list)


# --- files ------------------------------------------------------------------------------------


def parse_json_records(
    data: bytes, source: str, *, lines: bool
) -> tuple[list[LegacyRecord], list[LegacyFormatError]]:
    """Legacy records from JSON bytes: one object (`lines=False`, a .json file) or one per line
    (`lines=True`, JSONL). Every bad object is an error naming `source:line`; the rest are read."""
    records: list[LegacyRecord] = []
    errors: list[LegacyFormatError] = []
    if lines:
        for number, raw in enumerate(data.split(b"\n"), start=1):
            raw = raw.removesuffix(b"\r")
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            if not raw.strip():
                continue
            try:
                records.append(_json_record(raw, source, number))
            except LegacyFormatError as exc:
                errors.append(exc)
        return records, errors
    try:
        records.append(_json_record(data.removeprefix(b"\xef\xbb\xbf"), source, None))
    except LegacyFormatError as exc:
        errors.append(exc)
    return records, errors


def _json_record(raw: bytes, source: str, line: int | None) -> LegacyRecord:
    """One SessionSummarySchema object; `line` is None for a whole .json file."""
    base = line or 1
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LegacyFormatError(source, base + raw[: exc.start].count(b"\n"), "invalid UTF-8") from exc
    if not text.strip():
        raise LegacyFormatError(source, base, "empty file")
    first = base + text[: len(text) - len(text.lstrip())].count("\n")  # where the object starts
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LegacyFormatError(source, base + exc.lineno - 1, f"invalid JSON: {exc.msg}") from exc
    except (ValueError, RecursionError) as exc:  # too deeply nested, or an absurdly long number
        raise LegacyFormatError(source, first, f"invalid JSON: {type(exc).__name__}") from exc
    if not isinstance(data, dict):
        raise LegacyFormatError(
            source, first, f"expected a SessionSummarySchema object, got a JSON {type(data).__name__}"
        )
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, RecursionError, ValueError) as exc:
        raise LegacyFormatError(source, first, "invalid text: a lone UTF-16 surrogate escape") from exc
    try:
        summary = SessionSummarySchema.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()
        )
        raise LegacyFormatError(source, first, f"not a legacy session summary: {problems}") from exc
    return LegacyRecord(source=f"{source}:{first}", summary=summary)


def load_legacy_file(path: Path) -> tuple[list[LegacyRecord], list[LegacyFormatError]]:
    """Records of one file: `.jsonl` one per line, `.json` one object, `.md` one markdown record.

    The path is made absolute, so that record ids (from path and line) do not depend on the
    current folder. Raises OSError when the file cannot be read."""
    path = path.resolve()
    data = path.read_bytes()
    if path.suffix.lower() in (".md", ".markdown"):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            return [], [LegacyFormatError(str(path), line, "invalid UTF-8")]
        try:
            record = parse_markdown(text, str(path))
        except LegacyFormatError as exc:
            return [], [exc]
        record.source = f"{path}:1"
        return [record], []
    return parse_json_records(data, str(path), lines=path.suffix.lower() == ".jsonl")


def discover_legacy_files(paths: Iterable[Path]) -> list[Path]:
    """Files as given; folders expanded to their .json and .jsonl files. Missing paths raise."""
    found: dict[Path, None] = {}
    for path in paths:
        if not path.exists():
            raise FileNotFoundError(f"no such file or folder: {path}")
        if path.is_dir():
            for candidate in sorted(path.rglob("*")):
                if candidate.is_file() and candidate.suffix.lower() in (".json", ".jsonl"):
                    found.setdefault(candidate, None)
        else:
            found.setdefault(path, None)
    return list(found)


# --- graph ------------------------------------------------------------------------------------


async def read_graph_records(
    backend: Backend, indexed: list[dict[str, Any]] | None = None
) -> tuple[list[LegacyRecord], list[LegacyFormatError]]:
    """Every old session-summary episode in the database, parsed; bad ones as errors. Episodes of
    the old indexer (`Session 005: 3f1c9a2b`, a filtered transcript) go to `indexed` instead."""
    records: list[LegacyRecord] = []
    errors: list[LegacyFormatError] = []
    seen: set[str] = set()
    for graph_name, driver in await backend.every_graph():
        rows, _, _ = await driver.execute_query(
            LEGACY_EPISODES_QUERY,
            source="text",
            name_prefix="Session ",
            description_prefix=_DESCRIPTION_PREFIX,
        )
        for row in rows:
            episode_uuid = str(row["uuid"])
            name = str(row["name"] or "")
            description = str(row["source_description"] or "")
            if episode_uuid in seen or not (
                _LEGACY_NAME.match(name) or description.startswith(_DESCRIPTION_PREFIX)
            ):
                continue
            seen.add(episode_uuid)
            source = f"episode {episode_uuid}"
            indexer = _INDEXER_NAME.match(name)
            if indexer or description.startswith(_INDEXER_DESCRIPTION):
                if indexed is not None:
                    indexed.append(
                        _indexer_episode(episode_uuid, name, indexer.group(1) if indexer else None)
                    )
                continue
            try:
                record = parse_markdown(str(row["content"] or ""), source)
            except LegacyFormatError as exc:
                errors.append(exc)
                continue
            group = row["group_id"]
            record.episode_uuid = episode_uuid
            record.group_id = str(group) if group is not None else graph_name
            record.valid_at = _as_datetime(row["valid_at"])
            records.append(record)
    return records, errors


# The old MCP server's indexer: `Session 005: 3f1c9a2b` (8 hex of the session id), described
# "Filtered Claude Code session …"; its content is the filtered transcript.
_INDEXER_NAME = re.compile(r"^Session \d+: ([0-9a-f]{8})\s*$")
_INDEXER_DESCRIPTION = "Filtered Claude Code session"


def _indexer_episode(episode_uuid: str, name: str, short_id: str | None) -> dict[str, Any]:
    """What an indexer episode names, and whether its transcript can still be ingested."""
    found = sorted(DEFAULT_TRANSCRIPTS_DIR.glob(f"*/{short_id}*.jsonl")) if short_id else []
    return {
        "episode": episode_uuid,
        "name": name,
        "session": short_id,
        "transcript": str(found[0]) if found else None,
        "note": "ingest the transcript for its full summary" if found else "transcript no longer on disk",
    }


def _as_datetime(value: Any) -> datetime | None:
    """Neo4j returns its DateTime, FalkorDB the ISO text Graphiti stored."""
    if value is None:
        return None
    if hasattr(value, "to_native"):
        value = value.to_native()
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    if not isinstance(value, datetime):
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


# --- migration --------------------------------------------------------------------------------


@dataclass
class _Converted:
    source: str
    group_id: str
    summary: EnhancedSessionSummary


async def migrate_legacy(
    backend: Backend | None,
    paths: Sequence[Path] = (),
    *,
    from_graph: bool = False,
    group_id: str | None = None,
    dry_run: bool = False,
    redactor: Redactor | None = None,
    embedder: EmbedderClient | None = None,
    on_progress: Callable[[int], None] | None = None,
    writer: SessionGraphWriter | None = None,
) -> MigrationReport:
    """Migrate legacy summaries from `paths` (.json, .jsonl, .md, folders) and, with `from_graph`,
    from the old episodes in `backend`; write them to `backend` unless `dry_run`.

    Group: `group_id` for everything when given; else the old episode's group (sanitized, see
    `sanitize_group_id`) for graph records and `legacy_import` for file records. `backend` may be
    None only for a dry run from files. Missing paths raise FileNotFoundError; an unreadable file
    or record is listed under `failed` and the rest still goes in. `on_progress(n)` hears of n
    sessions written. `writer`: the one every summary goes through (the pipeline's, with the
    config's redactor and embedder); by default one on `backend` with `redactor` and `embedder`."""
    if group_id is not None:
        GroupId(group_id)
    if backend is None and (from_graph or not dry_run):
        raise ValueError("a backend is needed to read from or write to the graph")
    report = MigrationReport(dry_run=dry_run)
    records: list[LegacyRecord] = []
    for path in discover_legacy_files(paths):
        try:
            found, errors = load_legacy_file(path)
        except OSError as exc:
            report.failed.append({"source": str(path), "error": f"{path}: {exc.strerror or exc}"})
            continue
        records += found
        report.sources_seen += len(found) + len(errors)
        report.failed += [{"source": f"{e.source}:{e.line}", "error": str(e)} for e in errors]
    if from_graph and backend is not None:
        found, errors = await read_graph_records(backend, report.indexer_episodes)
        records += found
        report.sources_seen += len(found) + len(errors)
        report.failed += [{"source": e.source, "error": str(e)} for e in errors]

    converted = _convert_all(records, group_id, report)
    if dry_run or backend is None:
        for item in converted:
            report.sessions.append(
                {
                    "source": item.source,
                    "session_id": item.summary.session_id,
                    "group_id": item.group_id,
                    "status": "dry-run",
                }
            )
        return report

    writer = writer or SessionGraphWriter(backend, embedder=embedder, redactor=redactor)
    by_group: dict[str, list[_Converted]] = {}
    for item in converted:
        by_group.setdefault(item.group_id, []).append(item)
    for group, items in sorted(by_group.items()):
        results = await writer.ingest_many([item.summary for item in items], group_id=group)
        for item, result in zip(items, results, strict=True):
            report.add(item.source, result)
            extra = sorted(k for k in item.summary.metadata or {} if k not in _PROVENANCE)
            if extra:  # kept on the Session as legacy_extra: said, not silently dropped
                report.sessions[-1]["legacy_extra"] = extra
        if on_progress is not None:
            on_progress(len(items))
    return report


def _convert_all(
    records: list[LegacyRecord], group_id: str | None, report: MigrationReport
) -> list[_Converted]:
    """Convert (the writer redacts); of records that map to the same session of a group, the newest
    wins (the old module wrote a new handoff for a session it summarized again)."""
    chosen: dict[tuple[str, str], _Converted] = {}
    order: dict[tuple[str, str], tuple[str, str]] = {}
    records = _one_per_record(records, report)
    for record in records:
        try:
            summary, problems = convert_record(record)
            group = group_id or (sanitize_group_id(record.group_id) if record.episode_uuid else FILE_GROUP_ID)
        except (ValueError, ValidationError) as exc:
            report.failed.append({"source": record.source, "error": f"{record.source}: {exc}"})
            continue
        report.problems += problems
        key = (group, summary.session_id)
        rank = (iso_time(summary.ended_at) or "", record.source)
        item = _Converted(record.source, group, summary)
        previous = chosen.get(key)
        if previous is None or rank > order[key]:
            if previous is not None:
                _superseded(report, previous, item)
            chosen[key], order[key] = item, rank
        else:
            _superseded(report, item, previous)
    # Oldest first, so each session finds the one it CONTINUES already written.
    return sorted(
        chosen.values(),
        key=lambda c: (
            c.summary.started_at is None,
            iso_time(c.summary.started_at) or iso_time(c.summary.ended_at) or "",
            c.source,
        ),
    )


def _one_per_record(records: list[LegacyRecord], report: MigrationReport) -> list[LegacyRecord]:
    """One record per content wherever it was found: the graph's episode first (its group is the
    record's), else the newest; every place it was found is kept on it (`legacy_found_in`)."""
    by_key: dict[str, list[LegacyRecord]] = {}
    for record in records:
        by_key.setdefault(content_key(record), []).append(record)
    kept: list[LegacyRecord] = []
    for copies in by_key.values():
        copies.sort(
            key=lambda r: (r.episode_uuid is None, -(r.valid_at.timestamp() if r.valid_at else 0), r.source)
        )
        first, others = copies[0], copies[1:]
        if others:
            first.front_matter = {
                **first.front_matter,
                "found_in": "; ".join(sorted(r.source for r in copies)),
            }
            report.skipped += len(others)
            report.sessions += [
                {"source": r.source, "status": "same record", "same_as": first.source} for r in others
            ]
        kept.append(first)
    return kept


def _superseded(report: MigrationReport, old: _Converted, new: _Converted) -> None:
    report.skipped += 1
    report.problems.append(
        f"{old.source}: superseded by the newer {new.source} for session {old.summary.session_id}"
    )
    report.sessions.append(
        {
            "source": old.source,
            "session_id": old.summary.session_id,
            "group_id": old.group_id,
            "status": "superseded",
            "superseded_by": new.source,
        }
    )
