"""A summary with its secrets redacted: the one place that knows which of its fields are free
text and which are a setting's value (redacted by the rules for that setting in that file)."""

from __future__ import annotations

import hashlib
from typing import Any

from graphiti_session_tracking.redact import Redactor

from .config_changes import REMOVED
from .model import EnhancedSessionSummary

__all__ = ["redact_summary"]

_SUMMARY_SKIP = frozenset({"outcome", "generated_by", "activity_vector", "config_changes"})


def _digest(summary: EnhancedSessionSummary) -> str:
    return hashlib.sha256(summary.model_dump_json().encode("utf-8")).hexdigest()


def redact_summary(summary: EnhancedSessionSummary, redactor: Redactor) -> EnhancedSessionSummary:
    """A copy of `summary` with every string field of it and its records redacted; the summary
    itself when the same rules already redacted exactly this content (a summary is redacted once,
    and any change made to it since is redacted again).

    Config changes keep `file` and `setting` readable (only a secret inside them is redacted);
    their old and new values are redacted as values of that setting in that file, so the
    key-name and `.env` rules apply to them.
    """
    if summary._redacted is not None and summary._redacted == (redactor.signature, _digest(summary)):
        return summary
    data = summary.model_dump()
    for field, value in data.items():
        if field not in _SUMMARY_SKIP:
            data[field] = _redact_plain(value, redactor)
    changes: list[dict[str, Any]] = []
    for change in data.get("config_changes") or []:
        file, setting = change["file"], change["setting"]
        for name in ("old_value", "new_value"):
            if change[name] is not None and change[name] != REMOVED:
                change[name] = redactor.redact_value(change[name], setting, file)
        change["reason"] = redactor.redact(change["reason"])
        # A name is no hiding place: the text rules leave `tool.ruff.line-length` as it is and
        # take a token out of a name a command made (`dependencies.https://u:<token>@…`).
        change["file"], change["setting"] = redactor.redact(file), redactor.redact(setting)
        changes.append(change)
    if summary.config_changes is not None:
        data["config_changes"] = changes
    redacted = EnhancedSessionSummary.model_validate(data)
    redacted._redacted = (redactor.signature, _digest(redacted))
    return redacted


def _redact_plain(value: Any, redactor: Redactor) -> Any:
    """Free text: every string redacted with the text rules (dict keys are field names, not settings)."""
    if isinstance(value, str):
        return redactor.redact(value)
    if isinstance(value, list):
        return [_redact_plain(v, redactor) for v in value]
    if isinstance(value, dict):
        return {k: _redact_plain(v, redactor) for k, v in value.items()}
    return value
