"""The old SessionSummarySchema: its required fields and defaults, as the old module had them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from graphiti_session_tracking.legacy import LegacyFormatError, SessionSummarySchema

MINIMAL = {"objective": "o", "completed_tasks": [], "next_steps": [], "key_decisions": []}


def test_defaults_of_the_optional_fields() -> None:
    old = SessionSummarySchema.model_validate({**MINIMAL, "exported_by": "a script"})  # extras ignored
    assert old.model_dump() == {
        **MINIMAL,
        "blocked_items": [],
        "files_modified": [],
        "documentation_referenced": [],
        "mcp_tools_used": [],
        "token_count": None,
        "duration_estimate": None,
        "errors_resolved": [],
        "config_changes": [],
        "test_results": None,
        "activity_profile": None,
    }
    # The second generation defaulted key_decisions to [] (the first required it).
    assert (
        SessionSummarySchema.model_validate(
            {k: v for k, v in MINIMAL.items() if k != "key_decisions"}
        ).key_decisions
        == []
    )


@pytest.mark.parametrize("missing", sorted(set(MINIMAL) - {"key_decisions"}))
def test_required_fields(missing: str) -> None:
    with pytest.raises(ValidationError, match=missing):
        SessionSummarySchema.model_validate({k: v for k, v in MINIMAL.items() if k != missing})


def test_wrong_types_are_rejected() -> None:
    with pytest.raises(ValidationError, match="token_count"):
        SessionSummarySchema.model_validate({**MINIMAL, "token_count": "48,210"})
    with pytest.raises(ValidationError, match="completed_tasks"):
        SessionSummarySchema.model_validate({**MINIMAL, "completed_tasks": "one"})


def test_format_error_names_source_and_line() -> None:
    error = LegacyFormatError("exports/a.jsonl", 7, "invalid JSON")
    assert str(error) == "exports/a.jsonl:7: invalid JSON"
    assert (error.source, error.line, error.reason) == ("exports/a.jsonl", 7, "invalid JSON")
