"""The session's edits of each configuration file: the text before and after each edit (whole
when the transcript holds the file), compared once per file, with the reason the assistant gave."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from graphiti_session_tracking.transcripts import Session, ToolCall, ToolKind

from .._sentences import cut, split_sentences
from ..files import relative_path, written_file
from ..model import ConfigChange
from .diff import REMOVED, _limit, diff_settings
from .formats import config_parser
from .installs import install_changes
from .manifests import parse_ignore, parse_requirements
from .settings import Settings
from .shown import shown_file

_REASON_LIMIT = 300

_TRUNCATED_INPUT = re.compile(r"…\[\d+ more\]\Z")
_REASON = re.compile(
    r"\bbecause\b|\bsince\b|\bso that\b|\bso (?:it|we|the|that)\b|\bin order to\b|\bto (?:fix|avoid|allow|"
    r"support|enable|disable|prevent|match|reduce|increase|make|keep|stop|silence|pin|use)\b|\binstead\b|"
    r"\bwas (?:too|wrong|set|in)\b|\bneeds? to\b|\bshould\b|\brequires?\b|\bdue to\b",
    re.IGNORECASE,
)


def extract_config_changes(session: Session) -> list[ConfigChange]:
    """One ConfigChange per setting the session's successful config edits changed, in order.

    A file whose every edit is known whole is compared once, as it was before the session's
    first edit against its last state, so edits that build up one change (or undo one) give the
    net change, and a file the session created is summarized per top-level setting. Dependencies
    a package manager's command added or removed (`installs`) come after, unless the manifest's
    own edits already name that section.
    """
    reasons = _reasons_by_call(session)
    files: dict[str, _FileEdits] = {}
    shown: dict[str, str] = {}  # each file's whole text as last shown by a command or an edit
    for call in session.tool_calls:
        if (seen := shown_file(call)) is not None:
            shown[relative_path(seen[0], session.project_root)] = seen[1]
            continue
        path = written_file(call)
        if path is None or "notebook_path" in call.input:  # a notebook is not configuration
            continue
        parse = config_parser(path)
        if parse is None:
            continue
        file = relative_path(path, session.project_root)
        edits = files.setdefault(file, _FileEdits(parse))
        after = edits.add(call, reasons.get(call.id, ""), shown.pop(file, None))
        if after is not None:
            shown[file] = after
    merged: dict[tuple[str, str], ConfigChange] = {}
    for file, edits in files.items():
        for setting, old, new, reason in edits.changes():
            earlier = merged.get((file, setting))
            if earlier is None:
                merged[(file, setting)] = ConfigChange(
                    file=file, setting=setting, old_value=old, new_value=new, reason=reason
                )
            else:
                earlier.new_value = new
                earlier.reason = earlier.reason or reason
    edited = list(merged)
    for file, setting, value in install_changes(session):
        section = setting.rsplit(".", 1)[0]
        if any(f == file and (s == section or s.startswith(section + ".")) for f, s in edited):
            continue  # the manifest's edits already say what changed there
        earlier = merged.get((file, setting))
        if earlier is None:
            merged[(file, setting)] = ConfigChange(
                file=file, setting=setting, old_value=None, new_value=value
            )
        elif earlier.old_value is None and value == REMOVED:
            del merged[(file, setting)]  # added and removed again: no change
        else:
            earlier.new_value = value
    return [c for c in merged.values() if c.old_value != c.new_value]


class _FileEdits:
    """The session's edits of one config file: whole texts while every edit is known whole."""

    def __init__(self, parse: Callable[[str], Settings]) -> None:
        self.parse = parse
        self.calls: list[tuple[list[tuple[str | None, str]], str]] = []  # each call's texts, reason
        self.first: str | None = None  # the text before the first edit (None: the file was new)
        self.last: str | None = None  # the text after the last edit, while edits are whole
        self.whole = True

    def add(self, call: ToolCall, reason: str, shown: str | None) -> str | None:
        """Take in one edit of the file; `shown` is its whole text as last seen, when the call
        carries none. Returns the whole text after the edit, when known."""
        pairs, whole = _before_after(call, shown)
        self.calls.append((pairs, reason))
        if len(self.calls) == 1:
            self.first = pairs[0][0] if whole else None
        self.whole = self.whole and whole
        self.last = pairs[0][1] if whole else None
        return self.last

    def changes(self) -> Iterator[tuple[str, str | None, str, str]]:
        if self.whole and self.last is not None:
            # each edit's settings and reason, the last first: a setting takes the reason said for
            # the last edit that changed it (not a later edit's reason for what the file was created with)
            touched = [
                ([key for key, _, _ in _diff(*pairs[0], self.parse)], reason)
                for pairs, reason in reversed(self.calls)
            ]
            for setting, old, new in _diff(self.first, self.last, self.parse):
                reason = next((r for keys, r in touched if any(_related(setting, k) for k in keys)), "")
                yield setting, old, new, reason
            return
        for pairs, call_reason in self.calls:
            for before, after in pairs:
                for setting, old, new in _diff(before, after, self.parse):
                    yield setting, old, new, call_reason


def _related(setting: str, key: str) -> bool:
    """One names the other or a part of it (`jobs` and `jobs.test.steps`)."""
    return any(
        a == b or a.startswith(b + ".") or a.startswith(b + "[") for a, b in ((setting, key), (key, setting))
    )


def _diff(
    before: str | None, after: str, parse: Callable[[str], Settings]
) -> Iterator[tuple[str, str | None, str]]:
    """(setting, old value or None, new value) for each setting changed from `before` to `after`."""
    old = parse(before) if before is not None else {}
    new = parse(after)
    if before is None and parse is parse_requirements and len(new) > 1:
        # A new requirements file is one change: these dependencies, not one row each.
        yield "dependencies", None, _limit(f"{len(new)} packages: {', '.join(new)}") or ""
        return
    if parse is parse_ignore:
        yield from _ignore_changes(old, new, created=before is None)
        return
    yield from diff_settings(old, new, whole_before=before is not None)


# Patterns added or removed by the session's edits that are each a row; a file the session created
# or rewrote wholesale is left to `files_modified`, as a list of patterns has no one row a reader
# would write for it (the labelled sessions name it by a pattern, a purpose or "patterns" alike).
_PATTERNS_EACH = 3


def _ignore_changes(old: Settings, new: Settings, *, created: bool) -> Iterator[tuple[str, str | None, str]]:
    """An ignore file's rules compared as a set (a pattern has dots and brackets a dotted setting
    would misread): each pattern a few edits added or removed."""
    added = [rule for rule in new if rule not in old]
    removed = [rule for rule in old if rule not in new]
    if created or len(added) + len(removed) > _PATTERNS_EACH:
        return
    for rule in added:
        yield rule, None, rule
    for rule in removed:
        yield rule, rule, REMOVED


def _before_after(call: ToolCall, shown: str | None = None) -> tuple[list[tuple[str | None, str]], bool]:
    """The file's text before and after the call, whole when known (True), else the edited
    fragments (False). The text before is the call's own copy of the file (Claude Code's), else
    `shown`, the file as the session last saw it whole. A Write that replaced a file it did not
    show is not whole."""
    structured: dict[str, Any] = (call.result.structured if call.result else None) or {}
    args = call.full_input  # the whole edit: `input` holds only the start of long texts
    original = structured.get("originalFile")
    original = original if isinstance(original, str) else shown
    if call.kind is ToolKind.WRITE:
        content = structured.get("content")
        after = content if isinstance(content, str) else _whole(args.get("content"))
        created = structured.get("type") == "create"
        before = None if created else original
        return [(before, after)], created or original is not None
    if "edits" not in args:  # one edit
        pairs = [
            (
                _text(structured.get("oldString"), args.get("old_string")),
                _text(structured.get("newString"), args.get("new_string")),
            )
        ]
        replace_all = bool(structured.get("replaceAll", args.get("replace_all")))
    else:  # several edits in one call
        edits = args.get("edits")
        pairs = [
            (_whole(e.get("old_string")), _whole(e.get("new_string")))
            for e in (edits if isinstance(edits, list) else [])
            if isinstance(e, dict)
        ]
        replace_all = False
    if original is not None:
        updated: str | None = original
        for old, new in pairs:
            if updated is None or not old or old not in updated:
                updated = None
                break
            updated = updated.replace(old, new) if replace_all else updated.replace(old, new, 1)
        if updated is not None:
            return [(original, updated)], True
    return [(old, new) for old, new in pairs], False


def _text(preferred: Any, fallback: Any) -> str:
    return preferred if isinstance(preferred, str) else _whole(fallback)


def _whole(value: Any) -> str:
    """A tool input string; one cut (`…[N more]`) loses its unfinished last line, not a wrong value."""
    if not isinstance(value, str):
        return ""
    text: str = value
    marker = _TRUNCATED_INPUT.search(text)
    if marker:
        text = text[: marker.start()]
        text = text[: text.rfind("\n") + 1] if "\n" in text else ""
    return text


def _reasons_by_call(session: Session) -> dict[str, str]:
    """Each call id → the explaining sentence of the assistant text that led up to it, if any.

    The text looked at is the latest assistant text since the person last spoke: the words
    written right before the edit, even when they came a few silent tool calls earlier.
    """
    reasons: dict[str, str] = {}
    latest = ""
    for message in session.messages:
        if message.is_sidechain:
            continue
        if message.is_human:
            latest = ""
            continue
        if message.role != "assistant":
            continue
        if message.text.strip():
            latest = message.text
        if message.tool_calls:
            explaining = [s.text for s in split_sentences(latest) if _REASON.search(s.prose)]
            reason = cut(explaining[-1], _REASON_LIMIT) if explaining else ""
            for call in message.tool_calls:
                reasons[call.id] = reason
    return reasons
