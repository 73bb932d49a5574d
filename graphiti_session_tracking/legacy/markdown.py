"""Parse the old module's markdown summary (shared/LEGACY_FORMAT.md section 3) into a LegacyRecord.

Records were rendered by the old module and then often edited by hand, so the parser is lenient
about layout and strict only about what would make a wrong record: it accepts CRLF and CR line
ends, a BOM, missing or reordered sections, `*`/`+`/numbered items and checkboxes, prose lines in
a list section, wrapped items, `None` / `N/A` for an empty list, `**Name:**` as well as
`**Name**:`, headings with a trailing colon, thousands separators in the token usage, and any
Unicode. It raises `LegacyFormatError` (naming the source and line) only when the record has no
objective at all, contains NUL characters, or has a front-matter block that claims to be
`graphiti_session_metadata` but is not valid YAML. Anything it reads but cannot use (an unreadable
token count, an unknown section) is kept as text and listed in `problems`, never dropped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from .schema import LegacyFormatError, LegacyRecord, SessionSummarySchema

__all__ = ["parse_markdown", "parse_token_count"]

# Sections (and Context sub-blocks) by normalized name -> SessionSummarySchema list field.
_LIST_FIELDS: dict[str, str] = {
    "completed": "completed_tasks",
    "completed tasks": "completed_tasks",
    "done": "completed_tasks",
    "accomplished": "completed_tasks",
    "blocked": "blocked_items",
    "blocked items": "blocked_items",
    "blockers": "blocked_items",
    "next steps": "next_steps",
    "next": "next_steps",
    "todo": "next_steps",
    "to do": "next_steps",
    "key decisions": "key_decisions",
    "decisions": "key_decisions",
    "files modified created": "files_modified",
    "files modified": "files_modified",
    "files created": "files_modified",
    "files changed": "files_modified",
    "files": "files_modified",
    "documentation referenced": "documentation_referenced",
    "documentation": "documentation_referenced",
    "docs referenced": "documentation_referenced",
    "docs": "documentation_referenced",
    "references": "documentation_referenced",
    "mcp tools used": "mcp_tools_used",
    "mcp tools": "mcp_tools_used",
}
# Lists whose items are names (paths, tools): a pair of backticks around one is markup.
_NAME_LISTS = frozenset({"files_modified", "documentation_referenced", "mcp_tools_used"})
_CONTEXT = "context"
_OBJECTIVE = "objective"

_TITLE = re.compile(
    r"^#\s+(?:Session\s+(?P<seq>\d+)\b\s*[:\-–—.]?\s*)?(?P<title>.*?)\s*#*\s*$", re.IGNORECASE
)
_HEADING = re.compile(r"^#{2,6}\s+(?P<name>.*?)\s*#*\s*$")
_FIELD = re.compile(r"^\*\*(?P<name>[^*]+?)\s*(?::\s*\*\*|\*\*\s*:)\s*(?P<value>.*)$")
_RULE = re.compile(r"^\s*(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$")
_ITEM = re.compile(r"^(?P<indent>\s*)(?:[-*+•]|\d+[.)])\s+(?P<text>.*)$")
_CHECKBOX = re.compile(r"^\[[ xX✓✔-]?\]\s*")
_NONE = re.compile(r"^[*_(\[]*\s*(?:none|n/?a|nothing|nil|empty|-|—|–)\s*[.!]?\s*[*_)\]]*$", re.IGNORECASE)
_TOKENS = re.compile(
    r"^~?\s*(?:(?P<grouped>\d{1,3}(?:[,.'\u00a0\u202f\u2009 _]\d{3})+)|(?P<plain>\d+(?:\.\d+)?))"
    r"\s*(?P<mult>[kKmM])?(?![\w.,])"
)


def _normalize_name(name: str) -> str:
    """`Files Modified/Created:` -> `files modified created`."""
    return " ".join(re.sub(r"[^\w]+", " ", name.casefold()).split())


def parse_token_count(text: str) -> int | None:
    """`48,210`, `48.210`, `48 210`, `48210 tokens`, `~48k`, `1.2M` -> an int; None if unreadable."""
    match = _TOKENS.match(text.strip().replace("`", ""))
    if match is None:
        return None
    multiplier = {"k": 1_000, "m": 1_000_000}.get((match.group("mult") or "").lower(), 1)
    if match.group("grouped"):
        return int(re.sub(r"\D", "", match.group("grouped"))) * multiplier
    return round(float(match.group("plain")) * multiplier)


def _strip_markup(text: str, name_list: bool) -> str:
    text = " ".join(text.split())
    if name_list and len(text) >= 2 and text.startswith("`") and text.endswith("`"):
        text = text[1:-1].strip()
    return text


@dataclass
class _Body:
    lists: dict[str, list[str]] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=dict)
    field_lines: dict[str, int] = field(default_factory=dict)
    extra: dict[str, list[str]] = field(default_factory=dict)
    objective_lines: list[str] = field(default_factory=list)
    title: str | None = None
    sequence: int | None = None


def parse_markdown(text: str, source: str) -> LegacyRecord:
    """One legacy markdown record (optionally with front matter) from `source` (for messages)."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    nul = next((i for i, line in enumerate(lines) if "\x00" in line), None)
    if nul is not None:
        raise LegacyFormatError(source, nul + 1, "NUL character: not a text record")
    if not text.strip():
        raise LegacyFormatError(source, 1, "empty record")

    front_matter, body_start = _front_matter(lines, source)
    body = _Body()
    problems: list[str] = []
    _parse_body(lines, body_start, body, source, problems)

    objective = " ".join(" ".join(body.objective_lines).split())
    if not objective:
        objective = body.title or ""
    if not objective:
        raise LegacyFormatError(
            source,
            body_start + 1,
            "not a legacy session summary: no '**Objective**:' line, '## Objective' section "
            "or '# Session NNN: title' heading",
        )

    token_count: int | None = None
    token_text = body.fields.get("token usage") or body.fields.get("tokens")
    if token_text and not _NONE.match(token_text):
        token_count = parse_token_count(token_text)
        if token_count is None:
            line = body.field_lines.get("token usage") or body.field_lines.get("tokens") or 1
            problems.append(f"{source}:{line}: unreadable token usage {token_text!r}, kept as text")
            body.fields["token usage (unread)"] = token_text
    duration = body.fields.get("session duration") or body.fields.get("duration")
    summary = SessionSummarySchema(
        objective=objective,
        completed_tasks=body.lists.get("completed_tasks", []),
        blocked_items=body.lists.get("blocked_items", []),
        next_steps=body.lists.get("next_steps", []),
        files_modified=body.lists.get("files_modified", []),
        documentation_referenced=body.lists.get("documentation_referenced", []),
        key_decisions=list(body.lists.get("key_decisions", [])),
        mcp_tools_used=body.lists.get("mcp_tools_used", []),
        token_count=token_count,
        duration_estimate=duration if duration and not _NONE.match(duration) else None,
    )
    return LegacyRecord(
        source=source,
        summary=summary,
        front_matter=front_matter,
        fields=body.fields,
        title=body.title,
        sequence=body.sequence,
        extra_sections={name: "\n".join(items) for name, items in body.extra.items() if items},
        problems=problems,
    )


def _front_matter(lines: list[str], source: str) -> tuple[dict[str, Any], int]:
    """The `graphiti_session_metadata` mapping and the index of the first body line.

    A leading `---` block counts as front matter when it is YAML mapping; one that names
    `graphiti_session_metadata` but does not load is an error (its ids would be lost)."""
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    if start >= len(lines) or lines[start].strip() != "---":
        return {}, 0
    end = next((i for i in range(start + 1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return {}, 0
    block = "\n".join(lines[start + 1 : end])
    claims = "graphiti_session_metadata" in block
    try:
        loaded = yaml.safe_load(block)
    except yaml.YAMLError as exc:
        if not claims:
            return {}, 0
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = start + 2 + (mark.line if mark is not None else 0)
        reason = " ".join(str(getattr(exc, "problem", None) or exc).split())
        raise LegacyFormatError(source, line, f"invalid YAML front matter: {reason}") from exc
    except (RecursionError, ValueError, TypeError) as exc:  # pathological YAML
        if not claims:
            return {}, 0
        raise LegacyFormatError(
            source, start + 1, f"invalid YAML front matter: {type(exc).__name__}"
        ) from exc
    if not isinstance(loaded, dict):
        if claims:
            raise LegacyFormatError(source, start + 1, "invalid front matter: not a YAML mapping")
        return {}, 0
    metadata = loaded.get("graphiti_session_metadata", loaded)
    if not isinstance(metadata, dict):
        raise LegacyFormatError(
            source, start + 2, "invalid front matter: graphiti_session_metadata is not a mapping"
        )
    return {str(k): v for k, v in metadata.items()}, end + 1


def _parse_body(lines: list[str], start: int, body: _Body, source: str, problems: list[str]) -> None:
    section: str | None = None  # normalized heading of the current section
    target: str | None = None  # list field that items go to, or `extra:<name>`
    items: list[str] | None = None  # the list items currently go to
    last_item: int | None = None  # index in `items` of the item continuation lines extend
    last_indent = 0  # indentation of that item: a deeper item is its sub-item
    in_objective = False

    def open_target(name: str | None) -> None:
        nonlocal target, items, last_item
        target, last_item = name, None
        if name is None:
            items = None
        elif name.startswith("extra:"):
            items = body.extra.setdefault(name[6:], [])
        else:
            items = body.lists.setdefault(name, [])

    def add(text: str, continuation: bool = False, indent: int = 0) -> None:
        nonlocal last_item, last_indent
        clean = _strip_markup(_CHECKBOX.sub("", text.strip()), target in _NAME_LISTS)
        if items is None or not clean:
            return
        if continuation and last_item is not None:
            items[last_item] = f"{items[last_item]} {clean}"
            return
        if _NONE.match(clean):
            last_item = None
            return
        items.append(clean)
        last_item, last_indent = len(items) - 1, indent

    for index in range(start, len(lines)):
        line = lines[index]
        stripped = line.strip()
        if not stripped:
            in_objective = in_objective and not body.objective_lines  # text may follow the heading
            last_item = None
            continue
        if _RULE.match(line):
            in_objective = False
            last_item = None
            continue
        if line.startswith("# ") or line.startswith("#\t"):
            title = _TITLE.match(line)
            if title is not None and body.title is None:
                body.title = " ".join(title.group("title").split()) or None
                if title.group("seq"):
                    body.sequence = int(title.group("seq"))
            in_objective = False
            continue
        heading = _HEADING.match(line)
        if heading is not None:
            in_objective = False
            section = _normalize_name(heading.group("name"))
            if section in _LIST_FIELDS:
                open_target(_LIST_FIELDS[section])
            elif section == _OBJECTIVE:
                open_target(None)
                in_objective = not body.objective_lines  # an **Objective** line wins
            elif section == _CONTEXT:
                open_target(None)
            else:
                open_target(f"extra:{heading.group('name').strip().rstrip(':').strip() or 'untitled'}")
            continue
        field_match = _FIELD.match(line)
        if field_match is not None:
            name = _normalize_name(field_match.group("name"))
            value = field_match.group("value").strip()
            in_objective = False
            if name in _LIST_FIELDS:
                open_target(_LIST_FIELDS[name])
                for part in value.split(",") if value else []:
                    add(part)
                last_item = None
                continue
            if name == _OBJECTIVE:
                if not body.objective_lines:  # the first Objective line wins over later ones
                    body.objective_lines = [value] if value else []
                    in_objective = True
                continue
            body.fields.setdefault(name, value.strip("`").strip())
            body.field_lines.setdefault(name, index + 1)
            if section == _CONTEXT or section is None:
                open_target(None)  # a scalar field ends a Context sub-block
            continue
        item = _ITEM.match(line)
        if in_objective and item is None:
            body.objective_lines.append(stripped)
            continue
        in_objective = False
        if item is not None:
            indent = len(item.group("indent").expandtabs(4))
            if indent > last_indent and last_item is not None and items is not None:
                sub = " ".join(_CHECKBOX.sub("", item.group("text").strip()).split())
                if sub:
                    items[last_item] = f"{items[last_item]}; {sub}"
                continue
            if items is None:
                _stray(body, section, item.group("text"), source, index, problems)
                continue
            add(item.group("text"), indent=indent)
            continue
        # Prose right below an item continues it (wrapped text); after a blank line, or in a
        # list with no item yet, it is an item of its own (hand-written).
        if items is None:
            _stray(body, section, stripped, source, index, problems)
            continue
        add(stripped, continuation=last_item is not None)


def _stray(body: _Body, section: str | None, text: str, source: str, index: int, problems: list[str]) -> None:
    """Text outside any list: kept under its section's name, and reported."""
    text = " ".join(text.split())
    if not text or _NONE.match(text):
        return
    name = section or "preamble"
    body.extra.setdefault(name, []).append(text)
    if _VECTOR_LINE.match(text):
        return  # the second generation's `**Activity Vector**:` block: read as the session's vector
    problems.append(f"{source}:{index + 1}: text outside a known list kept under '{name}': {text[:60]}")


_VECTOR_LINE = re.compile(
    r"^(?:(?:building|fixing|configuring|exploring|refactoring|reviewing|testing|documenting):\s*[01](?:\.\d+)?"
    r"|\(neutral\))$"
)
