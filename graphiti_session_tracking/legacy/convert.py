"""Convert a legacy record to an EnhancedSessionSummary (spec section 10.1), deterministically.

The same record always converts to the same summary (no clock, no random ids), so migrating twice
writes nothing the second time. Mapping choices, documented in README "Migrating from
session-tracking":

- `blocked_items` become next steps, first, as `Blocked: <item>`, and make the outcome `blocked`.
- `key_decisions` become `DecisionRecord`s with an empty rationale: the old module never recorded
  one, and an invented "not recorded" would show up in rationale searches and facts.
- `token_count` and the raw `duration_estimate` go to `metadata`, with the record's origin (source,
  episode uuid, old group id, status, title, handoff file, front matter) and unknown sections.
- `duration_estimate` becomes `duration_minutes`; a range takes its upper bound ("1-2 hours" ->
  120): the old estimates were rough "no more than" figures, and the raw text stays in metadata.
  Front matter `duration_minutes`, when present, wins.
- `documentation_referenced` stays as `documentation_referenced`, linked with REFERENCED_DOC.
- The session id is the front matter's `session_file` without `.jsonl` (the Claude Code session
  id), else a uuid5 of the episode uuid (graph) or of the file path and line (files).
- Times: `**Created**` is the start (UTC when it has no zone); the episode's `valid_at` (else the
  front matter's `indexed_at`) is the end.
"""

from __future__ import annotations

import hashlib
import math
import re
import uuid
from datetime import UTC, date, datetime
from pathlib import PurePosixPath
from typing import Any

from graphiti_session_tracking.activity import (
    ActivityDetector,
    ActivityVector,
    file_activities,
    matched_keywords,
)
from graphiti_session_tracking.group_id import GroupId
from graphiti_session_tracking.summary import EnhancedSessionSummary
from graphiti_session_tracking.summary.model import (
    ConfigChange,
    DecisionRecord,
    ErrorResolution,
    Outcome,
    TestSummary,
)

from .schema import LegacyConfigChange, LegacyDecision, LegacyError, LegacyRecord, LegacyTestResults

__all__ = [
    "FILE_GROUP_ID",
    "convert_record",
    "legacy_session_id",
    "parse_duration_minutes",
    "sanitize_group_id",
]

# Records read from files carry no group: they go here unless --group-id says otherwise.
FILE_GROUP_ID = "legacy_import"
# Graphiti's default (empty) group id in the old graph.
EMPTY_GROUP_ID = "legacy"

_NAMESPACE = uuid.UUID("0b8f3c52-7f1e-4d7a-9a61-3f5e2c1d4b70")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def sanitize_group_id(raw: str | None) -> GroupId:
    """A valid group id for an old one, deterministically (see `GroupId.from_any`): a
    project-hash group stays where it is, `DESKTOP-ABC123__global` -> `DESKTOP_ABC123__global_<8 hex>`."""
    return GroupId.from_any(raw or "", empty=EMPTY_GROUP_ID)


def legacy_session_id(record: LegacyRecord) -> str:
    """Stable across runs: the Claude Code session id when the record names its transcript."""
    session_file = record.front_matter.get("session_file")
    if isinstance(session_file, str) and session_file.strip():
        name = PurePosixPath(session_file.strip().replace("\\", "/")).name
        for suffix in (".jsonl", ".json"):
            name = name.removesuffix(suffix)
        name = _clean(name)
        # The old code's default `session-<slug of the title>` names no transcript, and two titles
        # sharing 50 characters share it: such a record is keyed by its episode or file, not by it.
        if name and not name.startswith("session-"):
            return name
    return str(uuid.uuid5(_NAMESPACE, f"content\x1f{content_key(record)}"))


def content_key(record: LegacyRecord) -> str:
    """What makes two legacy records the same record wherever they were found (a graph episode,
    a JSON export of it, a handoff file): its objective, tasks, next steps and decisions."""
    old = record.summary
    decisions = [d if isinstance(d, str) else d.decision for d in old.key_decisions]
    parts = [
        old.objective or record.title or "",
        *old.completed_tasks,
        "\x1e",
        *old.next_steps,
        "\x1e",
        *decisions,
    ]
    text = "\x1f".join(" ".join(_FLATTENED_MARKUP.sub("", part).split()).casefold() for part in parts)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


_FLATTENED_MARKUP = re.compile(r"\*\*|;\s*(?:Rationale|Alternatives)\s*:.*$", re.IGNORECASE)


_NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "forty-five": 45,
    "ninety": 90,
}
_UNIT_MINUTES = {"d": 24 * 60, "h": 60, "m": 1, "s": 1 / 60}
_NUM = r"\d+(?:[.,]\d+)?"
_TERM = re.compile(
    rf"(?P<a>{_NUM})(?:\s*(?:-|to)\s*(?P<b>{_NUM}))?\s*"
    r"(?P<unit>d(?:ays?)?|h(?:ours?|rs?)?|m(?:in(?:ute)?s?)?|s(?:ec(?:ond)?s?)?)(?![a-z])"
)
_CLOCK = re.compile(r"^(\d{1,3}):([0-5]\d)(?::[0-5]\d)?$")


def parse_duration_minutes(text: str | None) -> int | None:
    """Minutes from free text ("2 hours", "1-2 hours", "45 minutes", "~30 min", "1h 30m", "1:30");
    a range gives its upper bound. None when no duration can be read."""
    if not text:
        return None
    low = text.casefold().replace("–", "-").replace("—", "-").replace("half an hour", "30 minutes")
    low = re.sub(r"\bhalf\s+(?:a|an)\s+", "0.5 ", low)
    low = re.sub(
        r"\b(" + "|".join(sorted(map(re.escape, _NUMBER_WORDS), key=len, reverse=True)) + r")\b",
        lambda m: str(_NUMBER_WORDS[m.group(1)]),
        low,
    )
    low = low.strip().lstrip("~≈<>").strip()
    clock = _CLOCK.match(low)
    if clock:
        return int(clock.group(1)) * 60 + int(clock.group(2))
    total = 0.0
    previous_end: int | None = None
    previous_value = 0.0
    found = False
    for match in _TERM.finditer(low):
        upper = float((match.group("b") or match.group("a")).replace(",", "."))
        value = upper * _UNIT_MINUTES[match.group("unit")[0]]
        separator = low[previous_end : match.start()].strip() if previous_end is not None else ""
        if previous_end is not None and separator in ("-", "to", "or"):
            total += max(value - previous_value, 0.0)  # "30 min - 1 hour": the larger end
        else:
            total += value
        previous_end, previous_value, found = match.end(), value, True
    if not found or not math.isfinite(total):
        return None
    return max(1, round(total)) if total > 0 else 0


def convert_record(record: LegacyRecord) -> tuple[EnhancedSessionSummary, list[str]]:
    """The summary for a legacy record, and the problems met (also the parser's)."""
    old = record.summary
    problems = list(record.problems)
    fm = record.front_matter
    project_path = _text(fm.get("project_path")) or None

    next_steps = _unique([f"Blocked: {item}" for item in _items(old.blocked_items)] + _items(old.next_steps))
    decisions = _decisions(old.key_decisions)
    files = _unique([_relative(path, project_path) for path in _items(old.files_modified)])
    completed = _unique(_items(old.completed_tasks))
    objective = _clean(old.objective) or record.title or "(objective not recorded)"

    # The old front matter wrote 0 for durations it could not parse ("45 minutes") and for
    # unknown message counts: a 0 there is "unknown", and the markdown's own duration wins.
    duration = _count(fm.get("duration_minutes")) or None
    if old.duration_estimate:
        duration = parse_duration_minutes(old.duration_estimate) or duration
        if duration is None:
            problems.append(f"{record.source}: unreadable duration {old.duration_estimate!r}, kept as text")

    # `**Created**` and the episode's time are when the summary was written, not when the session
    # ran: the session's end is not before it, its start is unknown.
    started = None
    ended = record.valid_at or _time(fm.get("indexed_at")) or _time(record.fields.get("created"))

    summary = EnhancedSessionSummary(
        session_id=legacy_session_id(record),
        project_path=project_path,
        started_at=started,
        ended_at=ended,
        session_file=_text(fm.get("session_file")) or None,
        activity_vector=_stored_activity(record)
        or _activity(objective, completed, next_steps, [d.decision for d in decisions], files),
        objective=objective,
        outcome=_outcome(record.fields.get("status"), bool(old.blocked_items), bool(next_steps)),
        completed_tasks=completed or None,
        key_decisions=decisions or None,
        next_steps=next_steps or None,
        files_modified=files or None,
        documentation_referenced=_unique(_items(old.documentation_referenced)) or None,
        mcp_tools_used=_unique(_items(old.mcp_tools_used)) or None,
        message_count=_count(fm.get("message_count")) or None,
        errors_resolved=_errors(old.errors_resolved or _markdown_errors(record)) or None,
        config_changes=_config_changes(old.config_changes or _markdown_config(record)) or None,
        test_results=_tests(old.test_results or _markdown_tests(record)),
        duration_minutes=duration,
        metadata=_metadata(record),
    )
    return summary, problems


_STATUS: dict[str, Outcome] = {
    "completed": "completed",
    "complete": "completed",
    "done": "completed",
    "closed": "completed",
    "finished": "completed",
    "blocked": "blocked",
    "abandoned": "abandoned",
    "cancelled": "abandoned",
    "canceled": "abandoned",
    "active": "in_progress",
    "in progress": "in_progress",
    "in_progress": "in_progress",
    "open": "in_progress",
    "paused": "in_progress",
}


def _outcome(status: str | None, blocked: bool, has_next: bool) -> Outcome:
    """An explicit Status wins when final (completed, abandoned); blocked items make it blocked;
    else ACTIVE-like statuses or pending next steps mean in progress."""
    mapped = _STATUS.get(" ".join((status or "").casefold().split()))
    if mapped in ("completed", "abandoned"):
        return mapped
    if blocked or mapped == "blocked":
        return "blocked"
    if mapped == "in_progress" or has_next:
        return "in_progress"
    return "completed"


def _activity(
    objective: str, completed: list[str], next_steps: list[str], decisions: list[str], files: list[str]
) -> ActivityVector:
    """The activity vector from what the record says: the detector's keyword and file rules."""
    detector = ActivityDetector
    text = "\n".join([objective, *completed, *next_steps, *decisions])
    signals = {
        dim: min(len(hits) * detector.KEYWORD_WEIGHT, detector.KEYWORD_CAP)
        for dim, hits in matched_keywords(text).items()
    }
    weights: dict[str, float] = {}
    for path in files:
        for dim in file_activities(path):
            weights[dim] = weights.get(dim, 0.0) + 1.0
    for dim, weight in weights.items():
        share = min(weight, detector.FILE_SATURATION) / detector.FILE_SATURATION
        signals[dim] = signals.get(dim, 0.0) + detector.FILE_WEIGHT * share
    return ActivityVector.from_signals(signals)


def _metadata(record: LegacyRecord) -> dict[str, str | int | float | bool]:
    old = record.summary
    meta: dict[str, str | int | float | bool] = {"legacy_source": record.source}
    if record.episode_uuid:
        meta["legacy_episode_uuid"] = record.episode_uuid
    if record.group_id is not None:
        meta["legacy_group_id"] = record.group_id
    if record.sequence is not None:
        meta["legacy_session_number"] = record.sequence
    if record.title:
        meta["legacy_title"] = _clean(record.title)
    if old.token_count is not None:
        meta["token_count"] = old.token_count
    if old.duration_estimate:
        meta["duration_estimate"] = _clean(old.duration_estimate)
    for name, value in record.fields.items():
        if name not in ("objective", "session duration", "duration", "token usage", "tokens") and value:
            meta[f"legacy_{_key(name)}"] = _clean(value)
    for name, value in record.front_matter.items():
        if isinstance(value, bool | int | float) and not (
            isinstance(value, float) and not math.isfinite(value)
        ):
            meta[f"front_matter_{_key(name)}"] = value
        elif value is not None and not isinstance(value, dict | list):
            meta[f"front_matter_{_key(name)}"] = _clean(_text(value))
    for name, text in record.extra_sections.items():
        meta[f"legacy_section_{_key(name)}"] = "\n".join(_clean(line) for line in text.split("\n"))
    return meta


def _key(name: str) -> str:
    return re.sub(r"\W+", "_", name.casefold()).strip("_") or "field"


def _clean(text: str) -> str:
    """One line, without control characters (they break Cypher parameters on FalkorDB)."""
    return " ".join(_CONTROL.sub(" ", text).split())


# "**X**; Rationale: …; Alternatives: …": a second-generation decision flattened to one string.
_FLATTENED = re.compile(r"^\*\*(?P<decision>.+?)\*\*\s*(?:;\s*|$)(?P<rest>.*)$", re.DOTALL)
_PART = re.compile(
    r"(?:^|;\s*)(Rationale|Alternatives)\s*:\s*(.*?)(?=;\s*(?:Rationale|Alternatives)\s*:|$)", re.I | re.S
)
_CHANGE = re.compile(r"^\s*(?P<old>.*?)\s*(?:->|→|=>)\s*(?P<new>.+?)\s*$")


def _decisions(values: list[str | LegacyDecision]) -> list[DecisionRecord]:
    """Each decision with its rationale and alternatives, from either generation; a flattened
    `**X**; Rationale: …; Alternatives: …` string is taken apart."""
    found: dict[str, DecisionRecord] = {}
    for value in values:
        if isinstance(value, LegacyDecision):
            decision, rationale, alternatives = value.decision, value.rationale, value.alternatives
        else:
            decision, rationale, alternatives = value, "", []
            flat = _FLATTENED.match(value.strip())
            if flat:
                decision = flat.group("decision")
                for name, text in _PART.findall(flat.group("rest")):
                    if name.lower() == "rationale":
                        rationale = text
                    else:
                        alternatives = [a for a in (_clean(x) for x in re.split(r"[;,]\s*", text)) if a]
        decision = _clean(decision)
        if decision and decision not in found:
            found[decision] = DecisionRecord(
                decision=decision, rationale=_clean(rationale), alternatives=_unique(alternatives) or None
            )
    return list(found.values())


def _errors(values: list[LegacyError]) -> list[ErrorResolution]:
    return [
        ErrorResolution(
            error=_clean(e.error),
            root_cause=_clean(e.root_cause),
            fix=_clean(e.fix),
            verification=_clean(e.verification),
        )
        for e in values
        if _clean(e.error)
    ]


def _config_changes(values: list[LegacyConfigChange]) -> list[ConfigChange]:
    """`change` "60 -> 3600" gives old and new values; any other text is the new value."""
    changes = []
    for c in values:
        if not (_clean(c.file) and _clean(c.setting)):
            continue
        arrow = _CHANGE.match(c.change)
        old, new = (arrow.group("old") or None, arrow.group("new")) if arrow else (None, c.change)
        changes.append(
            ConfigChange(
                file=_clean(c.file),
                setting=_clean(c.setting),
                old_value=old,
                new_value=_clean(new),
                reason=_clean(c.reason),
            )
        )
    return changes


def _tests(value: LegacyTestResults | None) -> TestSummary | None:
    if value is None or not (value.passed or value.failed):
        return None
    return TestSummary(
        framework=_clean(value.framework) or "unknown",
        total=value.passed + value.failed,
        passed=value.passed,
        failed=value.failed,
        coverage_pct=value.coverage,
    )


_DIMENSION = re.compile(
    r"\b(building|fixing|configuring|exploring|refactoring|reviewing|testing|documenting)\b\s*(?::\s*|\()\s*([01](?:\.\d+)?)"
)


def _stored_activity(record: LegacyRecord) -> ActivityVector | None:
    """The activity vector the old module stored with the summary — its markdown's
    `**Activity Vector**:` block, else the `activity_profile` ("fixing (0.80), testing (0.50)") —
    kept as it was, not recomputed from keywords."""
    block = "\n".join(record.extra_sections.values())
    profile = record.summary.activity_profile or record.fields.get("activity profile") or ""
    for text in (block, profile):
        values = {name: float(value) for name, value in _DIMENSION.findall(text)}
        if values:
            return ActivityVector(**values)
    return None


_SECTION_FIELD = re.compile(r"^\*\*(?P<name>[^*]+)\*\*:\s*(?P<value>.*)$", re.MULTILINE)


def _section_fields(text: str) -> dict[str, str]:
    return {m.group("name").strip().lower(): m.group("value").strip() for m in _SECTION_FIELD.finditer(text)}


def _markdown_errors(record: LegacyRecord) -> list[LegacyError]:
    """`### <error>` subsections with Root Cause, Fix and Verification bullets."""
    errors = []
    for title, text in record.extra_sections.items():
        fields = _section_fields(text)
        if {"root cause", "fix"} & fields.keys():
            errors.append(
                LegacyError(
                    error=title,
                    root_cause=fields.get("root cause", ""),
                    fix=fields.get("fix", ""),
                    verification=fields.get("verification", ""),
                )
            )
    return errors


def _markdown_config(record: LegacyRecord) -> list[LegacyConfigChange]:
    """The `## Configuration Changes` pipe table (File | Setting | Change | Reason, `\\|` escaped)."""
    text = next(
        (t for name, t in record.extra_sections.items() if name.lower() == "configuration changes"), ""
    )
    cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", text)]
    cells = [c for c in cells if c and not re.fullmatch(r"-{3,}", c)]
    if cells[:4] == ["File", "Setting", "Change", "Reason"]:
        cells = cells[4:]
    return [
        LegacyConfigChange(file=row[0], setting=row[1], change=row[2], reason=row[3])
        for row in (cells[i : i + 4] for i in range(0, len(cells) - 3, 4))
    ]


def _markdown_tests(record: LegacyRecord) -> LegacyTestResults | None:
    """`## Test Results`: framework, "42/45 passed (3 failed)", coverage."""
    text = next((t for name, t in record.extra_sections.items() if name.lower() == "test results"), "")
    fields = _section_fields(text)
    counts = re.match(r"(\d+)/(\d+) passed", fields.get("results", ""))
    if counts is None:
        return None
    passed, total = int(counts.group(1)), int(counts.group(2))
    coverage = re.match(r"([\d.]+)%", fields.get("coverage", ""))
    return LegacyTestResults(
        framework=fields.get("framework", ""),
        passed=passed,
        failed=max(total - passed, 0),
        coverage=float(coverage.group(1)) if coverage else None,
    )


def _items(values: list[str]) -> list[str]:
    return [clean for clean in (_clean(v) for v in values) if clean]


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _relative(path: str, project_path: str | None) -> str:
    """Files are stored relative to the project root when inside it, as for new sessions."""
    if project_path:
        root = PurePosixPath(project_path.replace("\\", "/"))
        candidate = PurePosixPath(path.replace("\\", "/"))
        if candidate.is_absolute() and candidate.is_relative_to(root) and candidate != root:
            return str(candidate.relative_to(root))
    return path


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime | date):
        return value.isoformat()
    return _clean(str(value))


def _count(value: Any) -> int | None:
    """A non-negative int from YAML (int or digit string); None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _time(value: Any) -> datetime | None:
    """A timestamp from YAML or text; without a zone it is taken as UTC."""
    parsed: datetime | None = None
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime(value.year, value.month, value.day)
    elif isinstance(value, str) and value.strip():
        text = value.strip().strip("`'\"").replace("Z", "+00:00")
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            return None
    if parsed is None:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
